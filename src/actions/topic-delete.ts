import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { userMessages } from '../store/repos/user-messages.js';
import { removeMessages, updateFirstMessageId } from './message-delete.js';
import { batchBudget, budgetSpent } from '../lib/batch-budget.js';

/**
 * One batch of a topic's deletion: its newest `limit` messages that the acting
 * administrator may read (all of them with shared history, otherwise those they received).
 * Each user who had some of them gets one bulk `delete_message` event, and so does the
 * administrator, even without rows of their own (Zulip from feature level 274 always tells
 * the deleter; Parley does at every level, as for one message). The ids deleted.
 */
export async function doDeleteTopicBatch(tx: Tx, acting: UserRow, stream: StreamRow, topic: string, limit: number): Promise<number[]> {
  const found = await messages.listNewestInTopic(tx.db, stream.id, topic.toLowerCase(), limit,
    stream.history_public_to_subscribers !== 1 ? acting.id : undefined);
  if (found.length === 0) return [];
  const ids = found.map((r) => r.id).sort((a, b) => a - b);
  const topicName = found[0]!.topic;
  const affected = new Map<number, number[]>();
  const rows = await userMessages.listByMessageIds(tx.db, ids);
  for (const r of rows) affected.set(r.user_id, [...(affected.get(r.user_id) ?? []), r.message_id]);
  affected.set(acting.id, ids);
  await removeMessages(tx, ids);
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

/**
 * POST /streams/{id}/delete_topic: Zulip's delete_in_topic from feature level 147, newest
 * messages first, each batch in its own transaction, so that a topic too large for one
 * request is deleted by repeating it. Whether it finished within the time budget.
 */
export async function deleteTopic(ctx: AppContext, acting: UserRow, stream: StreamRow, topic: string): Promise<boolean> {
  const start = batchBudget.clock();
  for (;;) {
    if (budgetSpent(start)) return false;
    const limit = batchBudget.topicDeleteBatch;
    const deleted = await transact(ctx, (tx) => doDeleteTopicBatch(tx, acting, stream, topic, limit));
    if (deleted.length < limit) return true;
  }
}
