import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Invitations (Zulip's PreregistrationUser and MultiuseInvite with their Confirmation, in one
 * table): an email invite (`is_multiuse` 0, `email` set) works once; a reusable link
 * (`is_multiuse` 1, no email) until revoked. `expires` null: never. `status` 0 pending,
 * 1 used, 2 revoked. `stream_ids` is a JSON list: the streams the new account joins.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('invite');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('is_multiuse', 'integer', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('invited_as', 'integer', (c) => c.notNull())
    .addColumn('referred_by', 'integer', (c) => c.notNull())
    .addColumn('invited_at', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint')
    .addColumn('confirmation_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('stream_ids', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invite_realm').on('invite').column('realm_id').execute();
}
