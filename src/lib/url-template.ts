/**
 * RFC 6570 URI templates as linkifiers use them from feature level 176 (Zulip's
 * url_template, checked with Python's uri_template.validate). Every variable is a regex
 * group: a string, or undefined when the group did not take part. For string values the
 * explode modifier changes nothing and a prefix modifier truncates, so this is the whole
 * of levels 1 to 4 that a linkifier can meet. No RFC 6570 library is a dependency of
 * Parley; expansion of strings is this small.
 */

interface OperatorRules { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }
const OPERATORS: Record<string, OperatorRules> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

interface VarSpec { name: string; prefix?: number }
interface Expression { op: string; vars: VarSpec[] }
type Part = string | Expression;

// RFC 6570 §2.1 literals: anything but controls, space, and "%'<>\^`{|} (a % only as a pct-encoded triplet).
const LITERAL = /^(?:[^\u0000-\u0020"'%<>\\^`{|}\u007f]|%[0-9A-Fa-f]{2})$/u;
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

/** The template's literal text and expressions, or null when it is no RFC 6570 template. */
function parse(template: string): Part[] | null {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const literal = open < 0 ? template.slice(i) : template.slice(i, open);
    for (const m of literal.matchAll(/%..|[\s\S]/gu)) if (!LITERAL.test(m[0])) return null;
    if (literal) parts.push(literal);
    if (open < 0) break;
    const close = template.indexOf('}', open);
    if (close < 0) return null;
    let body = template.slice(open + 1, close);
    let op = '';
    if (body && '+#./;?&'.includes(body[0]!)) {
      op = body[0]!;
      body = body.slice(1);
    }
    const vars: VarSpec[] = [];
    for (const spec of body.split(',')) {
      const m = /^(.+?)(?::([1-9][0-9]{0,3})|(\*))?$/.exec(spec);
      if (!m || !VARNAME.test(m[1]!)) return null;
      vars.push(m[2] ? { name: m[1]!, prefix: Number(m[2]) } : { name: m[1]! });
    }
    parts.push({ op, vars });
    i = close + 1;
  }
  return parts;
}

export function isValidUrlTemplate(template: string): boolean {
  return parse(template) !== null;
}

/** The variables a valid template names. */
export function templateVariables(template: string): string[] {
  return (parse(template) ?? []).flatMap((p) => (typeof p === 'string' ? [] : p.vars.map((v) => v.name)));
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(value: string, reserved: boolean): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (reserved && c === '%' && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) {
      out += value.slice(i, i + 3);
      i += 2;
    } else if (UNRESERVED.test(c) || (reserved && RESERVED.test(c))) {
      out += c;
    } else {
      const cp = value.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      if (ch.length === 2) i += 1;
      out += [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    }
  }
  return out;
}

/** The URL a match links to: each variable the group's text (undefined: left out, as RFC 6570 does). */
export function expandTemplate(template: string, value: (name: string) => string | null | undefined): string {
  return (parse(template) ?? []).map((p) => {
    if (typeof p === 'string') return p;
    const rules = OPERATORS[p.op]!;
    const pieces: string[] = [];
    for (const v of p.vars) {
      let s = value(v.name);
      if (s === null || s === undefined) continue;
      if (v.prefix !== undefined) s = [...s].slice(0, v.prefix).join('');
      const enc = encode(s, rules.reserved);
      pieces.push(rules.named ? (s === '' ? v.name + rules.ifEmpty : `${v.name}=${enc}`) : enc);
    }
    return pieces.length === 0 ? '' : rules.first + pieces.join(rules.sep);
  }).join('');
}

/**
 * The URL format string (Python %-formatting) a level-122 client reads for a template:
 * `%(name)s` per variable, an operator's prefix and separators as literal text, `%%` for a
 * percent sign that is no pct-encoded triplet.
 */
export function templateToFormat(template: string): string {
  return (parse(template) ?? [template]).map((p) => {
    if (typeof p === 'string') return p.replace(/%(?![0-9A-Fa-f]{2})/g, '%%');
    const rules = OPERATORS[p.op]!;
    return rules.first + p.vars.map((v) => (rules.named ? `${v.name}=%(${v.name})s` : `%(${v.name})s`)).join(rules.sep);
  }).join('');
}

/** A URL format string as a template (Zulip's migration of linkifiers at level 176): `%(name)s` is `{name}`. */
export function formatToTemplate(format: string): string {
  return format.replace(/%\(([^()]+)\)s|%%|[{}]/g, (all, name: string | undefined) => {
    if (name !== undefined) return `{${name}}`;
    if (all === '%%') return '%25';
    return all === '{' ? '%7B' : '%7D';
  });
}
