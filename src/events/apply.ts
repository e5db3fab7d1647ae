/**
 * Applies events to a register state the way a client does: the one reducer, shared by the
 * event guard tests (register, act, apply the events, register again: the two states must
 * be equal) and the web app (web/src/store.ts). Each family's rules are in ./apply/.
 */
import type { ClientEvent } from './types.js';
import { replacePart, type RegisterState } from './apply/state.js';
import { recountUnread } from './apply/unread.js';
import { applyDeleteMessage, applyMessage, applyMessageFlags, applyUpdateMessage } from './apply/messages.js';
import { applyPresence, applyProfileFields, applyRealmBot, applyRealmUser, applyUserGroup, applyUserStatus } from './apply/users.js';
import { applyStream, applySubscription, applyUserTopic, isIdList } from './apply/streams.js';
import type { WireStream } from '../schemas/wire.js';
import { applySavedSnippets, applyScheduledMessages } from './apply/scheduled.js';
import { forLevel } from '../presenters/stream.js';
import { applyDrafts, applyLegacySetting, applyRealm, applyUserSettings, applyUserSettingsDefaults } from './apply/settings.js';

export type { RegisterState } from './apply/state.js';

/** Events that file unread messages or change what is muted: register's unread `count` is derived again after them. */
const RECOUNT: ReadonlySet<string> = new Set(['message', 'update_message', 'delete_message', 'update_message_flags', 'subscription', 'stream', 'muted_topics', 'user_topic']);

export function applyEvent(state: RegisterState, e: ClientEvent, viewerId: number): void {
  applyOne(state, e, viewerId);
  if (RECOUNT.has(e.type)) recountUnread(state);
}

function applyOne(state: RegisterState, e: ClientEvent, viewerId: number): void {
  switch (e.type) {
    case 'message': return applyMessage(state, e, viewerId);
    case 'update_message': return applyUpdateMessage(state, e);
    case 'delete_message': return applyDeleteMessage(state, e);
    case 'update_message_flags': return applyMessageFlags(state, e, viewerId);
    case 'realm_user': return applyRealmUser(state, e, viewerId);
    case 'realm_bot': return applyRealmBot(state, e);
    case 'presence': return applyPresence(state, e);
    case 'user_status': return applyUserStatus(state, e);
    case 'user_group': return applyUserGroup(state, e);
    case 'custom_profile_fields': return applyProfileFields(state, e);
    case 'muted_users': return replacePart(state, 'muted_users', e.muted_users);
    case 'subscription': return applySubscription(state, e, viewerId);
    case 'stream': return applyStream(state, e);
    case 'default_streams': return replacePart(state, 'realm_default_streams', isIdList(e.default_streams) ? e.default_streams : (e.default_streams as WireStream[]).map((s) => forLevel(s, state.zulip_feature_level ?? 0)));
    case 'muted_topics': return replacePart(state, 'muted_topics', e.muted_topics);
    case 'user_topic': return applyUserTopic(state, e);
    case 'alert_words': return replacePart(state, 'alert_words', e.alert_words);
    case 'user_settings': return applyUserSettings(state, e);
    case 'update_display_settings':
    case 'update_global_notifications': return applyLegacySetting(state, e);
    case 'realm': return applyRealm(state, e);
    case 'realm_user_settings_defaults': return applyUserSettingsDefaults(state, e);
    case 'realm_linkifiers': return replacePart(state, 'realm_linkifiers', e.realm_linkifiers);
    case 'realm_playgrounds': return replacePart(state, 'realm_playgrounds', e.realm_playgrounds);
    case 'realm_filters': return replacePart(state, 'realm_filters', e.realm_filters);
    case 'realm_emoji': return replacePart(state, 'realm_emoji', e.realm_emoji);
    case 'onboarding_steps': return replacePart(state, 'onboarding_steps', e.onboarding_steps);
    case 'drafts': return applyDrafts(state, e);
    case 'scheduled_messages': return applyScheduledMessages(state, e);
    case 'saved_snippets': return applySavedSnippets(state, e);
    // No register state holds these: typing is transient (clients show and expire it), reactions
    // live on messages, clients refetch GET /invites and GET /attachments (Zulip 5's register
    // holds neither), and the queues' own events change nothing.
    case 'typing':
    case 'typing_edit_message':
    case 'reaction':
    case 'invites_changed':
    case 'attachment':
    case 'restart':
    case 'web_reload_client':
    case 'heartbeat':
      return;
    default:
      return unhandled(e);
  }
}

/**
 * A type added to ClientEvent without a case above fails to compile here. At run time an
 * unknown type (from a newer server) changes nothing, as Zulip's clients ignore them.
 */
function unhandled(_e: never): void {}
