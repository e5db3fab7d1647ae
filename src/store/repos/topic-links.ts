import type { Q } from '../rows.js';

/** What a topic link (`#**stream>topic**`) needs of the topic when rendered (level 347). */
export const topicLinks = {
  /** The newest message of the topic, the target of the link's `with` operator (index message_stream_topic). */
  latestId: async (q: Q, streamId: number, topicLower: string): Promise<number | undefined> =>
    (await q.selectFrom('message').select('id').where('stream_id', '=', streamId).where('topic_lower', '=', topicLower)
      .orderBy('id', 'desc').limit(1).executeTakeFirst())?.id,
};
