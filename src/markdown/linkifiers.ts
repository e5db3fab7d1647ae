import { RE2JS } from 're2js';
import type { Linkifier } from './types.js';
import { expandTemplate } from '../lib/url-template.js';

/**
 * Linkifiers run through RE2 (the re2js port: pure JavaScript, linear-time matching, no
 * backreferences or lookarounds), as Zulip runs them through re2: an organization's
 * pattern is user input that every message render executes, and a backtracking engine
 * would let one pattern stall the server. Python's `(?P<name>...)` is RE2 syntax already.
 */

/** Zulip's prepare_linkifier_pattern: a boundary before (kept apart), the match, no letter or digit after. */
const BEFORE = 'linkifier_before_match';
const ACTUAL = 'linkifier_actual_match';
const AFTER = 'linkifier_after_match';
export const preparePattern = (source: string): string =>
  `(?P<${BEFORE}>^|\\s|\\x{85}|\\pZ|['"\\(,:<])(?P<${ACTUAL}>${source})(?P<${AFTER}>$|[^\\pL\\pN])`;

export interface CompiledLinkifier {
  re: RE2JS;
  format: string;
  /** Level 176's RFC 6570 template, when the linkifier has one: it makes the link instead of format. */
  template: string | null;
  groups: string[];
  /** Text that every match contains, when the pattern has one: text without it is skipped unscanned. */
  literal: { text: string; caseless: boolean };
}

export interface CompiledLinkifiers {
  list: CompiledLinkifier[];
  /** Topics repeat: their links are kept per topic (bounded). */
  topicCache: Map<string, TopicLink[]>;
}

export interface TopicLink { text: string; url: string }

/**
 * The longest run of literal text outside every group that each match must contain, or ''
 * when the pattern has none (or an alternation, or flags other than a leading `(?i)`,
 * could make one optional). Lower-cased for a case-insensitive pattern.
 */
export function requiredLiteral(pattern: string): { text: string; caseless: boolean } {
  let src = pattern;
  const caseless = src.startsWith('(?i)');
  if (caseless) src = src.slice(4);
  if (src.includes('|') || /\(\?(?!P<)/.test(src)) return { text: '', caseless };
  let best = '';
  let run = '';
  let depth = 0;
  const end = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '(') { depth += 1; end(); continue; }
    if (c === ')') { depth -= 1; end(); continue; }
    if (c === '{') {
      // A counted repetition's bounds (`{2}`, `{1,3}`) are no text of the match.
      end();
      const close = src.indexOf('}', i);
      if (close > i) i = close;
      continue;
    }
    if (c === '[') {
      // Skip the class: `]` first in a class, and escapes, are part of it.
      end();
      let j = i + 1;
      if (src[j] === '^') j += 1;
      if (src[j] === ']') j += 1;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      i = j;
      continue;
    }
    let lit: string | undefined;
    if (c === '\\') {
      // An escaped punctuation character is itself; letters and digits are classes or codes.
      const e = src[i + 1];
      i += 1;
      if (e === 'Q') return { text: '', caseless };
      if (e === 'x' || e === 'p' || e === 'P') {
        // Its argument (`\x41`, `\x{41}`, `\pL`, `\p{Greek}`) is no literal text.
        if (src[i + 1] === '{') i = Math.max(src.indexOf('}', i), i);
        else i += e === 'x' ? 2 : 1;
      } else if (e !== undefined && /[0-7]/.test(e)) {
        while (/[0-7]/.test(src[i + 1] ?? '')) i += 1;
      } else if (e !== undefined && /[^A-Za-z0-9]/.test(e)) {
        lit = e;
      }
    } else if (!'.^$*+?{}'.includes(c)) {
      lit = c;
    }
    const quantified = src[i + 1] === '?' || src[i + 1] === '*' || src[i + 1] === '{';
    if (depth > 0 || lit === undefined || quantified) { end(); continue; }
    run += lit;
    if (src[i + 1] === '+') end();
  }
  end();
  return { text: caseless ? best.toLowerCase() : best, caseless };
}

const compiledCache = new WeakMap<readonly Linkifier[], CompiledLinkifiers>();

/** The realm's linkifiers compiled once per list (the list is the cached read's, stable until changed). */
export function compileLinkifiers(list: readonly Linkifier[]): CompiledLinkifiers {
  let c = compiledCache.get(list);
  if (c) return c;
  c = { list: [], topicCache: new Map() };
  for (const l of list) {
    try {
      const re = RE2JS.compile(preparePattern(l.pattern));
      c.list.push({ re, format: l.url_format, template: l.url_template ?? null, groups: Object.keys(re.namedGroups()), literal: requiredLiteral(l.pattern) });
    } catch {
      // Refused when saved; one that slipped in (an older row) matches nothing, as in Zulip.
    }
  }
  compiledCache.set(list, c);
  return c;
}

/**
 * Python's `format % groupdict` on a Zulip URL format string: `%(name)s` takes the group's
 * text (a group that did not take part is Python's None), `%%` is a percent sign, and a
 * percent-encoded byte (`%2F`) stays as written (Zulip's percent_escape_format_string).
 */
export function expandUrl(format: string, group: (name: string) => string | null): string {
  return format.replace(/%\(([^()]+)\)s|%%|%([0-9a-fA-F]{2})/g, (_all, name: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return group(name) ?? 'None';
    if (hex !== undefined) return `%${hex}`;
    return '%';
  });
}

function mayMatch(l: CompiledLinkifier, text: string): boolean {
  const { text: lit, caseless } = l.literal;
  // RE2 folds the long s and the Kelvin sign into s and k; toLowerCase does only the latter.
  return lit === '' || (caseless ? text.toLowerCase().replace(/\u017f/g, 's') : text).includes(lit);
}

const LINK_SCHEMES = /^(https?|ftps?|mailto):/i;

export interface LinkifierMatch { start: number; end: number; href: string }

/**
 * One linkifier's matches in `text`, as Zulip's inline processor finds them: the boundary
 * characters around a match are not part of it, so the character after one match may be
 * the boundary before the next.
 */
export function* matchesOf(l: CompiledLinkifier, text: string): Generator<LinkifierMatch> {
  if (!mayMatch(l, text)) return;
  const m = l.re.matcher(text);
  let pos = 0;
  while (pos <= text.length && m.find(pos)) {
    const start = m.start(ACTUAL);
    const end = m.end(ACTUAL);
    pos = Math.max(end, pos + 1);
    if (end <= start) continue;
    const group = (name: string) => (l.groups.includes(name) ? m.group(name) : null);
    const href = l.template !== null ? expandTemplate(l.template, group) : expandUrl(l.format, group);
    // Zulip's url_to_a: a URL with a scheme it does not link stays text.
    if (!LINK_SCHEMES.test(href)) continue;
    yield { start, end, href };
  }
}

export type LinkifiedPiece = string | { text: string; href: string };

/**
 * Text split into plain pieces and links. Linkifiers apply in order, each to the text the
 * earlier ones left unlinked (Python-Markdown's inline patterns, one after another).
 */
export function linkifyText(text: string, compiled: CompiledLinkifiers): LinkifiedPiece[] {
  let pieces: LinkifiedPiece[] = [text];
  if (text === '') return pieces;
  for (const l of compiled.list) {
    if (!mayMatch(l, text)) continue;
    const next: LinkifiedPiece[] = [];
    for (const p of pieces) {
      if (typeof p !== 'string') {
        next.push(p);
        continue;
      }
      let last = 0;
      for (const m of matchesOf(l, p)) {
        if (m.start > last) next.push(p.slice(last, m.start));
        next.push({ text: p.slice(m.start, m.end), href: m.href });
        last = m.end;
      }
      if (last < p.length) next.push(last === 0 ? p : p.slice(last));
    }
    pieces = next;
  }
  return pieces;
}

export interface WebLink { index: number; text: string; url: string }

/**
 * A topic's links (Zulip's topic_links): each linkifier's matches, an earlier linkifier
 * winning where two overlap, then raw URLs where no linkifier matched; in topic order.
 */
export function topicLinksOf(topic: string, compiled: CompiledLinkifiers, webLinks: (text: string) => WebLink[]): TopicLink[] {
  const hit = compiled.topicCache.get(topic);
  if (hit) return hit;
  const taken: Array<{ start: number; end: number; text: string; url: string }> = [];
  const free = (start: number, end: number) => taken.every((t) => end <= t.start || start >= t.end);
  for (const l of compiled.list) {
    for (const m of matchesOf(l, topic)) {
      if (free(m.start, m.end)) taken.push({ start: m.start, end: m.end, text: topic.slice(m.start, m.end), url: m.href });
    }
  }
  for (const w of webLinks(topic)) {
    if (free(w.index, w.index + w.text.length)) taken.push({ start: w.index, end: w.index + w.text.length, text: w.text, url: w.url });
  }
  const out = taken.sort((a, b) => a.start - b.start).map(({ text, url }) => ({ text, url }));
  if (compiled.topicCache.size >= 2000) compiled.topicCache.clear();
  compiled.topicCache.set(topic, out);
  return out;
}
