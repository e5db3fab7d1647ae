import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { userMessages } from '../store/repos/user-messages.js';
import { accessStreamById } from '../access/stream.js';
import { noSuchTopic } from '../errors.js';

const readEvent = (messages: number[], all: boolean) =>
  ({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages, all } as const);

/**
 * POST /mark_all_as_read: one UPDATE over the user's unread rows. As Zulip 5.0 the event
 * names no messages but says `all`: clients drop every unread they hold. Sent even when
 * nothing was unread, as Zulip does. How many rows changed.
 */
export async function doMarkAllAsRead(tx: Tx, user: UserRow): Promise<number> {
  const count = await userMessages.markAllRead(tx.db, user.id);
  tx.notify(readEvent([], true), [user.id], user.realm_id);
  return count;
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
  if (ids.length > 0) tx.notify(readEvent(ids, false), [user.id], user.realm_id);
  return ids;
}
