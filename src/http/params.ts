import { badRequest, missingArgument } from '../errors.js';
import { capList } from '../lib/lists.js';

export { capList };

/**
 * Zulip's parameter rules: strings arrive raw, integers as decimal strings,
 * booleans as JSON `true`/`false`, arrays and objects as JSON text. Unknown
 * parameters are simply never read. Error wording follows Zulip's validators.
 */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const INT_RE = /^[-+]?\d+$/;

/**
 * The query string parser of every request, given to Fastify and used by the long-poll
 * path, so both read the same parameters from the same bytes (malformed escapes included).
 * A repeated name keeps its last value, as Zulip's Django does.
 */
export function parseQuery(query: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(query)) out[k] = v;
  return out;
}

export class Params {
  constructor(private readonly raw: Record<string, string>) {}

  static from(...sources: Array<unknown>): Params {
    const out: Record<string, string> = {};
    for (const src of sources) {
      if (!src || typeof src !== 'object') continue;
      for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
        const val = Array.isArray(v) ? v[v.length - 1] : v;
        if (typeof val === 'string') out[k] = val;
        else if (Buffer.isBuffer(val)) out[k] = val.toString('utf8');
        else if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
      }
    }
    return new Params(out);
  }

  /** Every parameter name the request carried. */
  names(): string[] {
    return Object.keys(this.raw);
  }

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.raw, name);
  }

  /** First of several names that is present (for aliases like topic/subject). */
  pick(...names: string[]): string | undefined {
    return names.find((n) => this.has(n));
  }

  rawValue(name: string): string | undefined {
    return this.has(name) ? this.raw[name] : undefined;
  }

  str(name: string): string {
    const v = this.rawValue(name);
    if (v === undefined) throw missingArgument(name);
    return v;
  }

  optStr(name: string): string | undefined {
    return this.rawValue(name);
  }

  int(name: string): number {
    const v = this.rawValue(name);
    if (v === undefined) throw missingArgument(name);
    return parseIntParam(name, v);
  }

  optInt(name: string): number | undefined {
    const v = this.rawValue(name);
    return v === undefined ? undefined : parseIntParam(name, v);
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.optBool(name);
    return v === undefined ? fallback : v;
  }

  optBool(name: string): boolean | undefined {
    const v = this.rawValue(name);
    if (v === undefined) return undefined;
    const parsed = parseJson(name, v);
    if (typeof parsed !== 'boolean') throw badRequest(`${name} is not a boolean`);
    return parsed;
  }

  json(name: string): Json {
    const v = this.rawValue(name);
    if (v === undefined) throw missingArgument(name);
    return parseJson(name, v);
  }

  optJson(name: string): Json | undefined {
    const v = this.rawValue(name);
    return v === undefined ? undefined : parseJson(name, v);
  }

  /** Every list accessor takes the list's maximum (lib/limits.ts LIST_LIMITS): no list is unbounded. */
  intList(name: string, max: number): number[] {
    return checkIntList(name, capList(name, this.json(name), max));
  }

  optIntList(name: string, max: number): number[] | undefined {
    const v = this.optJson(name);
    return v === undefined ? undefined : checkIntList(name, capList(name, v, max));
  }

  strList(name: string, max: number): string[] {
    return checkStrList(name, capList(name, this.json(name), max));
  }

  optStrList(name: string, max: number): string[] | undefined {
    const v = this.optJson(name);
    return v === undefined ? undefined : checkStrList(name, capList(name, v, max));
  }

  /** A JSON parameter that should be a list (of dicts, say): its length is checked here, its shape by the caller. */
  jsonList(name: string, max: number): Json {
    return capList(name, this.json(name), max);
  }

  optJsonList(name: string, max: number): Json | undefined {
    const v = this.optJson(name);
    return v === undefined ? undefined : capList(name, v, max);
  }
}

export function parseIntParam(name: string, v: string): number {
  const s = v.trim();
  // Zulip's check_int accepts JSON integers; a quoted "5" is not one.
  if (!INT_RE.test(s)) throw badRequest(`${name} is not an integer`);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw badRequest(`${name} is too large`);
  return n;
}

export function parseJson(name: string, v: string): Json {
  try {
    return JSON.parse(v) as Json;
  } catch {
    throw badRequest(`Argument "${name}" is not valid JSON.`);
  }
}

export function checkIntList(name: string, v: Json): number[] {
  if (!Array.isArray(v)) throw badRequest(`${name} is not a list`);
  v.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isSafeInteger(x)) throw badRequest(`${name}[${i}] is not an integer`);
  });
  return v as number[];
}

export function checkStrList(name: string, v: Json): string[] {
  if (!Array.isArray(v)) throw badRequest(`${name} is not a list`);
  v.forEach((x, i) => {
    if (typeof x !== 'string') throw badRequest(`${name}[${i}] is not a string`);
  });
  return v as string[];
}

export function isDict(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
