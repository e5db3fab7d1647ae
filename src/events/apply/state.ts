/**
 * The part of register's answer that events keep current: what applyEvent reads and
 * writes, typed by the presenters' wire objects. Every field is present only when its
 * fetch type was asked for (src/reads/register/index.ts); the rest of the answer (and the
 * organization settings, named `realm_<property>`) is reached by name.
 */
import type { WireRealmPlayground } from '../../presenters/realm-playground.js';
import type {
  WireBot, WireClientPresence, WireModernPresence, WireNeverSubscribedStream, WireStream, WireSubscription, WireUser, WireUserStatus,
  WireLinkifier,
} from '../../schemas/wire.js';
import type { WireDraft } from '../../presenters/draft.js';
import type { WireScheduledMessage } from '../../presenters/scheduled-message.js';
import type { WireSavedSnippet } from '../../presenters/saved-snippet.js';
import type { WireUserGroup } from '../../presenters/user-group.js';
import type { WireProfileField } from '../../presenters/profile-field.js';
import type { WireRealmEmoji } from '../../presenters/realm-emoji.js';
import type { MutedTopic } from '../kinds/stream.js';
import type { UnreadMsgs } from './unread.js';

/** One user's entry of register's presences: by client, plus `aggregated`. */
export type PresenceEntry = Record<string, Pick<WireClientPresence, 'client' | 'status' | 'timestamp'> & { pushable?: boolean }>;
/** One user's entry in the modern format (slim_presence from feature level 178). */
export type ModernPresenceEntry = WireModernPresence;

export type RegisterState = {
  /** The level the queue was registered at: what shape its answers have. */
  zulip_feature_level?: number;
  max_message_id?: number;
  unread_msgs?: UnreadMsgs;
  starred_messages?: number[];
  recent_private_conversations?: Array<{ max_message_id: number; user_ids: number[] }>;
  realm_users?: WireUser[];
  realm_non_active_users?: WireUser[];
  cross_realm_bots?: WireUser[];
  realm_bots?: WireBot[];
  user_status?: Record<string, WireUserStatus>;
  presences?: Record<string, PresenceEntry | ModernPresenceEntry>;
  subscriptions?: WireSubscription[];
  unsubscribed?: WireSubscription[];
  never_subscribed?: WireNeverSubscribedStream[];
  streams?: WireStream[];
  /** Stream objects; their ids from level 330. */
  realm_default_streams?: WireStream[] | number[];
  muted_topics?: MutedTopic[];
  user_topics?: Array<{ stream_id: number; topic_name: string; last_updated: number; visibility_policy: number }>;
  alert_words?: string[];
  muted_users?: Array<{ id: number; timestamp: number }>;
  drafts?: WireDraft[];
  scheduled_messages?: WireScheduledMessage[];
  saved_snippets?: WireSavedSnippet[];
  realm_user_groups?: WireUserGroup[];
  custom_profile_fields?: WireProfileField[];
  user_settings?: Record<string, unknown>;
  realm_user_settings_defaults?: Record<string, unknown>;
  realm_linkifiers?: WireLinkifier[];
  realm_playgrounds?: WireRealmPlayground[];
  onboarding_steps?: Array<{ type: string; name: string }>;
  realm_filters?: Array<[string, string, number]>;
  realm_emoji?: Record<string, WireRealmEmoji>;
  [key: string]: unknown;
};

/** An event that replaces one part of the state whole sets it, if the client asked for that part. */
export function replacePart<K extends keyof RegisterState>(state: RegisterState, key: K, value: RegisterState[K]): void {
  if (key in state) state[key] = value;
}

export const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
