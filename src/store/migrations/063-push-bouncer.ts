import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Mobile push through Zulip's push notification service:
 * - `push_server`: this server's registration with the service (Zulip's zulip_org_id and
 *   zulip_org_key secrets), one row, generated once.
 * - `push_outbox`: the calls to the service still to make, durable so that a restart or a
 *   service that is down loses none; `lease_until` lets exactly one node of a cluster make each.
 * - `push_active`: the messages whose push a user's phones show (Zulip's
 *   active_mobile_push_notification flag), so that reading one sends the `remove` push.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const id = (t: ReturnType<typeof db.schema.createTable>) => (dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()));
  await db.schema.createTable('push_server')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('zulip_org_id', 'text', (c) => c.notNull())
    .addColumn('zulip_org_key', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'bigint')
    .execute();
  await id(db.schema.createTable('push_outbox'))
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('due', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_outbox_due').on('push_outbox').columns(['due']).execute();
  await db.schema.createTable('push_active')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('push_active_pk', ['user_id', 'message_id'])
    .execute();
}
