import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import { batchBudget, budgetSpent } from '../lib/batch-budget.js';
import type { UserRow } from '../store/rows.js';
import { userMessages } from '../store/repos/user-messages.js';
import { accessStreamById } from '../access/stream.js';
import { noSuchTopic } from '../errors.js';
import { queueRemovePushes } from '../notifications/push.js';

const readEvent = (messages: number[], all: boolean) =>
  ({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages, all } as const);

/** One batch of POST /mark_all_as_read: at most `limit` of the user's unread rows. How many changed. */
export async function doMarkAllAsReadBatch(tx: Tx, user: UserRow, limit: number): Promise<number> {
  return userMessages.markAllRead(tx.db, user.id, limit);
}

/**
 * POST /mark_all_as_read, as Zulip's do_mark_all_as_read from feature level 153: batches,
 * each committed on its own, until one changes fewer rows than its size or the time
 * budget is spent (false). As Zulip 5.0 the event names no messages but says `all`:
 * clients drop every unread they hold. It is sent once everything is read, even when
 * nothing was unread, and not when the budget ran out (Zulip's timeout path sends none
 * either: the client repeats the request).
 */
export async function markAllAsRead(ctx: AppContext, user: UserRow): Promise<boolean> {
  const start = batchBudget.clock();
  for (;;) {
    if (budgetSpent(start)) return false;
    const limit = ctx.store.dialect.name === 'postgres' ? batchBudget.markAllReadBatchPostgres : batchBudget.markAllReadBatch;
    const last = await transact(ctx, async (tx) => {
      const n = await doMarkAllAsReadBatch(tx, user, limit);
      // A short batch is the last unless a row escaped it: on PostgreSQL a row another
      // transaction updated meanwhile (an edit's mention flags) is skipped, not waited for.
      if (n < limit && await userMessages.hasUnread(tx.db, user.id)) return limit;
      if (n < limit) tx.notify(readEvent([], true), [user.id], user.realm_id);
      return n;
    });
    if (last < limit) {
      // Zulip's handle_remove_push_notification for whatever of it the user's phones show;
      // the read has committed whatever becomes of that.
      await queueRemovePushes(ctx, user, null).catch((err: unknown) => ctx.log.error({ err }, 'queueing the remove push failed'));
      return true;
    }
  }
}

/**
 * POST /mark_stream_as_read and /mark_topic_as_read: the user's unread messages of a
 * stream they may see (Zulip's access_stream_by_id: "Invalid stream id" otherwise), or of
 * one of its topics, named case-insensitively. An empty topic name marks the whole stream,
 * as in Zulip. A topic in which the user received nothing is "No such topic". The event
 * lists the messages marked, and is sent only when there were some.
 */
export async function doMarkStreamAsRead(tx: Tx, user: UserRow, streamId: number, topic?: string): Promise<number[]> {
  const { stream } = await accessStreamById(tx.db, user, streamId);
  const topicLower = topic ? topic.toLowerCase() : undefined;
  if (topicLower !== undefined && !(await userMessages.existsInTopic(tx.db, user.id, stream.id, topicLower))) throw noSuchTopic(topic!);
  const ids = await userMessages.markStreamRead(tx.db, user.id, stream.id, topicLower);
  if (ids.length > 0) {
    tx.notify(readEvent(ids, false), [user.id], user.realm_id);
    tx.later((ctx) => queueRemovePushes(ctx, user, ids));
  }
  return ids;
}
