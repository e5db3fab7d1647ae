import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Subgroups of user groups (Zulip's GroupGroupMembership, feature level 127): a row makes
 * `subgroup_id` a direct subgroup of `supergroup_id`. The action refuses cycles.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('user_group_subgroup')
    .addColumn('supergroup_id', 'integer', (c) => c.notNull())
    .addColumn('subgroup_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_group_subgroup_pk', ['supergroup_id', 'subgroup_id'])
    .execute();
  await db.schema.createIndex('user_group_subgroup_sub').on('user_group_subgroup').column('subgroup_id').execute();
}
