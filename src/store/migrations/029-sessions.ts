import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Web sign-ins (the browser app's cookie). The cookie holds a random id; the row holds only
 * its SHA-256, so that a copy of the database signs nobody in. Each server caches the
 * sessions it has checked (reads/sessions.ts): a DELETE (sign-out, expiry) moves the cache
 * epoch of migration 012 so that every other process drops its copy too. Inserts and the
 * last_seen updates do not: they change nothing any cache holds.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.createTable('session')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_user').on('session').column('user_id').execute();
  await db.schema.createIndex('session_expires').on('session').column('expires').execute();
  if (dialect === 'sqlite') {
    await sql`CREATE TRIGGER session_epoch_delete AFTER DELETE ON session BEGIN
      UPDATE cache_epoch SET value = value + 1 WHERE id = 1; END`.execute(db);
    return;
  }
  // bump_cache_epoch() is migration 012's. Per row, not per statement: the purge of expired
  // sessions usually deletes nothing, and must not retire every cache when it does not.
  await sql`CREATE TRIGGER session_epoch AFTER DELETE ON session
    FOR EACH ROW EXECUTE FUNCTION bump_cache_epoch()`.execute(db);
}
