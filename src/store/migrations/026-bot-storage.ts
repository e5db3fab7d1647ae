import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Zulip's BotStorageData: a key-value store of strings per user (bots use it to keep state
 * between calls). One value per (user, key); the size limit counts keys and values in
 * characters, so it is summed over the rows rather than stored.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('bot_storage');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  // By user only: a unique (user_id, key) index would refuse long keys on PostgreSQL (a
  // B-tree entry holds about 2.7 kB), and Zulip puts no bound on a key's length. The
  // action keeps one row per key, inside its transaction.
  await db.schema.createIndex('bot_storage_user').on('bot_storage').column('user_id').execute();
}
