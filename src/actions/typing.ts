import type { Tx } from './transaction.js';
import type { Q, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { accessStreamById, checkCanPostToStream } from '../access/stream.js';
import { users } from '../store/repos/users.js';
import { subscriberIds } from '../reads/streams.js';
import { fitsIdColumn } from '../lib/ids.js';
import { userSettings } from '../lib/user-settings.js';
import { badRequest } from '../errors.js';
import { accessMessageToModify } from '../access/message.js';
import { checkCanEditContent } from './message-edit.js';
import { loadRecipients } from '../reads/messages.js';

/**
 * Typing notifications (Zulip's protocol is stateless on the server: nothing is stored,
 * clients repeat `start` and expire what they show). Each call is one event.
 */
export type TypingOp = 'start' | 'stop';

const who = (u: UserRow) => ({ user_id: u.id, email: u.email });

export interface TypingRequest {
  kind: 'private' | 'stream';
  op: TypingOp;
  /** User ids of the conversation, or the one stream id. */
  to: number[];
  /** Stream typing only. */
  topic?: string;
}

/** POST /typing once its parameters are known: the sender's settings, access, then the event. */
export async function doSendTyping(tx: Tx, realm: RealmRow, sender: UserRow, req: TypingRequest): Promise<void> {
  checkTypingAllowed(sender, req.kind);
  if (req.kind === 'stream') {
    // A stream the sender may not see is answered exactly like a missing one.
    const { stream, sub } = await accessStreamById(tx.db, sender, req.to[0]!, { featureLevel: tx.featureLevel });
    await checkCanPostToStream(tx.db, sender, stream, sub, realm, tx.featureLevel);
    sendStreamTyping(tx, sender, stream, req.topic ?? '', req.op, await receivingTyping(tx.db, await subscriberIds(tx.db, stream.id)));
  } else {
    sendPrivateTyping(tx, sender, await typingRecipients(tx.db, sender, req.to), req.op);
  }
}

/** The sender's own privacy settings (feature level 105) can forbid sending either kind. */
function checkTypingAllowed(sender: UserRow, kind: 'private' | 'stream'): void {
  const s = userSettings(sender.settings);
  if (kind === 'private' && !s.send_private_typing_notifications) {
    throw badRequest('User has disabled typing notifications for private messages');
  }
  if (kind === 'stream' && !s.send_stream_typing_notifications) {
    throw badRequest('User has disabled typing notifications for stream messages');
  }
}

/**
 * The people of a private conversation being typed in, the sender included (appended when
 * absent), in the order given. Any unknown id rejects the whole request, as in Zulip: a
 * partial list would name a different conversation. Deactivated users and bots of the
 * organization are valid recipients; they still identify the conversation.
 */
async function typingRecipients(q: Q, sender: UserRow, ids: number[]): Promise<UserRow[]> {
  const wanted = [...new Set([...ids, sender.id])];
  const rows = await users.listByIds(q, wanted.filter(fitsIdColumn));
  const found = new Map(rows.filter((u) => u.realm_id === sender.realm_id).map((u) => [u.id, u]));
  return wanted.map((id) => {
    const u = found.get(id);
    if (!u) throw badRequest(`Invalid user ID ${id}`);
    return u;
  });
}

/** Whether the user wants typing events (receives_typing_notifications, level 253; Zulip sends none to those who turned it off). */
const receivesTyping = (u: UserRow): boolean => userSettings(u.settings).receives_typing_notifications;

/** Of these users, those who want typing events. */
async function receivingTyping(q: Q, ids: readonly number[]): Promise<number[]> {
  const rows = await users.listByIds(q, [...ids]);
  const off = new Set(rows.filter((u) => !receivesTyping(u)).map((u) => u.id));
  return off.size === 0 ? [...ids] : ids.filter((id) => !off.has(id));
}

/**
 * Everyone listed who is still active and wants typing events hears it, the sender's other
 * clients too. `message_type` stays "private" for every client although Zulip 8 (level 215)
 * says "direct": Zulip changed it for all clients without a capability to ask for it, and
 * "private" is what level-122 clients understand while newer ones take both (docs/api-coverage.md).
 */
function sendPrivateTyping(tx: Tx, sender: UserRow, recipients: UserRow[], op: TypingOp): void {
  tx.notify({ type: 'typing', op, message_type: 'private', sender: who(sender), recipients: recipients.map(who) },
    recipients.filter((u) => u.is_active === 1 && receivesTyping(u)).map((u) => u.id), sender.realm_id);
}

/**
 * The stream's active subscribers hear it (the sender only if subscribed); queues that did
 * not declare stream_typing_notifications drop it on delivery (src/events/personalize.ts).
 */
function sendStreamTyping(tx: Tx, sender: UserRow, stream: StreamRow, topic: string, op: TypingOp, listeners: readonly number[]): void {
  tx.notify({ type: 'typing', op, message_type: 'stream', sender: who(sender), stream_id: stream.id, topic }, listeners, sender.realm_id);
}

/**
 * Typing while editing a message (level 351, Zulip's send_message_edit_notification_backend):
 * only someone who may edit its content now, in a stream they may still change, and whose own
 * setting lets them send that kind. Those an edit would notify hear it: the stream's active
 * subscribers, or the conversation's active members, who want typing events.
 */
export async function doSendEditTyping(tx: Tx, realm: RealmRow, sender: UserRow, messageId: number, op: TypingOp): Promise<void> {
  const { message, stream } = await accessMessageToModify(tx.db, sender, messageId, tx.featureLevel);
  checkCanEditContent(realm, sender, message, 0);
  const s = userSettings(sender.settings);
  if (stream) {
    if (!s.send_stream_typing_notifications) throw badRequest('User has disabled typing notifications for channel messages');
    const listeners = await receivingTyping(tx.db, await subscriberIds(tx.db, stream.id));
    tx.notify({ type: 'typing_edit_message', op, sender_id: sender.id, message_id: message.id, recipient: { type: 'channel', channel_id: stream.id, topic: message.topic } },
      listeners, sender.realm_id);
    return;
  }
  if (!s.send_private_typing_notifications) throw badRequest('User has disabled typing notifications for direct messages');
  const members = (await loadRecipients(tx.db, [message])).get(message.recipient_id)?.members ?? [];
  const ids = [...new Set([sender.id, ...members.map((u) => u.id)])];
  const notified = (await users.listByIds(tx.db, ids)).filter((u) => u.is_active === 1 && receivesTyping(u)).map((u) => u.id).sort((a, b) => a - b);
  tx.notify({ type: 'typing_edit_message', op, sender_id: sender.id, message_id: message.id, recipient: { type: 'direct', user_ids: notified } },
    notified, sender.realm_id);
}
