import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { mutedTopics } from '../store/repos/muted-topics.js';
import { badRequest } from '../errors.js';
import { nowSeconds } from '../lib/time.js';

async function notify(tx: Tx, user: UserRow): Promise<void> {
  tx.notify({ type: 'muted_topics', muted_topics: await mutedTopics.listOfUser(tx.db, user.id) }, [user.id], user.realm_id);
}

export async function doMuteTopic(tx: Tx, user: UserRow, stream: StreamRow, topic: string): Promise<void> {
  if (await mutedTopics.exists(tx.db, user.id, stream.id, topic)) throw badRequest('Topic already muted');
  await mutedTopics.insert(tx.db, { user_id: user.id, stream_id: stream.id, topic, date_muted: nowSeconds() });
  await notify(tx, user);
}

export async function doUnmuteTopic(tx: Tx, user: UserRow, streamId: number, topic: string): Promise<void> {
  if ((await mutedTopics.delete(tx.db, user.id, streamId, topic)) === 0) throw badRequest('Topic is not muted');
  await notify(tx, user);
}
