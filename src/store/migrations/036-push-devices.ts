import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Mobile devices' push tokens (Zulip's PushDeviceToken): `kind` 1 APNs, 2 FCM (Zulip's
 * GCM), `ios_app_id` for APNs only. One row per (user, kind, token), which the action keeps
 * (a token may be 4096 characters, longer than PostgreSQL's B-tree index rows allow).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('push_device');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('ios_app_id', 'text')
    .addColumn('last_updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_device_user').on('push_device').columns(['user_id', 'kind']).execute();
}
