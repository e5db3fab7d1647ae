/**
 * Events about messages: new, edited, deleted, their flags, reactions, and typing. The
 * published form (what actions notify) and, where a queue reshapes it, the form a client
 * receives (personalize.ts): flags per recipient, the legacy single-id deletion.
 */
import type { WireMessage, WireReaction } from '../../schemas/wire.js';

export interface MessageEvent {
  type: 'message';
  /** The message as presented with apply_markdown and without client_gravatar; queues reshape it. */
  message: WireMessage;
  raw_content: string;
  sender_avatar_source: string;
  flags_by_user: Record<number, string[]>;
  public_stream: boolean;
  sender_queue_id?: string;
  local_id?: string | undefined;
  /** Level 327, 1:1 messages to someone else: the recipient id the receiver is shown (the sender's personal recipient). */
  receiver_recipient_id?: number;
}

/** A message event as a queue delivers it: the recipient's flags, and its own local id echoed. */
export interface ClientMessageEvent {
  type: 'message';
  message: WireMessage;
  flags: string[];
  local_message_id?: string;
}

/** What an update_message carries besides the recipient's flags (Zulip's update_message; field names as on the wire). */
interface UpdateMessageFields {
  type: 'update_message';
  /** null when only the rendering changed. */
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
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
  topic_links?: Array<{ text: string; url: string }>;
  new_stream_id?: number;
}

/** A message's content, topic or stream changed, as published. */
export interface UpdateMessageEvent extends UpdateMessageFields {
  /** Each recipient's flags on the edited message, delivered as `flags`; listeners without a row get ['read']. */
  flags_by_user: Record<number, string[]>;
}

/** An update_message as a queue delivers it. */
export interface ClientUpdateMessageEvent extends UpdateMessageFields {
  flags: string[];
}

/** Messages deleted (bulk_message_deletion's form, the one published). */
export interface DeleteMessageEvent {
  type: 'delete_message';
  message_type: 'stream' | 'private';
  message_ids: number[];
  stream_id?: number;
  topic?: string;
}

/** One deleted message, as queues without bulk_message_deletion receive each. */
export interface LegacyDeleteMessageEvent extends Omit<DeleteMessageEvent, 'message_ids'> {
  message_id: number;
}

/** How a message marked unread is filed in unread_msgs (feature level 121's `message_details`). */
export type UnreadMessageDetails =
  | { type: 'stream'; stream_id: number; topic: string; unmuted_stream_msg: boolean; mentioned?: true }
  | { type: 'private'; user_ids: number[]; mentioned?: true };

/** `operation` repeats `op` for older clients (Zulip keeps it, deprecated). */
export interface UpdateMessageFlagsAddEvent {
  type: 'update_message_flags'; op: 'add'; operation: 'add' | 'remove'; flag: string; messages: number[]; all: boolean;
}

/** `message_details` only when `read` is removed: where each message now unread is filed. */
export interface UpdateMessageFlagsRemoveEvent {
  type: 'update_message_flags'; op: 'remove'; operation: 'add' | 'remove'; flag: string; messages: number[]; all: boolean;
  message_details?: Record<string, UnreadMessageDetails>;
}

export type UpdateMessageFlagsEvent = UpdateMessageFlagsAddEvent | UpdateMessageFlagsRemoveEvent;

/** `user` repeats `user_id` for older clients: absent at levels 328–338 (Zulip kept it, deprecated, from 339). */
interface ReactionFields {
  type: 'reaction'; message_id: number; emoji_name: string; emoji_code: string; reaction_type: WireReaction['reaction_type'];
  user_id: number; user?: { user_id: number; email: string; full_name: string };
}
export interface ReactionAddEvent extends ReactionFields { op: 'add' }
export interface ReactionRemoveEvent extends ReactionFields { op: 'remove' }
export type ReactionEvent = ReactionAddEvent | ReactionRemoveEvent;

export type TypingPerson = { user_id: number; email: string };

/** Typing in a private conversation; start and stop have one shape (the schema keys typing by message_type). */
export interface TypingPrivateEvent {
  type: 'typing'; op: 'start' | 'stop'; message_type: 'private'; sender: TypingPerson; recipients: TypingPerson[];
}

/** Typing in a stream topic: only to queues with stream_typing_notifications. */
export interface TypingStreamEvent {
  type: 'typing'; op: 'start' | 'stop'; message_type: 'stream'; sender: TypingPerson; stream_id: number; topic: string;
}

export type TypingEvent = TypingPrivateEvent | TypingStreamEvent;

/**
 * Someone is editing a message (level 351): to whoever an edit of it would notify, who wants
 * typing events. A direct message's `user_ids` are those notified.
 */
export interface TypingEditMessageEvent {
  type: 'typing_edit_message'; op: 'start' | 'stop'; sender_id: number; message_id: number;
  recipient: { type: 'channel'; channel_id: number; topic: string } | { type: 'direct'; user_ids: number[] };
}
