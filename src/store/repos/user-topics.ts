import type { Q } from '../rows.js';
import { VisibilityPolicy } from '../../lib/visibility-policy.js';

/** One row of register's `user_topics` (the wire form: Zulip's get_user_topics). */
export interface UserTopicEntry { stream_id: number; topic_name: string; last_updated: number; visibility_policy: number }

export const userTopics = {
  /** register's legacy `muted_topics`: [stream_name, topic, date_muted] of muted topics, oldest first; archived streams left out. */
  listMutedOfUser: async (q: Q, userId: number): Promise<Array<[string, string, number]>> => {
    const rows = await q.selectFrom('user_topic').innerJoin('stream', 'stream.id', 'user_topic.stream_id')
      .select(['stream.name', 'user_topic.topic', 'user_topic.last_updated'])
      .where('user_topic.user_id', '=', userId).where('user_topic.visibility_policy', '=', VisibilityPolicy.MUTED)
      .where('stream.deactivated', '=', 0)
      .orderBy('user_topic.last_updated').orderBy('user_topic.topic_lower').execute();
    return rows.map((r) => [r.name, r.topic, r.last_updated]);
  },

  /** Every policy the user set, archived streams left out (in no particular order). */
  listOfUser: async (q: Q, userId: number): Promise<UserTopicEntry[]> =>
    (await q.selectFrom('user_topic').innerJoin('stream', 'stream.id', 'user_topic.stream_id')
      .select(['user_topic.stream_id', 'user_topic.topic', 'user_topic.last_updated', 'user_topic.visibility_policy'])
      .where('user_topic.user_id', '=', userId).where('stream.deactivated', '=', 0).execute())
      .map((r) => ({ stream_id: r.stream_id, topic_name: r.topic, last_updated: r.last_updated, visibility_policy: r.visibility_policy })),

  /** [stream_id, topic_lower] of the user's topics with one of `policies`, of one stream when `streamId` is given. */
  listKeysOfUser: async (q: Q, userId: number, policies: readonly number[], streamId?: number): Promise<Array<[number, string]>> => {
    let topics = q.selectFrom('user_topic').select(['stream_id', 'topic_lower']).where('user_id', '=', userId)
      .where('visibility_policy', 'in', policies);
    if (streamId !== undefined) topics = topics.where('stream_id', '=', streamId);
    return (await topics.execute()).map((m) => [m.stream_id, m.topic_lower]);
  },

  /** The user's policy for a topic (INHERIT when none). */
  policyOf: async (q: Q, userId: number, streamId: number, topic: string): Promise<number> =>
    (await q.selectFrom('user_topic').select('visibility_policy').where('user_id', '=', userId)
      .where('stream_id', '=', streamId).where('topic_lower', '=', topic.toLowerCase()).executeTakeFirst())?.visibility_policy
      ?? VisibilityPolicy.INHERIT,

  /** Who holds a policy for a topic, with it. */
  listOfTopic: async (q: Q, streamId: number, topic: string): Promise<Array<{ user_id: number; visibility_policy: number }>> =>
    q.selectFrom('user_topic').select(['user_id', 'visibility_policy'])
      .where('stream_id', '=', streamId).where('topic_lower', '=', topic.toLowerCase()).execute(),

  /** Sets a policy other than INHERIT; the topic's spelling becomes `topic`'s. */
  upsert: async (q: Q, row: { user_id: number; stream_id: number; topic: string; last_updated: number; visibility_policy: number }): Promise<void> => {
    const topicLower = row.topic.toLowerCase();
    const done = await q.updateTable('user_topic')
      .set({ topic: row.topic, last_updated: row.last_updated, visibility_policy: row.visibility_policy })
      .where('user_id', '=', row.user_id).where('stream_id', '=', row.stream_id).where('topic_lower', '=', topicLower).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) await q.insertInto('user_topic').values({ ...row, topic_lower: topicLower }).execute();
  },

  /** How many rows went (0 or 1). */
  delete: async (q: Q, userId: number, streamId: number, topic: string): Promise<number> =>
    Number((await q.deleteFrom('user_topic').where('user_id', '=', userId).where('stream_id', '=', streamId)
      .where('topic_lower', '=', topic.toLowerCase()).executeTakeFirst()).numDeletedRows),
};
