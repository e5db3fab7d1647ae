import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/** One row per user: when they were last active, and last connected at all (idle). */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('user_presence')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('last_active_time', 'bigint', (c) => c.notNull())
    .addColumn('last_connected_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_presence_realm').on('user_presence').columns(['realm_id', 'last_connected_time']).execute();
}
