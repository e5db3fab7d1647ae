import type { Tx } from './transaction.js';
import type { MessageRow, Q, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { accessMessageToModify } from '../access/message.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import { messages } from '../store/repos/messages.js';
import { reactions } from '../store/repos/reactions.js';
import { streams } from '../store/repos/streams.js';
import { userMessages } from '../store/repos/user-messages.js';
import { users } from '../store/repos/users.js';
import { messageActionAudience } from '../reads/message-audience.js';
import { streamAudienceIds } from '../reads/stream-audience.js';
import { realmSettings } from '../lib/realm-settings.js';
import { nowSeconds } from '../lib/time.js';
import { cannotDeleteMessage, deleteTimeLimitPassed, messageAlreadyDeleted } from '../errors.js';
import { queueRemovePushesOfDeleted } from '../notifications/push.js';

/** DELETE /messages/{id}: Zulip's delete_message_backend, access then permission then removal. */
export async function doDeleteMessage(tx: Tx, realm: RealmRow, user: UserRow, messageId: number): Promise<void> {
  const { message, stream } = await accessMessageToModify(tx.db, user, messageId);
  await checkCanDeleteMessage(tx.db, realm, user, message, (await users.findById(tx.db, message.sender_id))?.bot_owner_id ?? null);
  // Read before the rows that name them go.
  const audience = new Set(await messageActionAudience(tx.db, message, stream));
  audience.add(user.id);
  // A concurrent deletion got there first: its event is the one that counts.
  if ((await removeMessages(tx, [message.id])) === 0) throw messageAlreadyDeleted();
  if (stream) {
    tx.notify({ type: 'delete_message', message_type: 'stream', message_ids: [message.id], stream_id: stream.id, topic: message.topic }, audience, realm.id);
    await updateFirstMessageId(tx, stream, [message.id]);
  } else {
    // Since feature level 77 a private message's deletion names neither sender nor recipient.
    tx.notify({ type: 'delete_message', message_type: 'private', message_ids: [message.id] }, audience, realm.id);
  }
}

/**
 * The one way messages are deleted (one message here, a topic's in topic-delete.ts): their
 * reactions and user_message rows, then the rows themselves. Answers how many message rows
 * went; events are the caller's, who knows the audience (read before this). Phones that
 * show a push of one lose it after the commit (Zulip's remove push).
 */
export async function removeMessages(tx: Tx, ids: number[]): Promise<number> {
  tx.later((ctx) => queueRemovePushesOfDeleted(ctx, ids));
  await reactions.deleteByMessageIds(tx.db, ids);
  await userMessages.deleteByMessageIds(tx.db, ids);
  return messages.deleteByIds(tx.db, ids);
}

/**
 * Zulip's validate_can_delete_message: can_delete_any_message_group (level 281; by default
 * administrators, who alone could before) deletes anything at any time; others only their
 * own messages or their bots', when in can_delete_own_message_group (level 291, which
 * replaced delete_own_message_policy), and within message_content_delete_limit_seconds
 * (null: no limit).
 */
export async function checkCanDeleteMessage(q: Q, realm: RealmRow, user: UserRow, message: MessageRow, senderBotOwnerId: number | null,
  now = nowSeconds()): Promise<void> {
  if (await hasRealmGroupPermission(q, realm, user, 'can_delete_any_message_group')) return;
  if (message.sender_id !== user.id && senderBotOwnerId !== user.id) throw cannotDeleteMessage();
  if (!await hasRealmGroupPermission(q, realm, user, 'can_delete_own_message_group')) throw cannotDeleteMessage();
  const limit = realmSettings(realm.settings).message_content_delete_limit_seconds;
  if (limit !== null && now - message.date_sent > limit) throw deleteTimeLimitPassed();
}

/**
 * Deleting a stream's first message moves its first_message_id to the oldest one left
 * (null when none is), told to everyone who lists the stream, as the send that set it was.
 */
export async function updateFirstMessageId(tx: Tx, stream: StreamRow, deletedIds: number[]): Promise<void> {
  if (stream.first_message_id === null || !deletedIds.includes(stream.first_message_id)) return;
  const first = await messages.firstIdInStream(tx.db, stream.id);
  await streams.update(tx.db, stream.id, { first_message_id: first });
  await notifyFirstMessageId(tx, stream, first);
}

/** A stream's first_message_id moved to `first`: everyone who lists the stream hears it. */
export async function notifyFirstMessageId(tx: Tx, stream: StreamRow, first: number | null): Promise<void> {
  tx.notify({ type: 'stream', op: 'update', property: 'first_message_id', value: first, stream_id: stream.id, name: stream.name },
    await streamAudienceIds(tx.db, stream, tx.featureLevel), stream.realm_id);
}
