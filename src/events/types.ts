/**
 * Every event Parley publishes, by its wire `type` (and `op`): the one vocabulary of the
 * event system. publish() (publish.ts) takes only these; the event guard test checks that
 * each kind listed in EVENT_KINDS went through it with its schema (schemas.ts). `restart`
 * and `heartbeat` are made by the queues themselves and never published.
 */
import type { WireDraft } from '../presenters/draft.js';
import type { WireUserGroup } from '../presenters/user-group.js';
import type { WireProfileField } from '../presenters/profile-field.js';

type Dict = Record<string, unknown>;

export interface MessageEvent {
  type: 'message';
  /** The message as presented with apply_markdown and without client_gravatar; queues reshape it. */
  message: { id: number } & Dict;
  raw_content: string;
  sender_avatar_source: string;
  flags_by_user: Record<number, string[]>;
  public_stream: boolean;
  sender_queue_id?: string;
  local_id?: string | undefined;
}

/** A message's content, topic or stream changed (Zulip's update_message; field names as on the wire). */
export interface UpdateMessageEvent {
  type: 'update_message';
  /** null when only the rendering changed. */
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
  /** Each recipient's flags on the edited message, delivered as `flags`; listeners without a row get ['read']. */
  flags_by_user: Record<number, string[]>;
  stream_name?: string;
  stream_id?: number;
  orig_content?: string;
  orig_rendered_content?: string;
  prev_rendered_content_version?: number;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
  propagate_mode?: string;
  orig_subject?: string;
  subject?: string;
  topic_links?: unknown[];
  new_stream_id?: number;
}

/** How a message marked unread is filed in unread_msgs (feature level 121's `message_details`). */
export type UnreadMessageDetails =
  | { type: 'stream'; stream_id: number; topic: string; unmuted_stream_msg: boolean; mentioned?: true }
  | { type: 'private'; user_ids: number[]; mentioned?: true };

export type ParleyEvent =
  | MessageEvent
  | { type: 'user_settings'; op: 'update'; property: string; value: unknown }
  | { type: 'update_display_settings'; user: string; setting_name: string; setting: unknown; language_name?: string }
  | { type: 'update_global_notifications'; user: string; notification_name: string; setting: unknown }
  | UpdateMessageEvent
  | { type: 'realm_user'; op: 'add' | 'update' | 'remove'; person: Dict }
  | { type: 'realm_bot'; op: 'add' | 'update'; bot: Dict }
  | { type: 'subscription'; op: 'add'; subscriptions: Dict[] }
  | { type: 'subscription'; op: 'remove'; subscriptions: Array<{ stream_id: number; name: string }> }
  | { type: 'subscription'; op: 'update'; stream_id: number; property: string; value: unknown }
  | { type: 'subscription'; op: 'peer_add' | 'peer_remove'; stream_ids: number[]; user_ids: number[] }
  | { type: 'stream'; op: 'create'; streams: Dict[] }
  | { type: 'stream'; op: 'delete'; streams: Dict[]; stream_ids: number[] }
  | { type: 'stream'; op: 'update'; stream_id: number; name: string; property: string; value: unknown } & Dict
  | { type: 'default_streams'; default_streams: Dict[] }
  | { type: 'muted_topics'; muted_topics: unknown[][] }
  | { type: 'alert_words'; alert_words: string[] }
  | { type: 'presence'; user_id: number; email: string; server_timestamp: number; presence: Dict }
  | { type: 'delete_message'; message_type: 'stream' | 'private'; message_ids: number[]; stream_id?: number; topic?: string }
  | { type: 'update_message_flags'; op: 'add' | 'remove'; operation: 'add' | 'remove'; flag: string; messages: number[]; all: boolean; message_details?: Record<string, UnreadMessageDetails> }
  | { type: 'typing'; op: 'start' | 'stop'; message_type: 'private'; sender: { user_id: number; email: string }; recipients: Array<{ user_id: number; email: string }> }
  | { type: 'typing'; op: 'start' | 'stop'; message_type: 'stream'; sender: { user_id: number; email: string }; stream_id: number; topic: string }
  | ReactionEvent
  | DraftsEvent
  | UserStatusEvent
  | { type: 'muted_users'; muted_users: Array<{ id: number; timestamp: number }> }
  | UserGroupEvent
  | { type: 'custom_profile_fields'; fields: WireProfileField[] }
  | RealmEvent
  | { type: 'realm_linkifiers'; realm_linkifiers: Array<{ pattern: string; url_format: string; id: number }> }
  | { type: 'realm_filters'; realm_filters: Array<[string, string, number]> }
  | AttachmentEvent
  | RealmEmojiEvent
  | InvitesChangedEvent;

/** A user group changed (Zulip 5's user_group events), to every active user of the organization. */
export type UserGroupEvent =
  | { type: 'user_group'; op: 'add'; group: WireUserGroup }
  | { type: 'user_group'; op: 'update'; group_id: number; data: { name?: string; description?: string } }
  | { type: 'user_group'; op: 'add_members' | 'remove_members'; group_id: number; user_ids: number[] }
  | { type: 'user_group'; op: 'remove'; group_id: number };

/** Organization settings changed (Zulip's do_set_realm_property and its grouped siblings), to every active user. */
export type RealmEvent =
  | { type: 'realm'; op: 'update'; property: string; value: unknown }
  | { type: 'realm'; op: 'update_dict'; property: 'default'; data: Dict }
  | { type: 'realm_user_settings_defaults'; op: 'update'; property: string; value: unknown };

/** The owner's uploaded files changed (Zulip's notify_attachment_update); to the owner only. */
export type AttachmentEvent =
  | { type: 'attachment'; op: 'add' | 'update'; attachment: WireAttachment; upload_space_used: number }
  | { type: 'attachment'; op: 'remove'; attachment: { id: number }; upload_space_used: number };

/** GET /attachments' element (Zulip 5's Attachment.to_dict; times in milliseconds). */
export interface WireAttachment {
  id: number; name: string; path_id: string; size: number; create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
}

/** The organization's whole custom-emoji dictionary, as register's `realm_emoji`. */
export interface RealmEmojiEvent { type: 'realm_emoji'; op: 'update'; realm_emoji: Record<string, Dict> }

/** The set of pending invitations changed: administrators refetch GET /invites (Zulip 5's notify_invites_changed). */
export interface InvitesChangedEvent { type: 'invites_changed' }

/** The owner's own drafts (Zulip's drafts events), to all of the owner's queues only. */
export type DraftsEvent =
  | { type: 'drafts'; op: 'add'; drafts: WireDraft[] }
  | { type: 'drafts'; op: 'update'; draft: WireDraft }
  | { type: 'drafts'; op: 'remove'; draft_id: number };

/** What changed of a user's status, as Zulip 5's do_update_user_status sends it: the fields passed. */
export interface UserStatusEvent {
  type: 'user_status'; user_id: number; away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string;
}

/** `user` repeats `user_id` for older clients (Zulip keeps it, deprecated). */
export interface ReactionEvent {
  type: 'reaction'; op: 'add' | 'remove'; message_id: number; emoji_name: string; emoji_code: string; reaction_type: string;
  user_id: number; user: { user_id: number; email: string; full_name: string };
}

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
  realm_bot: ['add', 'update'],
  subscription: ['add', 'remove', 'update', 'peer_add', 'peer_remove'],
  stream: ['create', 'delete', 'update'],
  default_streams: [],
  muted_topics: [],
  alert_words: [],
  presence: [],
  delete_message: [],
  typing: ['private', 'stream'],
  update_message_flags: ['add', 'remove'],
  reaction: ['add', 'remove'],
  drafts: ['add', 'update', 'remove'],
  user_status: [],
  user_group: ['add', 'update', 'add_members', 'remove_members', 'remove'],
  custom_profile_fields: [],
  muted_users: [],
  realm: ['update', 'update_dict'],
  realm_user_settings_defaults: ['update'],
  realm_linkifiers: [],
  realm_filters: [],
  attachment: ['add', 'update', 'remove'],
  realm_emoji: ['update'],
  invites_changed: [],
} as const satisfies Record<EventType, readonly string[]>;

export interface EventEnvelope {
  realmId: number;
  event: ParleyEvent;
  userIds: number[];
}
