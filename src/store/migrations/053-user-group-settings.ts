import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Zulip 10's user-group settings (feature levels 283-324), each a TEXT column named as the
 * setting holding its group-setting value as JSON (a group id or `{direct_members,
 * direct_subgroups}`); null: the setting's default (src/lib/user-group-settings.ts), which
 * is what groups made before the setting existed have. Groups may be deactivated (290) and
 * remember who made them and when (292; null for older groups).
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  for (const name of ['can_manage_group', 'can_join_group', 'can_add_members_group', 'can_leave_group', 'can_remove_members_group']) {
    await db.schema.alterTable('user_group').addColumn(name, 'text').execute();
  }
  await db.schema.alterTable('user_group').addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('user_group').addColumn('creator_id', 'integer').execute();
  await db.schema.alterTable('user_group').addColumn('date_created', 'bigint').execute();
}
