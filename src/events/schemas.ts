/**
 * Strict shapes of the events Parley sends, as Zulip's clients read them (reference:
 * Zulip's OpenAPI GET /events). Every key listed is required unless it ends in '?', and
 * no other key may appear: a field that drifts fails the event guard tests.
 */
type Check = (v: unknown) => boolean;

const int: Check = (v) => Number.isInteger(v);
const str: Check = (v) => typeof v === 'string';
const bool: Check = (v) => typeof v === 'boolean';
const any: Check = () => true;
const obj: Check = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const nullable = (c: Check): Check => (v) => v === null || c(v);
const arrayOf = (c: Check): Check => (v) => Array.isArray(v) && v.every(c);
const shape = (s: Record<string, Check>): Check => (v) => obj(v) && shapeErrors(s, v as Record<string, unknown>, '').length === 0;

const user = shape({
  user_id: int, email: str, full_name: str, avatar_url: nullable(str), avatar_version: int, date_joined: str, timezone: str,
  is_active: bool, is_admin: bool, is_owner: bool, is_guest: bool, 'is_billing_admin?': bool, is_bot: bool, bot_type: nullable(int),
  role: int, 'bot_owner_id?': nullable(int), 'delivery_email?': nullable(str), 'profile_data?': obj,
});
const groupValue: Check = (v) => int(v) || (obj(v) && arrayOf(int)((v as Record<string, unknown>).direct_members) && arrayOf(int)((v as Record<string, unknown>).direct_subgroups));
const streamFields = {
  stream_id: int, name: str, description: str, rendered_description: str, date_created: int, invite_only: bool, is_web_public: bool,
  stream_post_policy: int, history_public_to_subscribers: bool, first_message_id: nullable(int), message_retention_days: nullable(int),
  is_announcement_only: bool, 'can_remove_subscribers_group_id?': int, 'can_remove_subscribers_group?': groupValue,
  // Zulip 10 (levels 315-357), each from its level.
  'is_archived?': bool, 'is_recently_active?': bool, 'can_administer_channel_group?': groupValue, 'can_send_message_group?': groupValue,
  'can_add_subscribers_group?': groupValue, 'can_subscribe_group?': groupValue,
  // Feature level 254; events carry it at every level (their format never follows the level).
  creator_id: nullable(int),
};
const stream = shape(streamFields);
const subscription = shape({
  ...streamFields, color: str, is_muted: bool, in_home_view: bool, pin_to_top: bool, desktop_notifications: nullable(bool),
  audible_notifications: nullable(bool), push_notifications: nullable(bool), email_notifications: nullable(bool),
  wildcard_mentions_notify: nullable(bool), role: int, email_address: str, stream_weekly_traffic: nullable(int), 'subscribers?': arrayOf(int),
});
const pmUser = shape({ id: int, email: str, full_name: str, is_mirror_dummy: bool });
const message = shape({
  id: int, type: str, sender_id: int, sender_email: str, sender_full_name: str, sender_realm_str: str, avatar_url: nullable(str),
  client: str, content: str, content_type: str, display_recipient: (v) => str(v) || arrayOf(pmUser)(v), recipient_id: int,
  subject: str, topic_links: arrayOf(obj), timestamp: int, is_me_message: bool, reactions: arrayOf(obj), submessages: arrayOf(any),
  'stream_id?': int, 'last_edit_timestamp?': int, 'last_moved_timestamp?': int, 'edit_history?': arrayOf(obj),
});
const clientPresence = shape({ client: str, status: str, timestamp: int, pushable: bool });
const oneOf = (...values: string[]): Check => (v) => typeof v === 'string' && values.includes(v);
const typingUser = shape({ user_id: int, email: str });
const typingFields = { type: str, id: int, op: oneOf('start', 'stop'), sender: typingUser };
const reactionFields = {
  type: str, id: int, op: str, message_id: int, emoji_name: str, emoji_code: str,
  reaction_type: oneOf('unicode_emoji', 'realm_emoji', 'service_extra_emoji'), user_id: int, 'user?': shape({ user_id: int, email: str, full_name: str }),
};

export const EVENT_SCHEMAS: Record<string, Record<string, Check>> = {
  message: { type: str, id: int, message, flags: arrayOf(str), 'local_message_id?': str },
  'realm_user:add': { type: str, op: str, id: int, person: user },
  'realm_user:update': { type: str, op: str, id: int, person: (v) => obj(v) && int((v as { user_id: unknown }).user_id) },
  'realm_user:remove': { type: str, op: str, id: int, person: shape({ user_id: int, full_name: str }) },
  'realm_bot:add': {
    type: str, op: str, id: int,
    bot: shape({ user_id: int, full_name: str, api_key: str, avatar_url: str, email: str, bot_type: int, default_sending_stream: nullable(str),
      default_events_register_stream: nullable(str), default_all_public_streams: bool, is_active: bool, owner_id: int, services: arrayOf(obj) }),
  },
  'realm_bot:update': { type: str, op: str, id: int, bot: (v) => obj(v) && int((v as { user_id: unknown }).user_id) },
  'realm_bot:remove': { type: str, op: str, id: int, bot: shape({ user_id: int, full_name: str }) },
  'realm_bot:delete': { type: str, op: str, id: int, bot: shape({ user_id: int }) },
  'subscription:add': { type: str, op: str, id: int, subscriptions: arrayOf(subscription) },
  'subscription:remove': { type: str, op: str, id: int, subscriptions: arrayOf(shape({ stream_id: int, name: str })) },
  'subscription:update': { type: str, op: str, id: int, stream_id: int, property: str, value: any },
  'subscription:peer_add': { type: str, op: str, id: int, stream_ids: arrayOf(int), user_ids: arrayOf(int) },
  'subscription:peer_remove': { type: str, op: str, id: int, stream_ids: arrayOf(int), user_ids: arrayOf(int) },
  'stream:create': { type: str, op: str, id: int, streams: arrayOf(stream) },
  'stream:delete': { type: str, op: str, id: int, streams: arrayOf(stream), 'stream_ids?': arrayOf(int) },
  'stream:update': {
    type: str, op: str, id: int, stream_id: int, name: str, property: str, value: any, 'rendered_description?': str,
    'history_public_to_subscribers?': bool, 'is_web_public?': bool,
  },
  default_streams: { type: str, id: int, default_streams: (v) => arrayOf(stream)(v) || arrayOf(int)(v) },
  muted_topics: { type: str, id: int, muted_topics: arrayOf(arrayOf(any)) },
  user_topic: { type: str, id: int, stream_id: int, topic_name: str, last_updated: int, visibility_policy: (v) => [0, 1, 2, 3].includes(v as number) },
  alert_words: { type: str, id: int, alert_words: arrayOf(str) },
  presence: { type: str, id: int, user_id: int, email: str, server_timestamp: int, presence: (v) => obj(v) && Object.values(v as object).every(clientPresence) },
  'user_settings:update': { type: str, op: str, id: int, property: str, value: any },
  update_display_settings: { type: str, id: int, user: str, setting_name: str, setting: any, 'language_name?': str },
  update_global_notifications: { type: str, id: int, user: str, notification_name: str, setting: any },
  update_message: {
    type: str, id: int, user_id: nullable(int), edit_timestamp: int, message_id: int, message_ids: arrayOf(int), rendering_only: bool,
    flags: arrayOf(str), 'stream_name?': str, 'stream_id?': int, 'orig_content?': str, 'orig_rendered_content?': str,
    'prev_rendered_content_version?': int, 'content?': str, 'rendered_content?': str, 'is_me_message?': bool,
    'propagate_mode?': oneOf('change_one', 'change_later', 'change_all'), 'orig_subject?': str, 'subject?': str,
    'topic_links?': arrayOf(obj), 'new_stream_id?': int,
  },
  delete_message: {
    type: str, id: int, message_type: str, 'message_ids?': arrayOf(int), 'message_id?': int, 'stream_id?': int, 'topic?': str,
    'sender_id?': int, 'recipient_id?': int,
  },
  restart: {
    type: str, id: int, server_generation: int, zulip_version: str, zulip_feature_level: int, zulip_merge_base: str,
    service_feature_level: int, service_merge_base: str,
  },
  web_reload_client: { type: str, id: int, immediate: bool },
  heartbeat: { type: str, id: int },
  // Keyed by message_type (see schemaKey): the two kinds differ in shape, start and stop do not.
  'typing:private': { ...typingFields, message_type: oneOf('private'), recipients: arrayOf(typingUser) },
  'typing:stream': { ...typingFields, message_type: oneOf('stream'), stream_id: int, topic: str },
  // Level 351: typing while editing a message; the recipient names the conversation.
  typing_edit_message: {
    type: str, id: int, op: oneOf('start', 'stop'), sender_id: int, message_id: int,
    recipient: (v) => shape({ type: oneOf('channel'), channel_id: int, topic: str })(v) || shape({ type: oneOf('direct'), user_ids: arrayOf(int) })(v),
  },
  'reaction:add': reactionFields,
  'reaction:remove': reactionFields,
  user_status: {
    type: str, id: int, user_id: int, 'away?': bool, 'status_text?': str, 'emoji_name?': str, 'emoji_code?': str,
    'reaction_type?': oneOf('unicode_emoji', 'realm_emoji', 'service_extra_emoji'),
  },
  muted_users: { type: str, id: int, muted_users: arrayOf(shape({ id: int, timestamp: int })) },
  // url_template for queues with the linkifier_url_template capability (level 176), url_format for level-122 ones.
  realm_linkifiers: {
    type: str, id: int,
    realm_linkifiers: arrayOf((v) => shape({ pattern: str, url_format: str, id: int })(v) || shape({ pattern: str, url_template: str, id: int })(v)),
  },
  // url_template from level 196, url_prefix before (the server's level).
  realm_playgrounds: {
    type: str, id: int,
    realm_playgrounds: arrayOf((v) => shape({ id: int, name: str, pygments_language: str, url_template: str })(v)
      || shape({ id: int, name: str, pygments_language: str, url_prefix: str })(v)),
  },
  onboarding_steps: { type: str, id: int, onboarding_steps: arrayOf(shape({ type: str, name: str })) },
  realm_filters: { type: str, id: int, realm_filters: arrayOf((v) => Array.isArray(v) && v.length === 3 && str(v[0]) && str(v[1]) && int(v[2])) },
};

const flagsFields = { type: str, id: int, operation: str, flag: str, messages: arrayOf(int), all: bool };
const unreadDetails = (v: unknown) => obj(v) && Object.values(v as object).every((d) =>
  shape({ type: oneOf('stream'), stream_id: int, topic: str, unmuted_stream_msg: bool, 'mentioned?': bool })(d)
  || shape({ type: oneOf('private'), user_ids: arrayOf(int), 'mentioned?': bool })(d));
EVENT_SCHEMAS['update_message_flags:add'] = { ...flagsFields, op: oneOf('add') };
EVENT_SCHEMAS['update_message_flags:remove'] = { ...flagsFields, op: oneOf('remove'), 'message_details?': unreadDetails };

const draft = shape({ id: int, type: oneOf('', 'stream', 'private'), to: arrayOf(int), topic: str, content: str, timestamp: int });
EVENT_SCHEMAS['drafts:add'] = { type: str, op: str, id: int, drafts: arrayOf(draft) };
EVENT_SCHEMAS['drafts:update'] = { type: str, op: str, id: int, draft };
EVENT_SCHEMAS['drafts:remove'] = { type: str, op: str, id: int, draft_id: int };

const scheduledCommon = { scheduled_message_id: int, content: str, rendered_content: str, scheduled_delivery_timestamp: int, failed: bool };
const scheduledMessage = (v: unknown) => shape({ ...scheduledCommon, type: oneOf('stream'), to: int, topic: str })(v)
  || shape({ ...scheduledCommon, type: oneOf('private'), to: arrayOf(int) })(v);
EVENT_SCHEMAS['scheduled_messages:add'] = { type: str, op: str, id: int, scheduled_messages: arrayOf(scheduledMessage) };
EVENT_SCHEMAS['scheduled_messages:update'] = { type: str, op: str, id: int, scheduled_message: scheduledMessage };
EVENT_SCHEMAS['scheduled_messages:remove'] = { type: str, op: str, id: int, scheduled_message_id: int };

const savedSnippet = shape({ id: int, title: str, content: str, date_created: int });
EVENT_SCHEMAS['saved_snippets:add'] = { type: str, op: str, id: int, saved_snippet: savedSnippet };
EVENT_SCHEMAS['saved_snippets:update'] = { type: str, op: str, id: int, saved_snippet: savedSnippet };
EVENT_SCHEMAS['saved_snippets:remove'] = { type: str, op: str, id: int, saved_snippet_id: int };

const groupSettingValue: Check = (v) => int(v) || shape({ direct_members: arrayOf(int), direct_subgroups: arrayOf(int) })(v);
const userGroup = shape({ id: int, name: str, description: str, members: arrayOf(int), direct_subgroup_ids: arrayOf(int), is_system_group: bool, 'can_mention_group_id?': groupSettingValue, 'can_mention_group?': groupSettingValue,
  'can_manage_group?': groupSettingValue, 'can_join_group?': groupSettingValue, 'can_add_members_group?': groupSettingValue,
  'can_leave_group?': groupSettingValue, 'can_remove_members_group?': groupSettingValue,
  'creator_id?': nullable(int), 'date_created?': nullable(int), 'deactivated?': bool });
const groupMembers = { type: str, op: str, id: int, group_id: int, user_ids: arrayOf(int) };
EVENT_SCHEMAS['user_group:add'] = { type: str, op: str, id: int, group: userGroup };
EVENT_SCHEMAS['user_group:update'] = { type: str, op: str, id: int, group_id: int, data: shape({ 'name?': str, 'description?': str, 'can_mention_group_id?': groupSettingValue, 'can_mention_group?': groupSettingValue,
  'can_manage_group?': groupSettingValue, 'can_join_group?': groupSettingValue, 'can_add_members_group?': groupSettingValue,
  'can_leave_group?': groupSettingValue, 'can_remove_members_group?': groupSettingValue, 'deactivated?': bool }) };
EVENT_SCHEMAS['user_group:add_members'] = groupMembers;
EVENT_SCHEMAS['user_group:remove_members'] = groupMembers;
EVENT_SCHEMAS['user_group:remove'] = { type: str, op: str, id: int, group_id: int };
EVENT_SCHEMAS['user_group:add_subgroups'] = { type: str, op: str, id: int, group_id: int, direct_subgroup_ids: arrayOf(int) };
EVENT_SCHEMAS['user_group:remove_subgroups'] = { type: str, op: str, id: int, group_id: int, direct_subgroup_ids: arrayOf(int) };
const profileField = shape({ id: int, name: str, type: int, hint: str, field_data: str, order: int, 'display_in_profile_summary?': (v) => v === true, 'required?': bool, 'editable_by_user?': bool });
EVENT_SCHEMAS.invites_changed = { type: str, id: int };
EVENT_SCHEMAS.custom_profile_fields = { type: str, id: int, fields: arrayOf(profileField) };
EVENT_SCHEMAS['realm:update'] = { type: str, op: str, id: int, property: str, value: any };
EVENT_SCHEMAS['realm:update_dict'] = { type: str, op: str, id: int, property: str, data: obj };
EVENT_SCHEMAS['realm_user_settings_defaults:update'] = { type: str, op: str, id: int, property: str, value: any };
const attachment = shape({ id: int, name: str, path_id: str, size: int, create_time: int, messages: arrayOf(shape({ id: int, date_sent: int })) });
EVENT_SCHEMAS['attachment:add'] = { type: str, op: str, id: int, attachment, upload_space_used: int };
EVENT_SCHEMAS['attachment:update'] = { type: str, op: str, id: int, attachment, upload_space_used: int };
EVENT_SCHEMAS['attachment:remove'] = { type: str, op: str, id: int, attachment: shape({ id: int }), upload_space_used: int };
const realmEmoji = shape({ id: str, name: str, source_url: str, still_url: nullable(str), deactivated: bool, author_id: nullable(int) });
EVENT_SCHEMAS['realm_emoji:update'] = { type: str, op: str, id: int, realm_emoji: (v) => obj(v) && Object.values(v as object).every(realmEmoji) };

function shapeErrors(schema: Record<string, Check>, v: Record<string, unknown>, where: string): string[] {
  const errors: string[] = [];
  const known = new Set<string>();
  for (const [rawKey, check] of Object.entries(schema)) {
    const optional = rawKey.endsWith('?');
    const key = optional ? rawKey.slice(0, -1) : rawKey;
    known.add(key);
    if (!(key in v)) {
      if (!optional) errors.push(`${where}${key}: missing`);
    } else if (!check(v[key])) {
      errors.push(`${where}${key}: unexpected value ${JSON.stringify(v[key])?.slice(0, 200)}`);
    }
  }
  for (const key of Object.keys(v)) if (!known.has(key)) errors.push(`${where}${key}: unknown key`);
  return errors;
}

export const schemaKey = (e: { type: string; op?: unknown; message_type?: unknown }): string => {
  if (e.type === 'typing') return `typing:${String(e.message_type)}`;
  return typeof e.op === 'string' && `${e.type}:${e.op}` in EVENT_SCHEMAS ? `${e.type}:${e.op}` : e.type;
};

/** Problems with an event as delivered; empty when it has exactly its schema's shape. */
export function validateEvent(e: Record<string, unknown> & { type: string }): string[] {
  const schema = EVENT_SCHEMAS[schemaKey(e)];
  if (!schema) return [`no schema for ${schemaKey(e)}`];
  return shapeErrors(schema, e, `${schemaKey(e)}.`);
}
