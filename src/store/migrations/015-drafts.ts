import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Synchronised drafts (Zulip's Draft). `recipient` keeps the draft's `to` exactly as it is
 * answered (JSON: `[stream_id]`, the other people's sorted ids, or `[]`), worked out once
 * when the draft is written, as Zulip keeps a Recipient row. `last_edit_time` is whole
 * seconds, the precision clients are shown, so that every listing orders alike.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const t = db.schema.createTable('draft');
  await (dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('last_edit_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('draft_user').on('draft').columns(['user_id', 'last_edit_time']).execute();
}
