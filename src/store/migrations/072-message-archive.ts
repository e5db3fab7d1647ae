import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Message retention's archive (Zulip's ArchiveTransaction and Archived* models): expired
 * messages move here with their recipient rows, reactions and file links, one
 * archive_transaction per batch, so that a batch can be brought back whole
 * (`parley retention restore`) until it is purged. Edit history lives in the message row
 * (edit_history) and travels with it; Parley has no submessages. Each child table carries
 * its batch's id, so that purging or restoring a batch is one indexed statement per table.
 * type: 1 retention policy, 2 manual (Zulip's RETENTION_POLICY_BASED and MANUAL).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const batch = db.schema.createTable('archive_transaction');
  await (dialect === 'postgres'
    ? batch.addColumn('id', 'serial', (c) => c.primaryKey())
    : batch.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('realm_id', 'integer')
    .addColumn('restored', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('archive_transaction_timestamp').on('archive_transaction').column('timestamp').execute();
  await db.schema.createIndex('archive_transaction_realm').on('archive_transaction').columns(['realm_id', 'timestamp']).execute();

  const ref = 'archive_transaction.id';
  await db.schema.createTable('archived_message')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('sender_id', 'integer', (c) => c.notNull())
    .addColumn('recipient_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer')
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('topic_lower', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rendered_content', 'text', (c) => c.notNull())
    .addColumn('rendered_content_version', 'integer', (c) => c.notNull())
    .addColumn('date_sent', 'bigint', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('last_edit_time', 'bigint')
    .addColumn('edit_history', 'text')
    .addColumn('is_me_message', 'integer', (c) => c.notNull())
    .addColumn('has_link', 'integer', (c) => c.notNull())
    .addColumn('has_image', 'integer', (c) => c.notNull())
    .addColumn('has_attachment', 'integer', (c) => c.notNull())
    .addColumn('archive_transaction_id', 'integer', (c) => c.notNull().references(ref).onDelete('cascade'))
    .execute();
  await db.schema.createIndex('archived_message_batch').on('archived_message').column('archive_transaction_id').execute();

  await db.schema.createTable('archived_user_message')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('flags', 'integer', (c) => c.notNull())
    .addColumn('archive_transaction_id', 'integer', (c) => c.notNull().references(ref).onDelete('cascade'))
    .addPrimaryKeyConstraint('archived_user_message_pk', ['message_id', 'user_id'])
    .execute();
  await db.schema.createIndex('archived_user_message_batch').on('archived_user_message').column('archive_transaction_id').execute();

  await db.schema.createTable('archived_reaction')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('emoji_name', 'text', (c) => c.notNull())
    .addColumn('emoji_code', 'text', (c) => c.notNull())
    .addColumn('reaction_type', 'text', (c) => c.notNull())
    .addColumn('archive_transaction_id', 'integer', (c) => c.notNull().references(ref).onDelete('cascade'))
    .execute();
  await db.schema.createIndex('archived_reaction_batch').on('archived_reaction').column('archive_transaction_id').execute();

  // Links only: the file itself stays in `attachment`, unclaimed, for the storage sweep.
  await db.schema.createTable('archived_attachment_message')
    .addColumn('attachment_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('archive_transaction_id', 'integer', (c) => c.notNull().references(ref).onDelete('cascade'))
    .addPrimaryKeyConstraint('archived_attachment_message_pk', ['attachment_id', 'message_id'])
    .execute();
  await db.schema.createIndex('archived_attachment_message_batch').on('archived_attachment_message').column('archive_transaction_id').execute();
}
