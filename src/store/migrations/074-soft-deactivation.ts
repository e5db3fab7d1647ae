import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Soft deactivation (Zulip's long_term_idle): a person away for weeks gets no recipient row
 * for an ordinary stream message; the rows are made later in bulk, or when they come back.
 * `last_active_message_id` is the message after which their rows may be missing.
 *
 * `user_activity` is when each person last used the server. It is its own table because the
 * users table's writes retire every cached user list (and fire the cache epoch's trigger):
 * a visit written hourly per person there would empty register's caches all day. Existing
 * people count as seen now, so no one is soft-deactivated on the day of the upgrade.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('long_term_idle', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('users').addColumn('last_active_message_id', 'integer').execute();
  await db.schema.createTable('user_activity')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('last_visit', 'integer', (c) => c.notNull())
    .execute();
  const now = Math.floor(Date.now() / 1000);
  await sql`INSERT INTO user_activity (user_id, last_visit) SELECT id, ${now} FROM users`.execute(db);
}
