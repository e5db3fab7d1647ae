import type { Tx } from '../store/tx.js';
import type { Q, StreamRow, UserRow } from '../store/rows.js';
import { badRequest } from '../errors.js';
import { nowSeconds } from '../lib/time.js';

/** The register/event form: [stream_name, topic, date_muted], oldest first. */
export async function listMutedTopics(q: Q, userId: number): Promise<Array<[string, string, number]>> {
  const rows = await q.selectFrom('muted_topic').innerJoin('stream', 'stream.id', 'muted_topic.stream_id')
    .select(['stream.name', 'muted_topic.topic', 'muted_topic.date_muted'])
    .where('muted_topic.user_id', '=', userId).where('stream.deactivated', '=', 0)
    .orderBy('muted_topic.date_muted').orderBy('muted_topic.topic_lower').execute();
  return rows.map((r) => [r.name, r.topic, r.date_muted]);
}

export async function isTopicMuted(q: Q, userId: number, streamId: number, topic: string): Promise<boolean> {
  const row = await q.selectFrom('muted_topic').select('user_id').where('user_id', '=', userId)
    .where('stream_id', '=', streamId).where('topic_lower', '=', topic.toLowerCase()).executeTakeFirst();
  return row !== undefined;
}

async function notify(tx: Tx, user: UserRow): Promise<void> {
  tx.notify({ type: 'muted_topics', muted_topics: await listMutedTopics(tx.db, user.id) }, [user.id], user.realm_id);
}

export async function doMuteTopic(tx: Tx, user: UserRow, stream: StreamRow, topic: string): Promise<void> {
  if (await isTopicMuted(tx.db, user.id, stream.id, topic)) throw badRequest('Topic already muted');
  await tx.db.insertInto('muted_topic').values({
    user_id: user.id, stream_id: stream.id, topic, topic_lower: topic.toLowerCase(), date_muted: nowSeconds(),
  }).execute();
  await notify(tx, user);
}

export async function doUnmuteTopic(tx: Tx, user: UserRow, streamId: number, topic: string): Promise<void> {
  const res = await tx.db.deleteFrom('muted_topic').where('user_id', '=', user.id).where('stream_id', '=', streamId)
    .where('topic_lower', '=', topic.toLowerCase()).executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw badRequest('Topic is not muted');
  await notify(tx, user);
}
