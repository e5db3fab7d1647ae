import type { Tx } from './transaction.js';
import { userTopics } from '../store/repos/user-topics.js';
import { VisibilityPolicy } from '../lib/visibility-policy.js';
import { nowSeconds } from '../lib/time.js';

/** The user's legacy `muted_topics` list, as it now is. */
export async function notifyMutedTopics(tx: Tx, userId: number, realmId: number): Promise<void> {
  tx.notify({ type: 'muted_topics', muted_topics: await userTopics.listMutedOfUser(tx.db, userId) }, [userId], realmId);
}

/** A topic's new policy, to its user. */
export function notifyUserTopic(tx: Tx, userId: number, realmId: number, streamId: number, topic: string, policy: number, lastUpdated: number): void {
  tx.notify({ type: 'user_topic', stream_id: streamId, topic_name: topic, last_updated: lastUpdated, visibility_policy: policy }, [userId], realmId);
}

/**
 * Sets a user's policy for a topic (Zulip's do_set_user_topic_visibility_policy). Setting
 * the policy the topic already has changes nothing and tells nobody (feature level 169's
 * idempotence); the answer says whether anything changed.
 */
export async function doSetUserTopicPolicy(tx: Tx, user: { id: number; realm_id: number }, streamId: number, topic: string,
  policy: number): Promise<boolean> {
  if ((await userTopics.policyOf(tx.db, user.id, streamId, topic)) === policy) return false;
  const now = nowSeconds();
  if (policy === VisibilityPolicy.INHERIT) await userTopics.delete(tx.db, user.id, streamId, topic);
  else await userTopics.upsert(tx.db, { user_id: user.id, stream_id: streamId, topic, last_updated: now, visibility_policy: policy });
  // Zulip sends both: each queue takes the one it asked for (EventQueue.wants).
  await notifyMutedTopics(tx, user.id, user.realm_id);
  notifyUserTopic(tx, user.id, user.realm_id, streamId, topic, policy, now);
  return true;
}
