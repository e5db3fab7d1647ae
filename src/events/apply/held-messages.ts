/**
 * The messages a client holds (loaded pages, live ones) kept by events, beside register's
 * state: the web app's message store. Register holds no messages, so the guard tests do
 * not reach this; it lives here so that a client has one reducer for everything events
 * change, not a second interpretation of them.
 */
import type { ClientEvent } from '../types.js';
import type { WireMessage, WireDisplayRecipientUser, WireReaction } from '../../schemas/wire.js';
import type { RegisterState } from './state.js';

/** What a held message needs of the wire Message (a local echo has no more than this). */
export type HeldMessage = Pick<WireMessage,
  'id' | 'type' | 'sender_id' | 'sender_full_name' | 'sender_email' | 'stream_id' | 'subject' | 'content' | 'timestamp' | 'last_edit_timestamp'> & {
  avatar_url?: string | null;
  display_recipient: string | Array<Pick<WireDisplayRecipientUser, 'id' | 'email' | 'full_name'>>;
  flags: string[];
  reactions: Array<Pick<WireReaction, 'emoji_name' | 'emoji_code' | 'reaction_type' | 'user_id'>>;
};

/** What one event did to the held messages, for the client's views to follow. */
export interface HeldChanges {
  /** A new message, with the local id its sender's queue echoes. */
  added?: { message: HeldMessage; localId: string | undefined };
  removed: number[];
  /** Messages whose stream or topic changed. */
  moved: number[];
}

const NONE: HeldChanges = { removed: [], moved: [] };

function edit(messages: Map<number, HeldMessage>, id: number, f: (m: HeldMessage) => HeldMessage): void {
  const m = messages.get(id);
  if (m) messages.set(id, f(m));
}

export function applyToHeldMessages(messages: Map<number, HeldMessage>, state: RegisterState, e: ClientEvent): HeldChanges {
  if (e.type === 'message') {
    const message: HeldMessage = { ...e.message, flags: e.flags };
    messages.set(message.id, message);
    return { added: { message, localId: e.local_message_id }, removed: [], moved: [] };
  }
  if (e.type === 'delete_message') {
    const ids = 'message_ids' in e ? e.message_ids : [e.message_id];
    for (const id of ids) messages.delete(id);
    return { removed: ids, moved: [] };
  }
  if (e.type === 'reaction') {
    edit(messages, e.message_id, (m) => {
      const same = (r: HeldMessage['reactions'][number]) => r.user_id === e.user_id && r.emoji_code === e.emoji_code && r.reaction_type === e.reaction_type;
      const reactions = m.reactions.filter((r) => !same(r));
      if (e.op === 'add') reactions.push({ emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type, user_id: e.user_id });
      return { ...m, reactions };
    });
  }
  if (e.type === 'update_message_flags') {
    for (const id of e.all ? [...messages.keys()] : e.messages) {
      edit(messages, id, (m) => ({ ...m, flags: [...m.flags.filter((f) => f !== e.flag), ...(e.op === 'add' ? [e.flag] : [])] }));
    }
  }
  if (e.type !== 'update_message') return NONE;
  const stream = e.new_stream_id === undefined ? undefined
    : [state.subscriptions, state.unsubscribed, state.never_subscribed, state.streams].flatMap((l) => l ?? []).find((s) => s.stream_id === e.new_stream_id);
  for (const id of e.message_ids) {
    edit(messages, id, (m) => {
      const next = { ...m };
      if (id === e.message_id && e.rendered_content !== undefined) {
        next.content = e.rendered_content;
        next.flags = e.flags;
      }
      if (e.subject !== undefined) next.subject = e.subject;
      if (e.new_stream_id !== undefined) {
        next.stream_id = e.new_stream_id;
        if (stream) next.display_recipient = stream.name;
      }
      if (!e.rendering_only) next.last_edit_timestamp = e.edit_timestamp;
      return next;
    });
  }
  return { removed: [], moved: e.subject !== undefined || e.new_stream_id !== undefined ? e.message_ids : [] };
}
