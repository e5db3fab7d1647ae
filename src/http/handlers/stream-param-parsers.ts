/** The stream and subscription endpoints' shared parameters, and what Zulip does with them past their shape. */
import { Dict, Int, IntList, List, OneOf, Opt, Str, StrList, type ArgsOf } from '../../schemas/params.js';
import { LIST_LIMITS, MAX_STREAM_DESCRIPTION_LENGTH } from '../../lib/limits.js';
import { badRequest } from '../../errors.js';
import { checkStreamDescription } from '../../actions/stream-create.js';

/** Streams to subscribe to (or create): `[{"name": ..., "description": ...}]`. */
export const streamDicts = List(Dict({ name: Str(), description: Opt(Str({ maxLength: MAX_STREAM_DESCRIPTION_LENGTH })) }), LIST_LIMITS.streams);

export const principals = Opt(OneOf([StrList(LIST_LIMITS.users), IntList(LIST_LIMITS.users)], { description: 'Users by id, or by email' }));

/** The settings a new stream takes and an existing one changes, as both endpoints read them. */
export const streamPolicyParams = {
  stream_post_policy: Opt(Int({ description: '1 anyone, 2 administrators, 3 full members, 4 moderators' })),
  message_retention_days: Opt(Str({ description: 'Days, or "unlimited", or "realm_default"' })),
  can_remove_subscribers_group: Opt(Int({ description: 'Feature level 197: the system group whose members may unsubscribe others' })),
  can_remove_subscribers_group_id: Opt(Int({ description: 'Feature level 161 (renamed can_remove_subscribers_group at 197)' })),
};

/** The group a request names by either name of the setting; the newer name wins. */
export function removeSubscribersGroupParam(args: { can_remove_subscribers_group?: number | undefined; can_remove_subscribers_group_id?: number | undefined }): number | undefined {
  return args.can_remove_subscribers_group ?? args.can_remove_subscribers_group_id;
}

export interface StreamDictParam {
  name: string;
  description?: string;
}

/** Names trimmed and descriptions' line breaks made spaces, as Zulip does. */
export function toStreamDicts(list: ArgsOf<{ s: typeof streamDicts }>['s'], varName = 'subscriptions'): StreamDictParam[] {
  return list.map((item, i) => {
    const out: StreamDictParam = { name: item.name.trim() };
    if (item.description !== undefined) out.description = checkStreamDescription(item.description, `${varName}[${i}]["description"]`);
    return out;
  });
}

export function checkPostPolicy(v: number | undefined): number | undefined {
  if (v !== undefined && ![1, 2, 3, 4].includes(v)) throw badRequest('Invalid stream_post_policy');
  return v;
}

/**
 * message_retention_days: a positive integer, `unlimited` (or the pre-level-91
 * `forever`) for -1, `realm_default` for null. undefined when absent. Strings may
 * come raw or JSON-quoted.
 */
export function retentionDays(raw: string | undefined): number | null | undefined {
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

