import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * An organization's linkifiers (Zulip's RealmFilter): a pattern, and the URL format string
 * its matches link to. Every render reads them from an in-process cache scoped to the
 * realm, so the table joins the cache epoch of migration 012: a change made by another
 * process retires that cache (and the cached message JSON whose topic_links they make).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('realm_filter');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('pattern', 'text', (c) => c.notNull())
    .addColumn('url_format_string', 'text', (c) => c.notNull())
    .execute();
  // Zulip's unique_together (realm, pattern).
  await db.schema.createIndex('realm_filter_realm_pattern').unique().on('realm_filter').columns(['realm_id', 'pattern']).execute();
  if (dialect === 'sqlite') {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql.raw(`CREATE TRIGGER realm_filter_epoch_${op.toLowerCase()} AFTER ${op} ON realm_filter BEGIN
        UPDATE cache_epoch SET value = value + 1 WHERE id = 1; END`).execute(db);
    }
    return;
  }
  // bump_cache_epoch() is migration 012's.
  await sql`CREATE TRIGGER realm_filter_epoch AFTER INSERT OR UPDATE OR DELETE ON realm_filter
    FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch()`.execute(db);
}
