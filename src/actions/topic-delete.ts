import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';

/**
 * Deletes the messages of a topic that the acting administrator may read (all of
 * them with shared history, otherwise those they received). Each user who had
 * some of them gets one bulk `delete_message` event.
 */
export async function doDeleteTopic(tx: Tx, acting: UserRow, stream: StreamRow, topic: string): Promise<number[]> {
  let query = tx.db.selectFrom('message').select(['message.id', 'message.topic'])
    .where('message.stream_id', '=', stream.id).where('message.topic_lower', '=', topic.toLowerCase());
  if (stream.history_public_to_subscribers !== 1) {
    query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
      .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', acting.id)));
  }
  const found = await query.orderBy('message.id').execute();
  if (found.length === 0) return [];
  const ids = found.map((r) => r.id);
  const topicName = found[found.length - 1]!.topic;
  const affected = new Map<number, number[]>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await tx.db.selectFrom('user_message').select(['user_id', 'message_id']).where('message_id', 'in', chunk).execute();
    for (const r of rows) affected.set(r.user_id, [...(affected.get(r.user_id) ?? []), r.message_id]);
    await tx.db.deleteFrom('reaction').where('message_id', 'in', chunk).execute();
    await tx.db.deleteFrom('user_message').where('message_id', 'in', chunk).execute();
    await tx.db.deleteFrom('message').where('id', 'in', chunk).execute();
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
  return ids;
}
