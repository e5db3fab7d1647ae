import { badRequest } from '../errors.js';
import { capList } from '../lib/lists.js';

export { capList };

/**
 * A request's parameters as sent: Zulip reads the query string of every method and a
 * form-urlencoded or multipart body on top. Routes declare what they read and how it is
 * decoded (src/http/args.ts); this is only the bag of raw texts they decode from.
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

  rawValue(name: string): string | undefined {
    return this.has(name) ? this.raw[name] : undefined;
  }
}

/** Zulip's check_int over a parameter's text: a JSON integer (a quoted "5" is not one). */
export function parseIntParam(name: string, v: string): number {
  const s = v.trim();
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

export function isDict(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
