import { RE2JS } from 're2js';
import { isValidUrlTemplate, templateVariables } from './url-template.js';

/**
 * Zulip 5's validation of a linkifier (RealmFilter.full_clean): the fields' own checks
 * first (blank, then the URL format string's), then the pattern compiled by RE2, then the
 * groups of the two compared. Every message is kept by field, as Django's ValidationError
 * lists them; the first is the one reported.
 */
export interface LinkifierErrors { [field: string]: string[] }

// Go's RE2 messages (re2js) as C++ RE2, which Zulip's error strings quote, words them.
const RE2_WORDING: Record<string, string> = {
  'missing closing )': 'missing )',
  'missing closing ]': 'missing ]',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid repeat count': 'bad repetition operator',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'trailing backslash at end of expression': 'trailing \\',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
  'duplicate capture group name': 'invalid named capture group',
};

/** The pattern's named groups, or Zulip's "Bad regular expression: ..." message. */
export function checkPattern(pattern: string): { groups: string[] } | { error: string } {
  try {
    return { groups: Object.keys(RE2JS.compile(pattern).namedGroups()) };
  } catch (err) {
    const e = err as { error?: string; input?: string | null; message?: string };
    if (typeof e.error !== 'string') return { error: 'Unknown regular expression error' };
    // Lookbehinds are `(?<` to RE2 of Zulip's time, which knew no `(?<name>`.
    const lookaround = /^\(\?<[=!]/.test(e.input ?? '');
    const code = lookaround ? 'invalid perl operator' : (RE2_WORDING[e.error] ?? e.error);
    const arg = lookaround ? '(?<' : e.input ?? '';
    return { error: `Bad regular expression: ${code}: ${arg}` };
  }
}

// Django's URLValidator (schemes http, https, ftp, ftps), as Zulip's format strings meet it.
const HOST = '(?:[a-z\\u00a1-\\uffff0-9](?:[a-z\\u00a1-\\uffff0-9-]{0,61}[a-z\\u00a1-\\uffff0-9])?)';
const DOMAIN = '(?:\\.(?!-)[a-z\\u00a1-\\uffff0-9-]{1,63}(?<!-))*';
const TLD = '(?:\\.(?!-)(?:[a-z\\u00a1-\\uffff-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?)';
const IPV4 = '(?:0|25[0-5]|2[0-4]\\d|1\\d?\\d?|[1-9]\\d?)(?:\\.(?:0|25[0-5]|2[0-4]\\d|1\\d?\\d?|[1-9]\\d?)){3}';
const URL_RE = new RegExp(
  `^(?:[a-z0-9.+-]*)://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:${IPV4}|\\[[0-9a-f:.]+\\]|${HOST}${DOMAIN}${TLD}|localhost)(?::\\d{1,5})?(?:[/?#][^\\s]*)?$`, 'i');
const URL_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps']);

export function isValidUrl(value: string): boolean {
  if (value.length > 2048 || /\s/.test(value)) return false;
  const scheme = value.split('://')[0]!.toLowerCase();
  return URL_SCHEMES.has(scheme) && URL_RE.test(value);
}

// Zulip's filter_format_validator: any non-percent, or %(name)s, %% or a percent-encoded byte.
const FORMAT_RE = /^(?:[^%]|%(?:\([a-zA-Z0-9_-]+\)s|%|[0-9a-fA-F]{2}))+$/;
// The groups a format string uses (Zulip's regex, which ignores one after a %).
const FORMAT_GROUP_RE = /(?<!%)%\(([^()]+)\)s/g;

export function checkLinkifier(pattern: string, urlFormat: string): LinkifierErrors {
  const errors: LinkifierErrors = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (pattern === '') add('pattern', 'This field cannot be blank.');
  if (urlFormat === '') add('url_format_string', 'This field cannot be blank.');
  else if (!isValidUrl(urlFormat)) add('url_format_string', 'Enter a valid URL.');
  else if (!FORMAT_RE.test(urlFormat)) add('url_format_string', 'Invalid format string in URL.');
  const checked = checkPattern(pattern);
  if ('error' in checked) {
    add('__all__', checked.error);
    return errors;
  }
  const inPattern = new Set(checked.groups);
  const inUrl = new Set([...urlFormat.matchAll(FORMAT_GROUP_RE)].map((m) => m[1]!));
  const missingInPattern = [...inUrl].filter((g) => !inPattern.has(g)).sort();
  const missingInUrl = [...inPattern].filter((g) => !inUrl.has(g)).sort();
  if (missingInPattern.length > 0) add('__all__', `Group '${missingInPattern[0]}' in URL format string is not present in linkifier pattern.`);
  else if (missingInUrl.length > 0) add('__all__', `Group '${missingInUrl[0]}' in linkifier pattern is not present in URL format string.`);
  return errors;
}

/** The message Zulip reports: the first of all, fields before the whole. */
export function firstError(errors: LinkifierErrors): string | undefined {
  return Object.values(errors).flat()[0];
}

/**
 * Zulip's validation of a linkifier from level 176 (RealmFilter.full_clean with url_template):
 * the template must be an RFC 6570 template, then its variables and the pattern's groups
 * must be the same sets (the first missing name in sorted order reported, quoted as
 * Python's %r quotes it).
 */
export function checkLinkifierTemplate(pattern: string, urlTemplate: string): LinkifierErrors {
  const errors: LinkifierErrors = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (pattern === '') add('pattern', 'This field cannot be blank.');
  if (urlTemplate === '') add('url_template', 'This field cannot be blank.');
  else if (!isValidUrlTemplate(urlTemplate)) add('url_template', 'Invalid URL template.');
  const checked = checkPattern(pattern);
  if ('error' in checked) {
    add('__all__', checked.error);
    return errors;
  }
  if (!isValidUrlTemplate(urlTemplate)) return errors;
  const inPattern = new Set(checked.groups);
  const inUrl = new Set(templateVariables(urlTemplate));
  const missingInPattern = [...inUrl].filter((g) => !inPattern.has(g)).sort();
  const missingInUrl = [...inPattern].filter((g) => !inUrl.has(g)).sort();
  if (missingInPattern.length > 0) add('__all__', `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`);
  else if (missingInUrl.length > 0) add('__all__', `Group '${missingInUrl[0]}' in linkifier pattern is not present in URL template.`);
  return errors;
}
