import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Scheduled messages (Zulip's ScheduledMessage, feature levels 173-184), and saved snippets below. `recipient` is the
 * JSON `to` of a private one (the stream's id is `stream_id`). `delivered` is set in the
 * same transaction that stores the sent message (store/message-batch.ts), which is what
 * makes delivery exactly-once among a cluster's nodes; `claimed_until` is only a lease so
 * that nodes do not all prepare the same send.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const t = db.schema.createTable('scheduled_message');
  await (dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('sender_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('stream_id', 'integer')
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rendered_content', 'text', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('scheduled_timestamp', 'bigint', (c) => c.notNull())
    .addColumn('read_by_sender', 'integer', (c) => c.notNull())
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered_message_id', 'integer')
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_message', 'text')
    .addColumn('claimed_until', 'bigint')
    .execute();
  await db.schema.createIndex('scheduled_message_due').on('scheduled_message').columns(['delivered', 'failed', 'scheduled_timestamp']).execute();
  // Saved snippets (Zulip's SavedSnippet, feature level 297): the owner's reusable texts.
  const snippets = db.schema.createTable('saved_snippet');
  await (dialect === 'postgres'
    ? snippets.addColumn('id', 'serial', (c) => c.primaryKey())
    : snippets.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('date_created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_snippet_user').on('saved_snippet').column('user_id').execute();
  await db.schema.createIndex('scheduled_message_sender').on('scheduled_message').columns(['sender_id', 'delivered', 'scheduled_timestamp']).execute();
}
