import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Mobile push, the server data upload (issue 32, package C2):
 * - `push_realm`: what the push notification service last answered for each organization
 *   (Zulip's realm.push_notifications_enabled and push_notifications_enabled_end_timestamp,
 *   set from `can_push` / `expected_end_timestamp`); no row: nothing answered yet.
 * - `push_server.analytics_queued_at`: when a node last queued the upload, so that a cluster
 *   uploads once per period.
 * - `push_active(message_id)`: deleting messages finds whose phones show them in one look-up.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('push_realm')
    .addColumn('realm_id', 'integer', (c) => c.primaryKey())
    .addColumn('can_push', 'integer', (c) => c.notNull())
    .addColumn('end_timestamp', 'bigint')
    .execute();
  await db.schema.alterTable('push_server').addColumn('analytics_queued_at', 'bigint').execute();
  await db.schema.createIndex('push_active_message').on('push_active').columns(['message_id']).execute();
}
