/** Message events applied to register's max_message_id, unread_msgs and starred_messages. */
import type { ClientMessageEvent, ClientUpdateMessageEvent, DeleteMessageEvent, LegacyDeleteMessageEvent, UpdateMessageFlagsEvent } from '../kinds/message.js';
import type { RegisterState } from './state.js';
import { addUnread, clearUnread, countsAsMention, mutingOf, placeOfDetails, placeOfMessage, placeOfUnread, refileUnread, removeUnread, setUnreadMention } from './unread.js';

export function applyMessage(state: RegisterState, e: ClientMessageEvent, viewerId: number): void {
  if (state.max_message_id !== undefined) state.max_message_id = Math.max(state.max_message_id, e.message.id);
  if (state.unread_msgs && !e.flags.includes('read')) {
    const place = placeOfMessage(e.message, viewerId);
    addUnread(state.unread_msgs, e.message.id, place, countsAsMention(e.flags, place, mutingOf(state)));
  }
  if (state.recent_private_conversations && Array.isArray(e.message.display_recipient)) notePrivate(state.recent_private_conversations, e, viewerId);
}

/** register's recent_private_conversations: the conversation's newest id, newest conversation first. */
function notePrivate(list: Array<{ max_message_id: number; user_ids: number[] }>, e: ClientMessageEvent, viewerId: number): void {
  const people = Array.isArray(e.message.display_recipient) ? e.message.display_recipient : [];
  const ids = people.map((p) => p.id).filter((id) => id !== viewerId).sort((a, b) => a - b);
  const key = ids.join(',');
  const found = list.find((c) => [...c.user_ids].sort((a, b) => a - b).join(',') === key);
  if (found) found.max_message_id = Math.max(found.max_message_id, e.message.id);
  else list.push({ max_message_id: e.message.id, user_ids: ids });
  list.sort((a, b) => b.max_message_id - a.max_message_id);
}

export function applyUpdateMessage(state: RegisterState, e: ClientUpdateMessageEvent): void {
  const u = state.unread_msgs;
  if (!u) return;
  if ('new_stream_id' in e || 'subject' in e) refileUnread(u, e.message_ids, { streamId: e.new_stream_id, topic: e.subject });
  if ('rendered_content' in e) {
    const place = placeOfUnread(u, e.message_id);
    if (place) setUnreadMention(u, e.message_id, countsAsMention(e.flags, place, mutingOf(state)));
  }
}

export function applyMessageFlags(state: RegisterState, e: UpdateMessageFlagsEvent, viewerId: number): void {
  if (e.flag === 'read' && state.unread_msgs) {
    if (e.op === 'add') (e.all ? clearUnread(state.unread_msgs) : removeUnread(state.unread_msgs, e.messages));
    if (e.op === 'remove') {
      for (const [id, d] of Object.entries(e.message_details ?? {})) addUnread(state.unread_msgs, Number(id), placeOfDetails(d, viewerId), d.mentioned === true);
    }
  }
  if (e.flag === 'starred' && state.starred_messages) {
    const starred = new Set(state.starred_messages);
    for (const id of e.messages) (e.op === 'add' ? starred.add(id) : starred.delete(id));
    state.starred_messages = [...starred].sort((a, b) => a - b);
  }
}

/** Either form: bulk_message_deletion's ids, or one id per event for older clients. */
export function applyDeleteMessage(state: RegisterState, e: DeleteMessageEvent | LegacyDeleteMessageEvent): void {
  const ids = 'message_ids' in e ? e.message_ids : [e.message_id];
  if (state.unread_msgs) removeUnread(state.unread_msgs, ids);
  if (state.starred_messages) state.starred_messages = state.starred_messages.filter((id) => !ids.includes(id));
}
