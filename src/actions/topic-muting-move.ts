import type { Tx } from './transaction.js';
import type { StreamRow } from '../store/rows.js';
import { userTopics } from '../store/repos/user-topics.js';
import { VisibilityPolicy } from '../lib/visibility-policy.js';
import { nowSeconds } from '../lib/time.js';
import { notifyMutedTopics, notifyUserTopic } from './user-topics.js';

/**
 * A whole topic moved: whoever set a policy for it (muted, unmuted, followed) keeps it where
 * it went, unless they already have one there, except those who can no longer see it there
 * (their policy goes, as Zulip does, so that nobody holds one in a stream they cannot
 * access). Each hears that the old topic has none and, if it changed, the new one's, then
 * (once) their legacy muted_topics list.
 */
export async function moveTopicMuting(tx: Tx, muters: readonly number[], from: StreamRow, fromTopic: string, to: StreamRow, toTopic: string,
  losingAccess: ReadonlySet<number>): Promise<void> {
  if (from.id === to.id && fromTopic === toTopic) return;
  const sameTopic = from.id === to.id && fromTopic.toLowerCase() === toTopic.toLowerCase();
  const now = nowSeconds();
  for (const userId of muters) {
    const policy = await userTopics.policyOf(tx.db, userId, from.id, fromTopic);
    if (policy === VisibilityPolicy.INHERIT) continue;
    if (sameTopic) {
      // Only the spelling changed: the policy follows it.
      await userTopics.upsert(tx.db, { user_id: userId, stream_id: to.id, topic: toTopic, last_updated: now, visibility_policy: policy });
      notifyUserTopic(tx, userId, from.realm_id, to.id, toTopic, policy, now);
      await notifyMutedTopics(tx, userId, from.realm_id);
      continue;
    }
    await userTopics.delete(tx.db, userId, from.id, fromTopic);
    notifyUserTopic(tx, userId, from.realm_id, from.id, fromTopic, VisibilityPolicy.INHERIT, now);
    if (!losingAccess.has(userId) && (await userTopics.policyOf(tx.db, userId, to.id, toTopic)) === VisibilityPolicy.INHERIT) {
      await userTopics.upsert(tx.db, { user_id: userId, stream_id: to.id, topic: toTopic, last_updated: now, visibility_policy: policy });
      notifyUserTopic(tx, userId, from.realm_id, to.id, toTopic, policy, now);
    }
    await notifyMutedTopics(tx, userId, from.realm_id);
  }
}
