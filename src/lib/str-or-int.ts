import { badRequest } from '../errors.js';

/** Zulip's check_string_or_int on a raw parameter: a JSON integer, or a string (JSON-quoted or bare). */
export function strOrInt(name: string, raw: string): number | string {
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    /* a bare string such as `unlimited` */
  }
  if (typeof v === 'string' || Number.isSafeInteger(v)) return v as string | number;
  throw badRequest(`${name} is not a string or integer`);
}
