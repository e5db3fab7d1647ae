import { realmGroupSettingsState } from '../../access/realm-group-setting.js';
import { EMPTY_TOPIC_DISPLAY_NAME, EMPTY_TOPIC_LEVEL, topicForClient } from '../../lib/empty-topic.js';
import type { Q, RealmRow, UserRow } from '../../store/rows.js';
import type { Config } from '../../config.js';
import type { Capabilities } from '../../events/queue.js';
import { isAdminRole } from '../../lib/roles.js';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, legacySettings, realmUserSettingsDefaults, settingsAtLevel, userSettings } from '../../lib/user-settings.js';
import { deliveryEmailOpts, presentUser } from '../../presenters/user.js';
import { systemBotsOf } from '../system-bots.js';
import { presentBotsOf } from '../bots.js';
import { DEFAULT_STREAM_IDS_LEVEL, forLevel, presentStream, fillNotificationDefaults } from '../../presenters/stream.js';
import { presencesAnswer } from '../presence.js';
import { serializedValue } from '../../presenters/shared-json.js';
import { streamJson } from '../../presenters/stream-json.js';
import { alertWordsOf } from '../alert-words.js';
import { botsVisibleTo, maxMessageIdOf, ownEntryFixed, realmUserLists } from '../users.js';
import { defaultStreams, streamsVisibleTo } from '../streams.js';
import { serializedSubscriptions, mutedTopicsOf, userTopicsOf } from '../subscriptions.js';
import { profileFieldTypes, ownStreamCreationState, ownUserState, realmState } from './realm.js';
import { realmPushState } from './realm-push.js';
import { recentPrivateConversations, starredMessageIds, unreadMsgs } from './messages.js';
import { registerDrafts } from '../drafts.js';
import { scheduledMessagesOf } from '../scheduled-messages.js';
import { savedSnippetsOf } from '../saved-snippets.js';
import { userStatusDict } from '../user-status.js';
import { mutedUsersOf } from '../muted-users.js';
import { registerUserGroups } from '../user-groups.js';
import { realmProfileFields } from '../profile-fields.js';
import { incomingWebhookBots } from '../../webhooks/index.js';
import { legacyRealmFilters, presentLinkifiers, realmLinkifiers } from '../linkifiers.js';
import { realmEmojiDict } from '../realm-emoji.js';
import { realmPlaygrounds } from '../../store/repos/realm-playgrounds.js';
import { presentRealmPlaygrounds } from '../../presenters/realm-playground.js';
import { PLAYGROUND_TEMPLATE_LEVEL } from '../../lib/playground-rules.js';

/**
 * register's initial state, by fetch type: each part is a read of its own (realm.ts,
 * messages.ts, the resource reads of src/reads/), assembled here as Zulip groups them.
 */
export interface StateOptions {
  clientGravatar: boolean;
  slimPresence: boolean;
  /** Days of presence history (feature level 288). */
  presenceHistoryLimitDays?: number;
  includeSubscribers: boolean;
  capabilities: Capabilities;
  /** No fetch_event_types nor event_types given: every type, as Zulip's `event_types is None`. */
  everyType?: boolean;
}

/** Every fetch type Parley has state for; register without fetch_event_types gets them all. */
export const FETCH_TYPES = [
  'realm', 'realm_user', 'realm_bot', 'subscription', 'stream', 'message', 'update_message_flags', 'starred_messages',
  'recent_private_conversations', 'presence', 'alert_words', 'muted_topics', 'user_topic', 'muted_users', 'default_streams',
  'realm_user_groups', 'custom_profile_fields', 'realm_emoji', 'realm_linkifiers', 'realm_filters', 'user_status',
  'drafts', 'user_settings', 'update_display_settings', 'update_global_notifications', 'realm_playgrounds',
  'default_stream_groups', 'realm_domains', 'video_calls', 'realm_user_settings_defaults', 'scheduled_messages',
  'saved_snippets', 'realm_incoming_webhook_bots',
];

/** The register response's state for the requested fetch types, grouped as Zulip groups it. */
export async function fetchInitialState(db: Q, config: Config, realm: RealmRow, user: UserRow, types: Set<string>, opts: StateOptions): Promise<Record<string, unknown>> {
  const want = (t: string) => types.has(t);
  const state: Record<string, unknown> = {};
  if (want('realm')) {
    Object.assign(state, realmState(config, realm, user), await realmGroupSettingsState(db, config.featureLevel, realm), await ownStreamCreationState(db, user, realm));
    Object.assign(state, await realmPushState(db, config, realm));
    // Level 334: what clients show for the empty topic (Zulip translates it; Parley has one language).
    if (config.featureLevel >= EMPTY_TOPIC_LEVEL) state.realm_empty_topic_display_name = EMPTY_TOPIC_DISPLAY_NAME;
  }
  if (want('realm_user')) {
    const email = deliveryEmailOpts(user, realm, config.featureLevel);
    const lists = await realmUserLists(db, realm, opts.clientGravatar, email, config.featureLevel);
    state.realm_users = email.emailViewer ? ownEntryFixed(lists.active, user) : lists.active;
    state.realm_non_active_users = lists.inactive;
    state.cross_realm_bots = (await systemBotsOf(db, realm.id)).map((b) => ({
      // From level 163 a bot's address is everyone's to see (bots' visibility is "everyone").
      ...presentUser(b, { clientGravatar: opts.clientGravatar, showDeliveryEmail: false, emailViewer: email.emailViewer, featureLevel: config.featureLevel }), is_system_bot: true,
    }));
    Object.assign(state, ownUserState(user, realm), await ownStreamCreationState(db, user, realm));
    // Level 341: realm_can_add_subscribers_group says it instead.
    if (config.featureLevel >= 341) delete state.can_subscribe_other_users;
    // Level 363: can_manage_billing_group says it instead.
    if (config.featureLevel >= 363) delete state.is_billing_admin;
  }
  if (want('realm_bot')) {
    state.realm_bots = await presentBotsOf(db, await botsVisibleTo(db, user, isAdminRole(user.role)));
  }
  if (want('subscription')) {
    const subs = await serializedSubscriptions(db, user, opts.includeSubscribers, config.featureLevel, opts.capabilities.archived_channels === true);
    if (!opts.capabilities.notification_settings_null) for (const s of subs.subscriptions) fillNotificationDefaults(s, user.settings);
    Object.assign(state, subs);
  }
  if (want('stream')) {
    const visible = await streamsVisibleTo(db, user, config.featureLevel, opts.capabilities.archived_channels === true);
    state.streams = serializedValue(`[${visible.map((s) => streamJson(s, config.featureLevel)).join(',')}]`);
  }
  if (want('message')) state.max_message_id = await maxMessageIdOf(db, user.id);
  // Level 334: a client without empty_topic_name sees the empty topic by its display name.
  const allowEmpty = opts.capabilities.empty_topic_name === true;
  if (want('update_message_flags') && want('message')) {
    const unread = await unreadMsgs(db, user);
    if (!allowEmpty) unread.streams = (unread.streams as Array<{ topic: string }>).map((e) => ({ ...e, topic: topicForClient(e.topic, false) }));
    state.unread_msgs = unread;
  }
  if (want('starred_messages')) {
    state.starred_messages = await starredMessageIds(db, user);
  }
  if (want('recent_private_conversations')) state.recent_private_conversations = await recentPrivateConversations(db, user);
  if (want('presence')) {
    const now = Date.now() / 1000;
    const level = config.featureLevel;
    const ask = { slim: opts.slimPresence, level, historyLimitDays: level >= 288 ? opts.presenceHistoryLimitDays : undefined };
    const answer = await presencesAnswer(db, realm, ask, Math.floor(now));
    state.presences = serializedValue(answer.json);
    state.server_timestamp = now;
    if (level >= 263) state.presence_last_update_id = answer.lastUpdateId;
  }
  if (want('alert_words')) state.alert_words = await alertWordsOf(db, user.id);
  // user_topics is feature level 134's; below it, only a client naming the type gets it.
  const userTopicsWanted = want('user_topic') && (config.featureLevel >= 134 || !opts.everyType);
  if (userTopicsWanted) {
    const topics = await userTopicsOf(db, user.id);
    state.user_topics = allowEmpty ? topics : topics.map((t) => ({ ...t, topic_name: topicForClient(t.topic_name, false) }));
  }
  // As Zulip: a client naming user_topic gets no legacy muted_topics (it asks for both only
  // to get muted_topics from servers without user_topics); one asking for everything gets both.
  if (want('muted_topics') && (opts.everyType || !want('user_topic'))) state.muted_topics = await mutedTopicsOf(db, user.id);
  if (want('muted_users')) state.muted_users = await mutedUsersOf(db, user.id);
  if (want('default_streams')) {
    const list = await defaultStreams(db, realm.id);
    // Level 330: ids only.
    state.realm_default_streams = config.featureLevel >= DEFAULT_STREAM_IDS_LEVEL ? list.map((s) => s.id) : list.map((s) => forLevel(presentStream(s, config.featureLevel), config.featureLevel));
  }
  if (want('default_stream_groups')) state.realm_default_stream_groups = [];
  if (want('realm_user_groups')) state.realm_user_groups = await registerUserGroups(db, realm.id, config.featureLevel, opts.capabilities.include_deactivated_groups === true);
  if (want('custom_profile_fields')) {
    state.custom_profile_fields = await realmProfileFields(db, realm.id, config.featureLevel);
    state.custom_profile_field_types = profileFieldTypes(config.featureLevel);
  }
  if (want('realm_user_settings_defaults')) state.realm_user_settings_defaults = realmUserSettingsDefaults(realm.settings, config.featureLevel);
  if (want('realm_emoji')) state.realm_emoji = await realmEmojiDict(db, realm.id);
  // From level 176 (capabilities() in src/http/handlers/events.ts): templates for clients that
  // read them, nothing for the others; realm_filters always empty.
  const { linkifier_url_template: templates, linkifiers_withheld: withheld } = opts.capabilities;
  if (want('realm_linkifiers')) state.realm_linkifiers = withheld ? [] : presentLinkifiers(await realmLinkifiers(db, realm.id), templates === true);
  if (want('realm_filters')) state.realm_filters = withheld || templates ? [] : legacyRealmFilters(await realmLinkifiers(db, realm.id));
  if (want('realm_playgrounds')) {
    state.realm_playgrounds = presentRealmPlaygrounds(await realmPlaygrounds.listByRealm(db, realm.id), config.featureLevel >= PLAYGROUND_TEMPLATE_LEVEL);
  }
  // Level 233: the one-time notices left to show; Parley's web app has none (Zulip with its tutorial off).
  if (want('onboarding_steps') && config.featureLevel >= 233) state.onboarding_steps = [];
  // Static (no events update it); shown from feature level 207, whose fields it has.
  if (want('realm_incoming_webhook_bots') && config.featureLevel >= 207) state.realm_incoming_webhook_bots = incomingWebhookBots(config.featureLevel);
  if (want('realm_domains')) state.realm_domains = [];
  if (want('user_status')) state.user_status = await userStatusDict(db, realm.id, config.featureLevel);
  // Whatever the setting: turning it off deletes the stored drafts (Zulip's note).
  if (want('saved_snippets') && config.featureLevel >= 297) state.saved_snippets = await savedSnippetsOf(db, user.id);
  if (want('drafts')) state.drafts = await registerDrafts(db, user.id);
  // Feature level 179; the endpoints and events exist at every level (new endpoints may).
  if (want('scheduled_messages') && config.featureLevel >= 179) state.scheduled_messages = await scheduledMessagesOf(db, user.id);
  if (want('video_calls')) state.has_zoom_token = false;
  // As Zulip: the settings object whenever it is asked for; the legacy top-level copy only
  // for the legacy types, and only to clients without user_settings_object.
  const settings = userSettings(user.settings);
  if (want('user_settings')) state.user_settings = { ...settingsAtLevel(settings, config.featureLevel), emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS };
  if (!opts.capabilities.user_settings_object) {
    if (want('update_display_settings')) Object.assign(state, legacySettings(settings, config.featureLevel), { emojiset_choices: EMOJISET_CHOICES });
    if (want('update_global_notifications')) Object.assign(state, legacySettings(settings, config.featureLevel), { available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS });
  }
  return state;
}

