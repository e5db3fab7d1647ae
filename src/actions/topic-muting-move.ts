import type { Tx } from './transaction.js';
import type { StreamRow } from '../store/rows.js';
import { mutedTopics } from '../store/repos/muted-topics.js';
import { nowSeconds } from '../lib/time.js';

/**
 * A whole topic moved: whoever muted it keeps it muted where it went, except those who
 * can no longer see it there (their mute goes, as Zulip does, so that nobody holds a mute
 * in a stream they cannot access). Each muter gets their new list.
 */
export async function moveTopicMuting(tx: Tx, muters: readonly number[], from: StreamRow, fromTopic: string, to: StreamRow, toTopic: string,
  losingAccess: ReadonlySet<number>): Promise<void> {
  if (from.id === to.id && fromTopic === toTopic) return;
  for (const userId of muters) {
    await mutedTopics.delete(tx.db, userId, from.id, fromTopic);
    if (!losingAccess.has(userId) && !(await mutedTopics.exists(tx.db, userId, to.id, toTopic))) {
      await mutedTopics.insert(tx.db, { user_id: userId, stream_id: to.id, topic: toTopic, date_muted: nowSeconds() });
    }
    tx.notify({ type: 'muted_topics', muted_topics: await mutedTopics.listOfUser(tx.db, userId) }, [userId], from.realm_id);
  }
}
