import type { StreamRow } from '../rows.js';
import type { AnonymousGroup, GroupSettingChange, GroupSettingValue } from './group-setting-value.js';

/**
 * Zulip 10's stream permission settings, each a group-setting value stored as JSON text in
 * the `stream` column of its name (migration 054), and the feature level that added it to
 * stream objects, creation and PATCH /streams/{id}. can_remove_subscribers_group is older
 * (142, named so from 197) and takes any value from 320.
 */
export const STREAM_GROUP_SETTING_LEVELS = {
  can_remove_subscribers_group: 142,
  can_administer_channel_group: 325,
  can_send_message_group: 333,
  can_add_subscribers_group: 342,
  can_subscribe_group: 357,
} as const;
export type StreamGroupSettingName = keyof typeof STREAM_GROUP_SETTING_LEVELS;
/** The group settings a stream request gives, decoded (bare values, or on PATCH `{new, old}`). */
export type StreamGroupSettingChanges = Partial<Record<StreamGroupSettingName, GroupSettingChange>>;
export const STREAM_GROUP_SETTING_NAMES = Object.keys(STREAM_GROUP_SETTING_LEVELS) as StreamGroupSettingName[];

/** From it, can_remove_subscribers_group may be any group-setting value (before: a system group). */
export const ANY_REMOVE_SUBSCRIBERS_VALUE_LEVEL = 320;
/** Stream objects' is_archived, GET /streams' exclude_archived, the archived_channels capability. */
export const ARCHIVED_CHANNELS_LEVEL = 315;
/** Stream objects' is_recently_active. */
export const RECENTLY_ACTIVE_LEVEL = 323;
/** Zulip's Stream.LAST_ACTIVITY_DAYS_BEFORE_FOR_ACTIVE. */
export const LAST_ACTIVITY_DAYS_FOR_ACTIVE = 180;

/** The stored JSON as a value: a number (a named group) or `{direct_members, direct_subgroups}`. */
export function parseStoredValue(text: string): GroupSettingValue {
  const v = JSON.parse(text) as unknown;
  return typeof v === 'number' ? v : (v as AnonymousGroup);
}

export const encodeValue = (v: GroupSettingValue): string => JSON.stringify(v);

/** A stream's setting as the API shows it (Zulip's get_group_setting_value_for_api). */
export function streamSettingValue(s: Pick<StreamRow, StreamGroupSettingName>, name: StreamGroupSettingName): GroupSettingValue {
  return parseStoredValue(s[name]);
}

/** Zulip's mapping of stream_post_policy onto can_send_message_group (level 333): a system group per policy. */
export const POLICY_SEND_GROUP: Record<number, string> = { 1: 'role:everyone', 2: 'role:administrators', 3: 'role:fullmembers', 4: 'role:moderators' };

/**
 * The deprecated stream_post_policy for a can_send_message_group value (Zulip's
 * get_stream_post_policy_value_based_on_group_setting): the policy of a mapped system
 * group, otherwise 1 (everyone), the superset that best approximates any other value.
 */
export function policyForSendGroup(value: GroupSettingValue, systemNameOf: (id: number) => string | undefined): number {
  if (typeof value !== 'number') return 1;
  const name = systemNameOf(value);
  const hit = Object.entries(POLICY_SEND_GROUP).find(([, g]) => g === name);
  return hit ? Number(hit[0]) : 1;
}
