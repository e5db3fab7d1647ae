import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';
import { realmSettings } from '../../lib/realm-settings.js';
import { directSystemGroupsOf, SYSTEM_GROUPS, SystemGroup } from '../../lib/system-groups.js';

/**
 * Zulip's role-based system groups for every organization (its migration 0382, as
 * create_system_user_groups_for_realm does for a new one: src/actions/system-groups.ts),
 * with the group-valued permission settings that name them:
 * - `stream.can_remove_subscribers_group_id` (feature level 142): role:administrators;
 * - `user_group.can_mention_group_id` (level 191): role:everyone, role:nobody for system groups.
 * Users are direct members of their role's group (and members past the waiting period of
 * role:fullmembers), deactivated ones included as Zulip kept them before level 303; the
 * organizations' system bots belong to no group (Zulip keeps them in another realm).
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`ALTER TABLE stream ADD COLUMN can_remove_subscribers_group_id INTEGER`.execute(db);
  await sql`ALTER TABLE user_group ADD COLUMN can_mention_group_id INTEGER`.execute(db);
  const now = Math.floor(Date.now() / 1000);
  const realms = await db.selectFrom('realm').select(['id', 'settings']).execute() as Array<{ id: number; settings: string }>;
  for (const realm of realms) {
    const ids = new Map<string, number>();
    for (const g of SYSTEM_GROUPS) {
      const row = await db.insertInto('user_group').values({ realm_id: realm.id, name: g.name, description: g.description, is_system_group: 1 })
        .returning('id').executeTakeFirstOrThrow() as { id: number };
      ids.set(g.name, Number(row.id));
    }
    const nobody = ids.get(SystemGroup.NOBODY)!;
    await db.updateTable('user_group').set({ can_mention_group_id: nobody }).where('realm_id', '=', realm.id).where('is_system_group', '=', 1).execute();
    await db.updateTable('user_group').set({ can_mention_group_id: ids.get(SystemGroup.EVERYONE)! })
      .where('realm_id', '=', realm.id).where('is_system_group', '=', 0).execute();
    await db.updateTable('stream').set({ can_remove_subscribers_group_id: ids.get(SystemGroup.ADMINISTRATORS)! }).where('realm_id', '=', realm.id).execute();
    const chain = SYSTEM_GROUPS.slice(1).map((g) => ids.get(g.name)!);
    for (let i = 0; i + 1 < chain.length; i++) {
      await db.insertInto('user_group_subgroup').values({ supergroup_id: chain[i + 1], subgroup_id: chain[i] }).execute();
    }
    const waiting = realmSettings(realm.settings).waiting_period_threshold;
    const members = await db.selectFrom('users').select(['id', 'role', 'date_joined'])
      .where('realm_id', '=', realm.id).where('is_system_bot', '=', 0).execute() as Array<{ id: number; role: number; date_joined: number }>;
    const rows = members.flatMap((u) => directSystemGroupsOf({ role: Number(u.role), date_joined: Number(u.date_joined) }, waiting, now)
      .map((name) => ({ group_id: ids.get(name)!, user_id: Number(u.id) })));
    for (let i = 0; i < rows.length; i += 500) await db.insertInto('user_group_member').values(rows.slice(i, i + 500)).execute();
  }
}
