import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Notifications for people who are away (issue 32). `notification_cursor` is one row: the
 * last message whose recipients were decided, and the lease of the node deciding (one at a
 * time in a cluster). It starts at the newest message there is, so that the messages stored
 * before this version are never notified. `missed_message_notification` holds what is due
 * (Zulip's ScheduledMessageNotificationEmail and its push queue, in one table): `kind` 'email'
 * or 'push', `due` when it may go, `claimed_until` the lease of the node sending it.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.createTable('notification_cursor')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_message_id', 'integer', (c) => c.notNull())
    .addColumn('leased_by', 'text')
    .addColumn('leased_until', 'bigint')
    .execute();
  await sql`INSERT INTO notification_cursor (id, last_message_id) SELECT 1, COALESCE(MAX(id), 0) FROM message`.execute(db);
  const t = db.schema.createTable('missed_message_notification');
  await (dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('mentioned_user_group_id', 'integer')
    .addColumn('due', 'bigint', (c) => c.notNull())
    .addColumn('claimed_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_due', 'bigint', (c) => c.notNull())
    .execute();
  // Two indexes only: every notification is written once and deleted once, on the writer
  // the sends share. (No unique one: the cursor's conditional move in the same
  // transaction is what keeps a message from being decided twice.)
  await db.schema.createIndex('missed_message_notification_user').on('missed_message_notification').columns(['kind', 'user_id']).execute();
  await db.schema.createIndex('missed_message_notification_due').on('missed_message_notification').columns(['kind', 'due']).execute();
}
