import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Who muted whom (Zulip's MutedUser). Every send reads the realm's mutes from an
 * in-process cache (reads/muted-users.ts), so the table joins the cache epoch of
 * migration 012: a mute made by another process retires that cache too.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('muted_user');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('muted_user_id', 'integer', (c) => c.notNull())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('date_muted', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('muted_user_pair').unique().on('muted_user').columns(['user_id', 'muted_user_id']).execute();
  await db.schema.createIndex('muted_user_realm').on('muted_user').column('realm_id').execute();
  if (dialect === 'sqlite') {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql.raw(`CREATE TRIGGER muted_user_epoch_${op.toLowerCase()} AFTER ${op} ON muted_user BEGIN
        UPDATE cache_epoch SET value = value + 1 WHERE id = 1; END`).execute(db);
    }
    return;
  }
  // bump_cache_epoch() is migration 012's.
  await sql`CREATE TRIGGER muted_user_epoch AFTER INSERT OR UPDATE OR DELETE ON muted_user
    FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch()`.execute(db);
}
