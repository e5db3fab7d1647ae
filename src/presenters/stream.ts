import type { StreamRow, SubscriptionRow } from '../rows.js';
import { STREAM_POST_POLICY } from '../lib/stream-post-policy.js';
import { ARCHIVED_CHANNELS_LEVEL, RECENTLY_ACTIVE_LEVEL, STREAM_GROUP_SETTING_LEVELS, STREAM_GROUP_SETTING_NAMES, streamSettingValue } from '../lib/stream-group-settings.js';
import type { WireStream, WireStreamRef, WireSubscription } from '../schemas/wire.js';

let emailDomain = 'localhost';

/** Set once per process from the external URL (stream email addresses name the server host). */
export function setStreamEmailDomain(domain: string): void {
  emailDomain = domain;
}

/** Zulip's form: the name with each run of non-word characters turned into '-', a dot, the token. */
export function streamEmailAddress(stream: StreamRow, token = stream.email_token): string {
  const slug = stream.name.replace(/[^\p{L}\p{N}_]+/gu, '-');
  return `${slug}.${token}@${emailDomain}`;
}

/** The feature levels of the stream's `can_remove_subscribers_group_id` (142) and its new name (197). */
export const CAN_REMOVE_SUBSCRIBERS_GROUP_ID_LEVEL = 142;
export const CAN_REMOVE_SUBSCRIBERS_GROUP_LEVEL = 197;
/** From it, the setting can be chosen (stream creation, PATCH /streams) and decides who may unsubscribe others. */
export const CAN_REMOVE_SUBSCRIBERS_PARAM_LEVEL = 161;

/** The name of the stream's can_remove_subscribers_group field at a level, none below 142. */
export function canRemoveSubscribersGroupKey(featureLevel: number): 'can_remove_subscribers_group' | 'can_remove_subscribers_group_id' | undefined {
  if (featureLevel >= CAN_REMOVE_SUBSCRIBERS_GROUP_LEVEL) return 'can_remove_subscribers_group';
  return featureLevel >= CAN_REMOVE_SUBSCRIBERS_GROUP_ID_LEVEL ? 'can_remove_subscribers_group_id' : undefined;
}

/**
 * The Stream object of GET /streams, stream events and register's `streams`. The fields a
 * level adds are there from that level (`featureLevel`; undefined: none of them): answers
 * pass the reported level, events too (tx.featureLevel), so that events keep register's
 * state as a fresh register would show it.
 */
/** From this level register and events give default streams (and default stream groups' streams) as ids (Zulip 10). */
export const DEFAULT_STREAM_IDS_LEVEL = 330;

export function presentStream(s: StreamRow, featureLevel?: number): WireStream {
  const out: WireStream = {
    stream_id: s.id,
    name: s.name,
    description: s.description,
    rendered_description: s.rendered_description,
    invite_only: s.invite_only === 1,
    is_web_public: s.is_web_public === 1,
    history_public_to_subscribers: s.history_public_to_subscribers === 1,
    stream_post_policy: s.stream_post_policy,
    message_retention_days: s.message_retention_days,
    date_created: s.date_created,
    first_message_id: s.first_message_id,
    is_announcement_only: s.stream_post_policy === STREAM_POST_POLICY.ADMINS,
    creator_id: s.creator_id,
  };
  if (featureLevel === undefined) return out;
  const key = canRemoveSubscribersGroupKey(featureLevel);
  const remove = streamSettingValue(s, 'can_remove_subscribers_group');
  if (key === 'can_remove_subscribers_group') out[key] = remove;
  // Before level 197 only system groups can be chosen (the setting's config then), so an id.
  else if (key && typeof remove === 'number') out[key] = remove;
  // Zulip 10's fields, each from its level.
  if (featureLevel >= ARCHIVED_CHANNELS_LEVEL) out.is_archived = s.deactivated === 1;
  if (featureLevel >= RECENTLY_ACTIVE_LEVEL) out.is_recently_active = s.is_recently_active === 1;
  for (const name of STREAM_GROUP_SETTING_NAMES) {
    if (name !== 'can_remove_subscribers_group' && featureLevel >= STREAM_GROUP_SETTING_LEVELS[name]) out[name] = streamSettingValue(s, name);
  }
  return out;
}

/** The feature levels that changed stream and subscription objects (see forLevel). */
export const STREAM_CREATOR_ID = 254;
export const SUBSCRIPTION_EMAIL_REMOVED = 226;

/**
 * A stream or subscription object as an answer of `featureLevel` shows it: `creator_id`
 * from 254, `role` before 133, `email_address` before 226. Events always carry the newest
 * form (their format follows capabilities, never the level); register's apply uses this to
 * keep state as a fresh register at the same level would give it. Returns a copy.
 */
export function forLevel<T extends object>(obj: T, featureLevel: number): T {
  const out = { ...obj } as Record<string, unknown>;
  if (featureLevel < STREAM_CREATOR_ID) delete out.creator_id;
  if (featureLevel >= SUBSCRIPTION_ROLE_REMOVED) delete out.role;
  if (featureLevel >= SUBSCRIPTION_EMAIL_REMOVED) delete out.email_address;
  return out as T;
}

const nullableBool = (v: number | null) => (v === null ? null : v === 1);

/**
 * The subscription object of GET /users/me/subscriptions, register and subscription
 * `add` events. Notification settings stay null when they follow the user's defaults
 * (the events team fills them in for clients without notification_settings_null).
 * `featureLevel` shapes answers (undefined in events: see `role`); `streamLevel`, the
 * stream's fields (presentStream), events included.
 */
export function presentSubscription(stream: StreamRow, sub: SubscriptionRow, subscribers?: number[], featureLevel?: number,
  streamLevel = featureLevel): WireSubscription {
  const out: WireSubscription = {
    ...presentStream(stream, streamLevel),
    color: sub.color,
    is_muted: sub.is_muted === 1,
    in_home_view: sub.is_muted === 0,
    pin_to_top: sub.pin_to_top === 1,
    desktop_notifications: nullableBool(sub.desktop_notifications),
    audible_notifications: nullableBool(sub.audible_notifications),
    push_notifications: nullableBool(sub.push_notifications),
    email_notifications: nullableBool(sub.email_notifications),
    wildcard_mentions_notify: nullableBool(sub.wildcard_mentions_notify),
    role: 50,
    email_address: streamEmailAddress(stream),
    stream_weekly_traffic: null,
  };
  if (subscribers) out.subscribers = subscribers;
  // Feature levels 133 (`role`), 226 (`email_address`) and 254 (`creator_id`) changed
  // subscription objects in answers (register and GET /users/me/subscriptions); events keep
  // every field whatever the level (their format follows the client's capabilities only).
  return featureLevel === undefined ? out : forLevel(out, featureLevel);
}

/** The feature level from which subscription objects carry no `role`. */
export const SUBSCRIPTION_ROLE_REMOVED = 133;

/** The short form in subscription `remove` events and `unsubscribed` lists without details. */
export function presentStreamRef(stream: StreamRow): WireStreamRef {
  return { stream_id: stream.id, name: stream.name };
}

/** The user settings each null per-stream notification setting falls back to, with Zulip's defaults. */
const NOTIFICATION_FALLBACKS: Array<[string, string, boolean]> = [
  ['desktop_notifications', 'enable_stream_desktop_notifications', false],
  ['audible_notifications', 'enable_stream_audible_notifications', false],
  ['push_notifications', 'enable_stream_push_notifications', false],
  ['email_notifications', 'enable_stream_email_notifications', false],
  ['wildcard_mentions_notify', 'wildcard_mentions_notify', true],
];

/**
 * For register clients without the notification_settings_null capability: null
 * per-stream settings become the user's own defaults (Zulip's
 * handle_stream_notifications_compatibility). Mutates and returns the dict.
 */
export function fillNotificationDefaults(subDict: Record<string, unknown>, userSettingsJson: string): Record<string, unknown> {
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(userSettingsJson) as Record<string, unknown>;
  } catch {
    /* corrupt settings: Zulip's defaults */
  }
  for (const [field, setting, fallback] of NOTIFICATION_FALLBACKS) {
    if (subDict[field] === null) subDict[field] = typeof settings[setting] === 'boolean' ? settings[setting] : fallback;
  }
  return subDict;
}
