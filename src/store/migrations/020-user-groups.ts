import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * User groups (Zulip's UserGroup and UserGroupMembership). Names are unique within an
 * organization as Zulip keeps them (exact case); mentions match them case-insensitively.
 * `is_system_group` is kept for Zulip's wire shape: Parley creates no system groups yet.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('user_group');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_system_group', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('user_group_realm_name').unique().on('user_group').columns(['realm_id', 'name']).execute();
  await db.schema.createTable('user_group_member')
    .addColumn('group_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_group_member_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('user_group_member_user').on('user_group_member').column('user_id').execute();
}
