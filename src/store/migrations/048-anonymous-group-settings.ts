import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * A user group's can_mention_group may be an anonymous group (feature level 258): Zulip
 * stores an unnamed UserGroup; Parley keeps its direct members and subgroups as JSON
 * (`{"direct_members":[...],"direct_subgroups":[...]}`) beside the group. Null: the setting
 * is the named group of can_mention_group_id.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('user_group').addColumn('can_mention_group_anon', 'text').execute();
}
