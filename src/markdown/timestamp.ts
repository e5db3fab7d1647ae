import type { MarkdownIt } from 'markdown-it';
import type { StateInline } from 'markdown-it';

/**
 * Zulip's global times: `<time:...>` becomes `<time datetime="...Z">text typed</time>`, which
 * every client shows in the reader's own time zone; text that is no time becomes Zulip's
 * `timestamp-error` span. Zulip parses with dateutil; this takes what people type and Zulip's
 * composer writes: a Unix time, ISO 8601, and day/month-name/year dates with an optional time,
 * am/pm and a zone abbreviation. Without a zone the time is UTC, as in Zulip.
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// Zone abbreviations in minutes east of UTC: the common ones dateutil is given by Zulip.
const ZONES: Record<string, number> = {
  utc: 0, gmt: 0, z: 0, ist: 330, cet: 60, cest: 120, eet: 120, eest: 180, bst: 60, wet: 0, west: 60,
  est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420,
  jst: 540, kst: 540, aest: 600, aedt: 660, nzst: 720, nzdt: 780, msk: 180, hkt: 480, sgt: 480,
};

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Milliseconds since the epoch for a time as typed, or undefined when it is none. */
export function parseTime(text: string): number | undefined {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(t)) return Math.floor(Number(t)) * 1000;
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(t)) {
    const iso = t.replace(' ', 'T');
    const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) || iso.length === 10 ? (iso.length === 10 ? `${iso}T00:00:00Z` : iso) : `${iso}Z`);
    return Number.isNaN(ms) ? undefined : ms;
  }
  let day: number | undefined;
  let month: number | undefined;
  let year: number | undefined;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let offset = 0;
  let sawTime = false;
  const words = t.toLowerCase().split(/[\s,]+/).filter(Boolean);
  for (let i = 0; i < words.length; i += 1) {
    const w = words[i]!;
    let m: RegExpExecArray | null;
    if ((m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(am|pm)?$/.exec(w)) !== null) {
      if (sawTime) return undefined;
      sawTime = true;
      [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
      let ampm = m[4];
      if (ampm === undefined && (words[i + 1] === 'am' || words[i + 1] === 'pm')) ampm = words[(i += 1)];
      if (ampm !== undefined) {
        if (hour < 1 || hour > 12) return undefined;
        hour = (hour % 12) + (ampm === 'pm' ? 12 : 0);
      }
    } else if ((m = /^(\d{1,2})(st|nd|rd|th)?$/.exec(w)) !== null && day === undefined) {
      day = Number(m[1]);
    } else if (/^\d{4}$/.test(w) && year === undefined) {
      year = Number(w);
    } else if (MONTHS.includes(w.slice(0, 3)) && month === undefined && /^[a-z]+\.?$/.test(w)) {
      month = MONTHS.indexOf(w.slice(0, 3));
    } else if (w in ZONES) {
      offset = ZONES[w]!;
    } else {
      return undefined;
    }
  }
  if (day === undefined || month === undefined || year === undefined) return undefined;
  if (day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return ms - offset * 60_000;
}

function isoZ(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function timestamp(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x3c /* < */ || !src.startsWith('<time:', start)) return false;
  const end = src.indexOf('>', start + 6);
  if (end < 0) return false;
  const text = src.slice(start + 6, end);
  if (text.includes('\n')) return false;
  if (!silent) {
    const ms = parseTime(text);
    const token = state.push('zulip_html', '', 0);
    token.content = ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15
      ? `<span class="timestamp-error">Invalid time format: ${escapeText(text)}</span>`
      : `<time datetime="${isoZ(ms)}">${escapeText(text)}</time>`;
  }
  state.pos = end + 1;
  return true;
}

export function timestampRule(md: MarkdownIt): void {
  md.inline.ruler.before('autolink', 'zulip_time', timestamp);
}
