/// <reference types="vite/client" />
/**
 * Every string the app shows goes through t(): its English text is the key (gettext's way,
 * and Zulip's `$t({defaultMessage})`), so that English needs no catalog and a missing
 * translation falls back to English rather than to a key. Catalogs are loaded on demand,
 * one chunk per language, picked by the user's `default_language` (register's
 * `user_settings.default_language` / `default_language`), before the first render.
 *
 * Placeholders: `t('{n} unread', { n: 3 })`. Plurals: pass both forms through tn().
 */

type Catalog = Record<string, string>;

/**
 * A language's catalog is every file of web/src/locales/<code>/ (one per part of the app, so
 * that parts are translated side by side), merged; each language one chunk, loaded on demand.
 */
const FILES = import.meta.glob<{ default: Catalog }>('./locales/*/*.json');

export const LANGUAGES: Record<string, () => Promise<Catalog>> = {};
for (const [file, load] of Object.entries(FILES)) {
  const code = /\.\/locales\/([^/]+)\//.exec(file)![1]!;
  const before = LANGUAGES[code];
  LANGUAGES[code] = async () => ({ ...(before ? await before() : {}), ...(await load()).default });
}

let catalog: Catalog = {};
let current = 'en';

const fill = (s: string, vars?: Record<string, string | number>) =>
  vars ? s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) : s;

export function t(english: string, vars?: Record<string, string | number>): string {
  return fill(catalog[english] ?? english, vars);
}

/** One of two forms by count (English's rule; the catalogs translate each form). */
export function tn(one: string, other: string, n: number, vars?: Record<string, string | number>): string {
  return t(n === 1 ? one : other, { n, ...vars });
}

export const currentLanguage = (): string => current;

/** Loads the catalog of `language` (e.g. `de`, `de-AT`, `en`); unknown languages stay English. */
export async function setLanguage(language: string | undefined): Promise<void> {
  const code = (language ?? 'en').toLowerCase().split(/[-_]/)[0]!;
  const load = LANGUAGES[code];
  if (!load) {
    catalog = {};
    current = 'en';
  } else {
    catalog = await load();
    current = code;
  }
  document.documentElement.lang = current;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** A date/time formatter in the app's language (one per language and options: building one is slow). */
export function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${current} ${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.DateTimeFormat(current, options)));
  return f;
}

/** "5 minutes ago", "vor 5 Minuten", "yesterday": a time relative to now, in the app's language. */
export function relativeTime(ms: number, now = Date.now()): string {
  const s = (ms - now) / 1000;
  const rtf = new Intl.RelativeTimeFormat(current, { numeric: 'auto' });
  const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [['second', 60], ['minute', 60], ['hour', 24], ['day', 7], ['week', 4.35], ['month', 12], ['year', Infinity]];
  let v = s;
  for (const [unit, size] of steps) {
    if (Math.abs(v) < size) return rtf.format(Math.round(v), unit);
    v /= size;
  }
  return rtf.format(Math.round(v), 'year');
}
