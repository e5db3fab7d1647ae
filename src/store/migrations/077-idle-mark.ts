import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * A soft-deactivated person's catch-up marks (migrations 074 and 076) move to a table of
 * their own. On `users` every move of the mark fired the cache epoch's trigger (migration
 * 012) and retired every process's caches: the daily catch-up moves it once per person and
 * step, thousands of times a day in a large organization, and register rebuilt what it
 * shares each time. Whether someone is idle (`users.long_term_idle`) stays on `users`: the
 * send path's cache of idle people follows it.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('idle_mark')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    // Their recipient rows are complete up to this message.
    .addColumn('last_active_message_id', 'integer', (c) => c.notNull())
    // The rows a catch-up makes up to this message are read (history an import left out).
    .addColumn('read_through', 'integer')
    .execute();
  await sql`INSERT INTO idle_mark (user_id, last_active_message_id, read_through)
    SELECT id, last_active_message_id, idle_read_through FROM users WHERE last_active_message_id IS NOT NULL`.execute(db);
  await db.schema.alterTable('users').dropColumn('idle_read_through').execute();
  await db.schema.alterTable('users').dropColumn('last_active_message_id').execute();
}
