import type { Q } from '../rows.js';

export const mutedTopics = {
  /** [stream_name, topic, date_muted], oldest first; topics of archived streams left out. */
  listOfUser: async (q: Q, userId: number): Promise<Array<[string, string, number]>> => {
    const rows = await q.selectFrom('muted_topic').innerJoin('stream', 'stream.id', 'muted_topic.stream_id')
      .select(['stream.name', 'muted_topic.topic', 'muted_topic.date_muted'])
      .where('muted_topic.user_id', '=', userId).where('stream.deactivated', '=', 0)
      .orderBy('muted_topic.date_muted').orderBy('muted_topic.topic_lower').execute();
    return rows.map((r) => [r.name, r.topic, r.date_muted]);
  },

  /** [stream_id, topic_lower] of the user's muted topics, of one stream when `streamId` is given. */
  listKeysOfUser: async (q: Q, userId: number, streamId?: number): Promise<Array<[number, string]>> => {
    let topics = q.selectFrom('muted_topic').select(['stream_id', 'topic_lower']).where('user_id', '=', userId);
    if (streamId !== undefined) topics = topics.where('stream_id', '=', streamId);
    return (await topics.execute()).map((m) => [m.stream_id, m.topic_lower]);
  },

  exists: async (q: Q, userId: number, streamId: number, topic: string): Promise<boolean> =>
    (await q.selectFrom('muted_topic').select('user_id').where('user_id', '=', userId)
      .where('stream_id', '=', streamId).where('topic_lower', '=', topic.toLowerCase()).executeTakeFirst()) !== undefined,

  insert: async (q: Q, row: { user_id: number; stream_id: number; topic: string; date_muted: number }): Promise<void> => {
    await q.insertInto('muted_topic').values({ ...row, topic_lower: row.topic.toLowerCase() }).execute();
  },

  /** How many rows went (0 or 1). */
  delete: async (q: Q, userId: number, streamId: number, topic: string): Promise<number> =>
    Number((await q.deleteFrom('muted_topic').where('user_id', '=', userId).where('stream_id', '=', streamId)
      .where('topic_lower', '=', topic.toLowerCase()).executeTakeFirst()).numDeletedRows),
};
