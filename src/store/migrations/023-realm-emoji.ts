import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * An organization's custom emoji (Zulip's RealmEmoji). Deleting one deactivates it: old
 * reactions keep naming it by id. At most one active emoji per name, checked by the action.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('realm_emoji');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer')
    .addColumn('file_name', 'text')
    .addColumn('is_animated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('realm_emoji_realm').on('realm_emoji').columns(['realm_id', 'name']).execute();
}
