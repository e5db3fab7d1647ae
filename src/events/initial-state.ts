import { OFFLINE_THRESHOLD_SECS } from '../presence/presence.js';
import type { Q, RealmRow, UserRow } from '../store/rows.js';
import type { Config } from '../config.js';
import type { Capabilities } from './queue.js';
import { realmSettings, REALM_SETTING_DEFAULTS } from '../lib/realm-settings.js';
import { realmUri } from '../lib/realm-host.js';
import { FLAG_BITS } from '../lib/message-flags.js';
import { presentUser, canSeeDeliveryEmail, avatarUrl } from '../presenters/user.js';
import { realmIconUrl } from '../presenters/realm.js';
import { gatherSubscriptions, streamsVisibleTo, defaultStreamsState, mutedTopicsState } from '../presenters/stream-state.js';
import { fillNotificationDefaults } from '../presenters/stream.js';
import { MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH } from '../actions/stream-create.js';
import { MAX_MESSAGE_BYTES, MAX_TOPIC_LENGTH } from '../actions/message-send.js';
import { listAlertWords } from '../actions/alert-words.js';
import { presencesForRealm } from '../presence/presence.js';
import { maxMessageIdFor } from '../lib/max-message-id.js';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, USER_SETTING_DEFAULTS, realmUserSettingsDefaults, userSettings } from '../lib/user-settings.js';
import { LONGPOLL_TIMEOUT_SECS } from './manager.js';
import { identityVersion } from '../store/versions.js';
import { shareSerialization } from '../presenters/shared-json.js';
import { SERVER_GENERATION } from '../lib/version.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

export interface StateOptions {
  clientGravatar: boolean;
  slimPresence: boolean;
  includeSubscribers: boolean;
  capabilities: Capabilities;
}

/** Every fetch type Parley has state for; register without fetch_event_types gets them all. */
export const FETCH_TYPES = [
  'realm', 'realm_user', 'realm_bot', 'subscription', 'stream', 'message', 'update_message_flags', 'starred_messages',
  'recent_private_conversations', 'presence', 'alert_words', 'muted_topics', 'muted_users', 'default_streams',
  'realm_user_groups', 'custom_profile_fields', 'realm_emoji', 'realm_linkifiers', 'realm_filters', 'user_status',
  'drafts', 'user_settings', 'update_display_settings', 'update_global_notifications', 'realm_playgrounds',
  'default_stream_groups', 'realm_domains', 'video_calls', 'realm_user_settings_defaults',
];

function realmState(config: Config, realm: RealmRow, user: UserRow): Record<string, unknown> {
  const s = realmSettings(realm.settings);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(REALM_SETTING_DEFAULTS)) out[`realm_${key}`] = s[key as keyof typeof s];
  Object.assign(out, {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_uri: realmUri(config, realm),
    realm_icon_url: realmIconUrl(realm),
    realm_date_created: realm.date_created,
    realm_authentication_methods: { password: true, dev: false, email: true, ldap: false, remoteuser: false, github: false, azuread: false, gitlab: false, apple: false, google: false, saml: false, 'openid connect': false },
    realm_available_video_chat_providers: { disabled: { name: 'None', id: 0 }, jitsi_meet: { name: 'Jitsi Meet', id: 1 } },
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: false,
    realm_default_external_accounts: {},
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_user_group_edit_policy: s.user_group_edit_policy,
    realm_message_retention_days: s.message_retention_days,
    realm_allow_message_editing: s.allow_message_editing,
    max_stream_name_length: MAX_STREAM_NAME_LENGTH,
    max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_message_length: MAX_MESSAGE_BYTES,
    server_generation: SERVER_GENERATION,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_web_public_streams_enabled: true,
    settings_send_digest_emails: false,
    event_queue_longpoll_timeout_seconds: LONGPOLL_TIMEOUT_SECS,
    // The timing protocol of the spec's Limits table. Zulip names them in the state from
    // later feature levels; clients that read them (the Flutter app) get the true values.
    server_typing_started_wait_period_milliseconds: 10_000,
    server_typing_stopped_wait_period_milliseconds: 5_000,
    server_typing_started_expiry_period_milliseconds: 15_000,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
    password_min_length: 6,
    password_min_guesses: 10000,
    upgrade_text_for_wide_organization_logo: '',
    zulip_plan_is_not_limited: true,
    giphy_api_key: '',
    development_environment: false,
    // Parley stores no uploads, so there is no file size a client may send.
    max_file_upload_size_mib: 0,
    max_avatar_file_size_mib: 0,
    max_icon_file_size_mib: 0,
    max_logo_file_size_mib: 0,
    realm_logo_source: 'D',
    realm_logo_url: '',
    realm_night_logo_source: 'D',
    realm_night_logo_url: '',
    realm_bot_domain: new URL(realmUri(config, realm)).hostname,
    jitsi_server_url: 'https://meet.jit.si',
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    ...ownUserState(user),
    avatar_version: user.avatar_version,
  });
  return out;
}

// Flag tests are written as literals: on SQLite they must match the partial indexes'
// conditions (migration 009), which are the only per-user way into user_message.
async function unreadMsgs(db: Q, user: UserRow): Promise<Record<string, unknown>> {
  const rows = await db.selectFrom('user_message').innerJoin('message', 'message.id', 'user_message.message_id')
    .select(['message.id', 'message.stream_id', 'message.topic', 'message.sender_id', 'message.recipient_id', 'user_message.flags'])
    .where('user_message.user_id', '=', user.id).where((eb) => eb(eb.parens(eb('user_message.flags', '&', sql.lit(FLAG_BITS.read))), '=', sql.lit(0)))
    .orderBy('message.id').limit(50_000).execute();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<number, number[]>();
  const mentions: number[] = [];
  const personal = new Map<number, number>();
  const recRows = await db.selectFrom('recipient').select(['id', 'type', 'type_id']).where('id', 'in', [0, ...new Set(rows.map((r) => r.recipient_id))]).execute();
  const recipients = new Map(recRows.map((r) => [r.id, r]));
  for (const r of recRows) if (r.type === 1) personal.set(r.id, r.type_id);
  const huddleRows = await db.selectFrom('huddle').select(['recipient_id', 'huddle_hash']).where('recipient_id', 'in', [0, ...recRows.filter((r) => r.type === 3).map((r) => r.id)]).execute();
  const huddleHash = new Map(huddleRows.map((h) => [h.recipient_id!, h.huddle_hash]));
  for (const r of rows) {
    if ((r.flags & (FLAG_BITS.mentioned | FLAG_BITS.wildcard_mentioned)) !== 0) mentions.push(r.id);
    if (r.stream_id !== null) {
      const key = `${r.stream_id}\u0000${r.topic}`;
      const e = streams.get(key) ?? { stream_id: r.stream_id, topic: r.topic, unread_message_ids: [] };
      e.unread_message_ids.push(r.id);
      streams.set(key, e);
    } else if (recipients.get(r.recipient_id)?.type === 3) {
      huddles.set(r.recipient_id, [...(huddles.get(r.recipient_id) ?? []), r.id]);
    } else {
      // The other person of a one-to-one conversation (yourself for notes to self).
      const other = r.sender_id === user.id ? personal.get(r.recipient_id)! : r.sender_id;
      pms.set(other, [...(pms.get(other) ?? []), r.id]);
    }
  }
  return {
    count: rows.length,
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()],
    huddles: [...huddles].map(([rid, ids]) => ({ user_ids_string: huddleHash.get(rid) ?? '', unread_message_ids: ids })),
    mentions,
    old_unreads_missing: rows.length >= 50_000,
  };
}

async function recentPrivateConversations(db: Q, user: UserRow): Promise<Array<{ max_message_id: number; user_ids: number[] }>> {
  const rows = await db.selectFrom('user_message').innerJoin('message', 'message.id', 'user_message.message_id')
    .select(['message.recipient_id', 'message.sender_id', (eb) => eb.fn.max('message.id').as('max_id')])
    .where('user_message.user_id', '=', user.id).where((eb) => eb(eb.parens(eb('user_message.flags', '&', sql.lit(FLAG_BITS.is_private))), '<>', sql.lit(0)))
    .groupBy(['message.recipient_id', 'message.sender_id']).execute();
  const recRows = await db.selectFrom('recipient').select(['id', 'type', 'type_id']).where('id', 'in', [0, ...new Set(rows.map((r) => r.recipient_id))]).execute();
  const recipients = new Map(recRows.map((r) => [r.id, r]));
  const hs = await db.selectFrom('huddle').select(['recipient_id', 'huddle_hash']).where('recipient_id', 'in', [0, ...recRows.filter((r) => r.type === 3).map((r) => r.id)]).execute();
  const hash = new Map(hs.map((h) => [h.recipient_id!, h.huddle_hash]));
  const convs = new Map<string, { max_message_id: number; user_ids: number[] }>();
  for (const r of rows) {
    const rec = recipients.get(r.recipient_id);
    let others: number[];
    if (rec?.type === 3) others = (hash.get(r.recipient_id) ?? '').split(',').map(Number).filter((id) => id !== user.id);
    else others = [r.sender_id === user.id ? rec!.type_id : r.sender_id].filter((id) => id !== user.id);
    const key = others.join(',');
    const prev = convs.get(key);
    const maxId = Number(r.max_id);
    if (!prev || prev.max_message_id < maxId) convs.set(key, { max_message_id: maxId, user_ids: others });
  }
  return [...convs.values()].sort((a, b) => b.max_message_id - a.max_message_id).slice(0, 1000);
}

interface UserLists { version: number; active: Array<Record<string, unknown>>; inactive: Array<Record<string, unknown>> }
const userListCache = new WeakMap<Kysely<DB>, Map<string, UserLists>>();

/**
 * Every register of an organization presents the same user list (one of four variants);
 * it was most of register's time at 1,000 users. Kept until any user or realm row changes
 * (identityVersion). The cached objects are shared, so nothing may modify them.
 */
async function realmUserLists(db: Kysely<DB>, realm: RealmRow, clientGravatar: boolean, showDeliveryEmail: boolean): Promise<UserLists> {
  let cache = userListCache.get(db);
  if (!cache) userListCache.set(db, (cache = new Map()));
  const key = `${realm.id}:${clientGravatar}:${showDeliveryEmail}`;
  const hit = cache.get(key);
  if (hit && hit.version === identityVersion()) return hit;
  const version = identityVersion();
  const all = await db.selectFrom('users').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  const presentOpts = { clientGravatar, showDeliveryEmail, profileData: {} };
  const lists = {
    version,
    active: shareSerialization(all.filter((u) => u.is_active === 1).map((u) => presentUser(u, presentOpts))),
    inactive: shareSerialization(all.filter((u) => u.is_active !== 1).map((u) => presentUser(u, presentOpts))),
  };
  if (cache.size > 1000) cache.clear();
  cache.set(key, lists);
  return lists;
}

const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  pg13: { name: 'Allow GIFs rated PG13 (Parental guidance - under 13)', id: 4 },
};

/** Zulip's custom profile field types at this feature level. */
const CUSTOM_PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: 'Short text' },
  LONG_TEXT: { id: 2, name: 'Long text' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Person picker' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
};

/** Who the registering user is: sent with both `realm` and `realm_user`, as Zulip does. */
function ownUserState(user: UserRow): Record<string, unknown> {
  return {
    is_admin: user.role <= 200,
    is_owner: user.role === 100,
    is_moderator: user.role === 300,
    is_guest: user.role === 600,
    is_billing_admin: user.is_billing_admin === 1,
    can_create_streams: user.role !== 600,
    can_subscribe_other_users: user.role !== 600,
    can_invite_others_to_realm: user.role <= 400,
    user_id: user.id,
    email: user.email,
    delivery_email: user.delivery_email,
    full_name: user.full_name,
    avatar_source: user.avatar_source,
    avatar_url: avatarUrl(user, false),
    avatar_url_medium: avatarUrl(user, false),
  };
}

/** The register response's state for the requested fetch types, grouped as Zulip groups it. */
export async function fetchInitialState(db: Kysely<DB>, config: Config, realm: RealmRow, user: UserRow, types: Set<string>, opts: StateOptions): Promise<Record<string, unknown>> {
  const want = (t: string) => types.has(t);
  const state: Record<string, unknown> = {};
  if (want('realm')) Object.assign(state, realmState(config, realm, user));
  if (want('realm_user')) {
    const lists = await realmUserLists(db, realm, opts.clientGravatar, canSeeDeliveryEmail(user, realm));
    state.realm_users = lists.active;
    state.realm_non_active_users = lists.inactive;
    state.cross_realm_bots = [];
    Object.assign(state, ownUserState(user));
  }
  if (want('realm_bot')) {
    const bots = await db.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('is_bot', '=', 1)
      .where((eb) => (user.role <= 200 ? eb.lit(true) : eb('bot_owner_id', '=', user.id))).orderBy('id').execute();
    state.realm_bots = bots.map((b) => ({
      user_id: b.id, full_name: b.full_name, api_key: b.api_key, avatar_url: avatarUrl(b, false), email: b.email, bot_type: b.bot_type,
      default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false,
      is_active: b.is_active === 1, owner_id: b.bot_owner_id, services: [],
    }));
  }
  if (want('subscription')) {
    const subs = await gatherSubscriptions(db, user, opts.includeSubscribers);
    if (!opts.capabilities.notification_settings_null) for (const s of subs.subscriptions) fillNotificationDefaults(s, user.settings);
    Object.assign(state, subs);
  }
  if (want('stream')) state.streams = await streamsVisibleTo(db, user);
  if (want('message')) state.max_message_id = await maxMessageIdFor(db, user.id);
  if (want('update_message_flags') && want('message')) state.unread_msgs = await unreadMsgs(db, user);
  if (want('starred_messages')) {
    state.starred_messages = (await db.selectFrom('user_message').select('message_id').where('user_id', '=', user.id)
      .where((eb) => eb(eb.parens(eb('flags', '&', sql.lit(FLAG_BITS.starred))), '<>', sql.lit(0))).orderBy('message_id').execute()).map((r) => r.message_id);
  }
  if (want('recent_private_conversations')) state.recent_private_conversations = await recentPrivateConversations(db, user);
  if (want('presence')) {
    const now = Date.now() / 1000;
    state.presences = await presencesForRealm(db, realm, opts.slimPresence, Math.floor(now));
    state.server_timestamp = now;
  }
  if (want('alert_words')) state.alert_words = await listAlertWords(db, user.id);
  if (want('muted_topics')) state.muted_topics = await mutedTopicsState(db, user.id);
  if (want('muted_users')) state.muted_users = [];
  if (want('default_streams')) state.realm_default_streams = await defaultStreamsState(db, realm.id);
  if (want('default_stream_groups')) state.realm_default_stream_groups = [];
  if (want('realm_user_groups')) state.realm_user_groups = [];
  if (want('custom_profile_fields')) {
    state.custom_profile_fields = [];
    state.custom_profile_field_types = CUSTOM_PROFILE_FIELD_TYPES;
  }
  if (want('realm_user_settings_defaults')) state.realm_user_settings_defaults = realmUserSettingsDefaults();
  if (want('realm_emoji')) state.realm_emoji = {};
  if (want('realm_linkifiers')) state.realm_linkifiers = [];
  if (want('realm_filters')) state.realm_filters = [];
  if (want('realm_playgrounds')) state.realm_playgrounds = [];
  if (want('realm_domains')) state.realm_domains = [];
  if (want('user_status')) state.user_status = {};
  if (want('drafts')) state.drafts = [];
  if (want('video_calls')) state.has_zoom_token = false;
  // As Zulip: the settings object whenever it is asked for; the legacy top-level copy only
  // for the legacy types, and only to clients without user_settings_object.
  const settings = userSettings(user.settings);
  if (want('user_settings')) state.user_settings = { ...settings, emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS };
  if (!opts.capabilities.user_settings_object) {
    if (want('update_display_settings')) Object.assign(state, settings, { emojiset_choices: EMOJISET_CHOICES });
    if (want('update_global_notifications')) Object.assign(state, settings, { available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS });
  }
  return state;
}

export { USER_SETTING_DEFAULTS };
