import { presentEditLimit } from './realm-settings.js';

/**
 * How organization settings are named and presented at later feature levels (issue 31's
 * realm package). Settings are stored under one name; register, PATCH /realm's answer and
 * the realm/update events say it as the client's level knows it.
 */

/** Renamed at level 241 (Zulip's *_announcements_stream): stored, and named at 122, under the old name. */
export const RENAMED_AT_241: Readonly<Record<string, string>> = {
  notifications_stream_id: 'new_stream_announcements_stream_id',
  signup_notifications_stream_id: 'signup_announcements_stream_id',
};
export const ANNOUNCEMENTS_RENAME_LEVEL = 241;

/** The spec says `service_` where Zulip says `zulip_`: Parley answers with both spellings, as for zulip_feature_level. */
export const SERVICE_SPELLING: Readonly<Record<string, string>> = {
  zulip_update_announcements_stream_id: 'service_update_announcements_stream_id',
};

/** The stream-valued settings PATCH /realm takes (by their stored names). */
export const STREAM_SETTINGS = ['notifications_stream_id', 'signup_notifications_stream_id', 'zulip_update_announcements_stream_id', 'moderation_request_channel_id'] as const;
export type StreamSettingName = (typeof STREAM_SETTINGS)[number];

/** The names a stored setting has at this level (register keys without `realm_`, PATCH /realm answer keys). */
export function namesAtLevel(name: string, featureLevel: number): string[] {
  const renamed = RENAMED_AT_241[name];
  if (renamed !== undefined) return [featureLevel >= ANNOUNCEMENTS_RENAME_LEVEL ? renamed : name];
  const service = SERVICE_SPELLING[name];
  return service === undefined ? [name] : [name, service];
}

/**
 * Every property a change of the setting is announced under. Event formats do not follow
 * the level: a client applies the names it knows and ignores the others, so each rename is
 * announced under both names.
 */
export function eventNames(name: string): string[] {
  const renamed = RENAMED_AT_241[name];
  const service = SERVICE_SPELLING[name];
  return [name, ...(renamed === undefined ? [] : [renamed]), ...(service === undefined ? [] : [service])];
}

/** A setting's value as a client of this level knows it. */
export function presentRealmSetting(name: string, value: unknown, featureLevel: number): unknown {
  if (name === 'message_content_edit_limit_seconds') return presentEditLimit(value as number | null, featureLevel);
  // Level 195: no default code block language is "" (null before).
  if (name === 'default_code_block_language' && featureLevel >= 195) return value ?? '';
  return value;
}
