import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * One row per user who ever set a status (Zulip 5's UserStatus): `away` is still part of
 * the status there, not the presence_enabled setting it became in Zulip 6. Cleared fields
 * keep their row with empty values; register leaves such rows out.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('user_status')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('status_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('away', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('emoji_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('emoji_code', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('reaction_type', 'text', (c) => c.notNull().defaultTo('unicode_emoji'))
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_status_realm').on('user_status').column('realm_id').execute();
}
