import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Uploaded files (Zulip's Attachment) and the messages that link them. A file linked by
 * no message is unclaimed, Zulip's state for "collectable": deleting a message drops its
 * links through the foreign key, so deleting the last message that links a file leaves it
 * unclaimed. The bytes live in the storage back end under `path_id`.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('attachment');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('path_id', 'text', (c) => c.notNull().unique())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attachment_owner').on('attachment').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('attachment_realm').on('attachment').column('realm_id').execute();
  await db.schema.createTable('attachment_message')
    .addColumn('attachment_id', 'integer', (c) => c.notNull().references('attachment.id').onDelete('cascade'))
    .addColumn('message_id', 'integer', (c) => c.notNull().references('message.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('attachment_message_pk', ['attachment_id', 'message_id'])
    .execute();
  // Deleting a message finds its links through this index (the cascade).
  await db.schema.createIndex('attachment_message_message').on('attachment_message').column('message_id').execute();
}
