/** The stream and subscription endpoints' shared parameters, and what Zulip does with them past their shape. */
import { AnyJson, Dict, Int, IntList, List, OneOf, Opt, Str, StrList, type ArgsOf } from '../../schemas/params.js';
import { LIST_LIMITS, MAX_STREAM_DESCRIPTION_LENGTH } from '../../lib/limits.js';
import { badRequest } from '../../errors.js';
import { checkStreamDescription } from '../../actions/stream-create.js';
import { decodeGroupSettingChange } from '../../lib/group-setting-value.js';
import { STREAM_GROUP_SETTING_NAMES, type StreamGroupSettingChanges, type StreamGroupSettingName } from '../../lib/stream-group-settings.js';

/** Streams to subscribe to (or create): `[{"name": ..., "description": ...}]`. */
export const streamDicts = List(Dict({ name: Str(), description: Opt(Str({ maxLength: MAX_STREAM_DESCRIPTION_LENGTH })) }), LIST_LIMITS.streams);

export const principals = Opt(OneOf([StrList(LIST_LIMITS.users), IntList(LIST_LIMITS.users)], { description: 'Users by id, or by email' }));

/** The settings a new stream takes and an existing one changes, as both endpoints read them. */
export const streamPolicyParams = {
  stream_post_policy: Opt(Int({ description: '1 anyone, 2 administrators, 3 full members, 4 moderators' })),
  message_retention_days: Opt(Str({ description: 'Days, or "unlimited", or "realm_default"' })),
  can_remove_subscribers_group: Opt(AnyJson({ description: 'Feature level 197: who may unsubscribe others (a system group; from 320 any group-setting value, PATCH {new, old})' })),
  can_remove_subscribers_group_id: Opt(Int({ description: 'Feature level 161 (renamed can_remove_subscribers_group at 197)' })),
  can_administer_channel_group: Opt(AnyJson({ description: 'Feature level 325: group-setting value (PATCH: or {new, old})' })),
  can_send_message_group: Opt(AnyJson({ description: 'Feature level 333: group-setting value (PATCH: or {new, old}); replaces stream_post_policy' })),
  can_add_subscribers_group: Opt(AnyJson({ description: 'Feature level 342: group-setting value (PATCH: or {new, old})' })),
  can_subscribe_group: Opt(AnyJson({ description: 'Feature level 357: group-setting value (PATCH: or {new, old})' })),
};


/**
 * The stream group settings a request gives (any level accepts them), decoded; a bare value
 * or, on PATCH, `{new, old}`. can_remove_subscribers_group may come by its level-161 name.
 */
export function streamGroupSettingParams(args: Partial<Record<StreamGroupSettingName | 'can_remove_subscribers_group_id', unknown>>, withOld: boolean): StreamGroupSettingChanges {
  const out: StreamGroupSettingChanges = {};
  for (const name of STREAM_GROUP_SETTING_NAMES) {
    const raw = args[name] ?? (name === 'can_remove_subscribers_group' ? args.can_remove_subscribers_group_id : undefined);
    if (raw === undefined) continue;
    if (!withOld && typeof raw === 'object' && raw !== null && 'new' in raw) throw badRequest(`Invalid ${name}`);
    out[name] = decodeGroupSettingChange(name, raw);
  }
  return out;
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

