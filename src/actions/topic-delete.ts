import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { userMessages } from '../store/repos/user-messages.js';
import { removeMessages, updateFirstMessageId } from './message-delete.js';

/**
 * Deletes the messages of a topic that the acting administrator may read (all of
 * them with shared history, otherwise those they received). Each user who had
 * some of them gets one bulk `delete_message` event.
 */
export async function doDeleteTopic(tx: Tx, acting: UserRow, stream: StreamRow, topic: string): Promise<number[]> {
  const found = await messages.listInTopic(tx.db, stream.id, topic.toLowerCase(),
    stream.history_public_to_subscribers !== 1 ? acting.id : undefined);
  if (found.length === 0) return [];
  const ids = found.map((r) => r.id);
  const topicName = found[found.length - 1]!.topic;
  const affected = new Map<number, number[]>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await userMessages.listByMessageIds(tx.db, chunk);
    for (const r of rows) affected.set(r.user_id, [...(affected.get(r.user_id) ?? []), r.message_id]);
    await removeMessages(tx, chunk);
  }
  // Group users by the exact set of ids they lose, so that one event serves many users.
  const groups = new Map<string, { ids: number[]; users: number[] }>();
  for (const [userId, msgIds] of affected) {
    const key = msgIds.sort((a, b) => a - b).join(',');
    const g = groups.get(key) ?? { ids: msgIds, users: [] };
    g.users.push(userId);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    tx.notify({ type: 'delete_message', message_type: 'stream', message_ids: g.ids, stream_id: stream.id, topic: topicName }, g.users, stream.realm_id);
  }
  // Feature level 256: deleting the stream's first message moves first_message_id, whichever way.
  await updateFirstMessageId(tx, stream, ids);
  return ids;
}
