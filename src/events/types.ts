/**
 * Every event Parley publishes, by its wire `type` (and `op`): the one vocabulary of the
 * event system. publish() (publish.ts) takes only these; the event guard test checks that
 * each kind listed in EVENT_KINDS went through it with its schema (schemas.ts). `restart`,
 * `web_reload_client` and `heartbeat` are made by the queues themselves and never published.
 */
import type {
  ClientMessageEvent, ClientUpdateMessageEvent, DeleteMessageEvent, LegacyDeleteMessageEvent, MessageEvent, ReactionAddEvent,
  ReactionRemoveEvent, TypingEditMessageEvent, TypingPrivateEvent, TypingStreamEvent, UpdateMessageEvent, UpdateMessageFlagsAddEvent, UpdateMessageFlagsRemoveEvent,
} from './kinds/message.js';
import type {
  CustomProfileFieldsEvent, MutedUsersEvent, PresenceEvent, RealmBotAddEvent, RealmBotDeleteEvent, RealmBotRemoveEvent, RealmBotUpdateEvent,
  RealmUserAddEvent, RealmUserRemoveEvent, RealmUserUpdateEvent, UserGroupAddEvent, UserGroupAddMembersEvent, UserGroupRemoveEvent,
  UserGroupRemoveMembersEvent, UserGroupSubgroupsEvent, UserGroupUpdateEvent, UserStatusEvent,
} from './kinds/user.js';
import type {
  DefaultStreamsEvent, MutedTopicsEvent, StreamCreateEvent, StreamDeleteEvent, StreamUpdateEvent, SubscriptionAddEvent,
  SubscriptionPeerAddEvent, SubscriptionPeerRemoveEvent, SubscriptionRemoveEvent, SubscriptionUpdateEvent,
} from './kinds/stream.js';
import type {
  AlertWordsEvent, AttachmentAddEvent, AttachmentRemoveEvent, AttachmentUpdateEvent, DraftsAddEvent, DraftsRemoveEvent, DraftsUpdateEvent,
  ClientRealmLinkifiersEvent, InvitesChangedEvent, OnboardingStepsEvent, RealmEmojiUpdateEvent, RealmFiltersEvent, RealmLinkifiersEvent, RealmPlaygroundsEvent, RealmUpdateEvent, RealmUpdateDictEvent,
  RealmUserSettingsDefaultsUpdateEvent, UpdateDisplaySettingsEvent, UpdateGlobalNotificationsEvent, UserSettingsUpdateEvent,
} from './kinds/settings.js';
import type { UserTopicEvent } from './kinds/user-topic.js';
import type { SavedSnippetsAddEvent, SavedSnippetsRemoveEvent, SavedSnippetsUpdateEvent } from './kinds/saved-snippets.js';
import type { ScheduledMessagesAddEvent, ScheduledMessagesRemoveEvent, ScheduledMessagesUpdateEvent } from './kinds/scheduled.js';

export type * from './kinds/message.js';
export type * from './kinds/user.js';
export type * from './kinds/stream.js';
export type * from './kinds/settings.js';
export type * from './kinds/user-topic.js';
export type * from './kinds/scheduled.js';
export type * from './kinds/saved-snippets.js';

/** Every published event: one named member per type and op (typing: per message_type, as its schemas). */
export type ParleyEvent =
  | MessageEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | UpdateMessageFlagsAddEvent
  | UpdateMessageFlagsRemoveEvent
  | ReactionAddEvent
  | ReactionRemoveEvent
  | TypingPrivateEvent
  | TypingStreamEvent
  | TypingEditMessageEvent
  | RealmUserAddEvent
  | RealmUserUpdateEvent
  | RealmUserRemoveEvent
  | RealmBotAddEvent
  | RealmBotUpdateEvent
  | RealmBotRemoveEvent
  | RealmBotDeleteEvent
  | PresenceEvent
  | UserStatusEvent
  | MutedUsersEvent
  | UserGroupAddEvent
  | UserGroupUpdateEvent
  | UserGroupAddMembersEvent
  | UserGroupRemoveMembersEvent
  | UserGroupRemoveEvent
  | UserGroupSubgroupsEvent
  | CustomProfileFieldsEvent
  | SubscriptionAddEvent
  | SubscriptionRemoveEvent
  | SubscriptionUpdateEvent
  | SubscriptionPeerAddEvent
  | SubscriptionPeerRemoveEvent
  | StreamCreateEvent
  | StreamDeleteEvent
  | StreamUpdateEvent
  | DefaultStreamsEvent
  | MutedTopicsEvent
  | UserTopicEvent
  | UserSettingsUpdateEvent
  | UpdateDisplaySettingsEvent
  | UpdateGlobalNotificationsEvent
  | RealmUpdateEvent
  | RealmUpdateDictEvent
  | RealmUserSettingsDefaultsUpdateEvent
  | RealmLinkifiersEvent
  | RealmPlaygroundsEvent
  | OnboardingStepsEvent
  | RealmFiltersEvent
  | RealmEmojiUpdateEvent
  | InvitesChangedEvent
  | AlertWordsEvent
  | DraftsAddEvent
  | DraftsUpdateEvent
  | DraftsRemoveEvent
  | ScheduledMessagesAddEvent
  | ScheduledMessagesUpdateEvent
  | ScheduledMessagesRemoveEvent
  | SavedSnippetsAddEvent
  | SavedSnippetsUpdateEvent
  | SavedSnippetsRemoveEvent
  | AttachmentAddEvent
  | AttachmentUpdateEvent
  | AttachmentRemoveEvent;

/**
 * Made by the queues themselves, never published: the server restarted (queues restored), or
 * nothing happened for a while. The restart event has no `immediate` flag, for clients of any
 * level: Zulip dropped it at level 240 without a capability (it sent it only from development
 * servers), so its clients cannot rely on it.
 */
export interface RestartEvent {
  type: 'restart'; server_generation: number; zulip_version: string; zulip_feature_level: number;
  zulip_merge_base: string; service_feature_level: number; service_merge_base: string;
}
/**
 * After a restart, to the restored queues that accept it (Zulip's level 240): clients whose code
 * comes from the server (the web app) should reload, spread over minutes unless `immediate`.
 */
export interface WebReloadClientEvent { type: 'web_reload_client'; immediate: boolean }
export interface HeartbeatEvent { type: 'heartbeat' }

/**
 * An event as GET /events delivers it to a client (src/events/personalize.ts): the published
 * events, with the message events reshaped for their recipient and deletions possibly one
 * by one, plus what the queues make. applyEvent and the web app take these.
 */
export type ClientEvent =
  | Exclude<ParleyEvent, MessageEvent | UpdateMessageEvent | DeleteMessageEvent | RealmLinkifiersEvent>
  | ClientRealmLinkifiersEvent
  | ClientMessageEvent
  | ClientUpdateMessageEvent
  | DeleteMessageEvent
  | LegacyDeleteMessageEvent
  | RestartEvent
  | WebReloadClientEvent
  | HeartbeatEvent;

export type EventType = ParleyEvent['type'];

/**
 * Each published type with its ops (an empty list: the type has no op) and, for typing,
 * its message types: what the event guard must have seen. The `satisfies` makes a type
 * added to the union without an entry here a compile error.
 */
export const EVENT_KINDS = {
  message: [],
  update_message: [],
  user_settings: ['update'],
  update_display_settings: [],
  update_global_notifications: [],
  realm_user: ['add', 'update', 'remove'],
  realm_bot: ['add', 'update', 'remove', 'delete'],
  subscription: ['add', 'remove', 'update', 'peer_add', 'peer_remove'],
  stream: ['create', 'delete', 'update'],
  default_streams: [],
  muted_topics: [],
  user_topic: [],
  alert_words: [],
  presence: [],
  delete_message: [],
  typing: ['private', 'stream'],
  typing_edit_message: [],
  update_message_flags: ['add', 'remove'],
  reaction: ['add', 'remove'],
  drafts: ['add', 'update', 'remove'],
  scheduled_messages: ['add', 'update', 'remove'],
  saved_snippets: ['add', 'update', 'remove'],
  user_status: [],
  user_group: ['add', 'update', 'add_members', 'remove_members', 'remove', 'add_subgroups', 'remove_subgroups'],
  custom_profile_fields: [],
  muted_users: [],
  realm: ['update', 'update_dict'],
  realm_user_settings_defaults: ['update'],
  realm_linkifiers: [],
  realm_playgrounds: [],
  realm_filters: [],
  attachment: ['add', 'update', 'remove'],
  realm_emoji: ['update'],
  invites_changed: [],
  onboarding_steps: [],
} as const satisfies Record<EventType, readonly string[]>;

export interface EventEnvelope {
  realmId: number;
  event: ParleyEvent;
  userIds: number[];
}
