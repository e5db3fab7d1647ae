/** Parsers for the stream and subscription endpoints' structured parameters, with Zulip's validator wording. */
import type { Params, Json } from '../params.js';
import { isDict } from '../params.js';
import { badRequest } from '../../errors.js';
import { checkStreamDescription } from '../../actions/stream-create.js';


export interface StreamDictParam {
  name: string;
  description?: string;
}

export function parseStreamDicts(v: Json, varName = 'subscriptions'): StreamDictParam[] {
  if (!Array.isArray(v)) throw badRequest(`${varName} is not a list`);
  return v.map((item, i) => {
    const at = `${varName}[${i}]`;
    if (!isDict(item)) throw badRequest(`${at} is not a dict`);
    if (!('name' in item)) throw badRequest(`name key is missing from ${at}`);
    if (typeof item.name !== 'string') throw badRequest(`${at}["name"] is not a string`);
    const out: StreamDictParam = { name: item.name.trim() };
    if ('description' in item) {
      if (typeof item.description !== 'string') throw badRequest(`${at}["description"] is not a string`);
      out.description = checkStreamDescription(item.description, `${at}["description"]`);
    }
    return out;
  });
}

/** A list of user ids or a list of emails (Zulip's check_principals). */
export function parsePrincipals(v: Json | undefined): Array<string | number> | undefined {
  if (v === undefined) return undefined;
  const ok = Array.isArray(v) && (v.every((x) => typeof x === 'string') || v.every((x) => typeof x === 'number' && Number.isSafeInteger(x)));
  if (!ok) throw badRequest('principals is not an allowed_type');
  return v as Array<string | number>;
}

export function optPostPolicy(params: Params): number | undefined {
  const v = params.optInt('stream_post_policy');
  if (v !== undefined && ![1, 2, 3, 4].includes(v)) throw badRequest('Invalid stream_post_policy');
  return v;
}

/**
 * message_retention_days: a positive integer, `unlimited` (or the pre-level-91
 * `forever`) for -1, `realm_default` for null. undefined when absent. Strings may
 * come raw or JSON-quoted.
 */
export function optRetentionDays(params: Params): number | null | undefined {
  const raw = params.optStr('message_retention_days');
  if (raw === undefined) return undefined;
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    /* a raw string such as unlimited */
  }
  if (v === 'unlimited' || v === 'forever') return -1;
  if (v === 'realm_default') return null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  throw badRequest(`Bad value for 'message_retention_days': ${raw}`);
}

const COLOR_RE = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** Colors are stored as lowercase #rrggbb, which is what clients parse. */
export function checkColor(name: string, v: unknown): string {
  if (typeof v !== 'string') throw badRequest(`${name} is not a string`);
  if (!COLOR_RE.test(v)) throw badRequest(`${name} is not a valid hex color code`);
  const hex = v.slice(1).toLowerCase();
  return '#' + (hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex);
}
