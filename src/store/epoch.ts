import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * The store's cache epoch (migration 012): one counter that a trigger moves on every write
 * to users, realms, streams, subscriptions and alert words, whichever process makes it.
 */
export async function readCacheEpoch(db: Kysely<DB>): Promise<number> {
  const row = await db.selectFrom('cache_epoch').select('value').where('id', '=', 1).executeTakeFirst();
  return Number(row?.value ?? 0);
}
