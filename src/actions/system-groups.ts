import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { realmSettings } from '../lib/realm-settings.js';
import { directSystemGroupsOf, SYSTEM_GROUPS, SYSTEM_GROUPS_SHOWN_FROM, SystemGroup } from '../lib/system-groups.js';
import type { ParleyEvent } from '../events/types.js';

/**
 * A `user_group` event about a system group: to every active user of the organization, as
 * any group's, but only from the level at which Parley shows system groups
 * (SYSTEM_GROUPS_SHOWN_FROM), so that events stay in step with register's `realm_user_groups`.
 */
export async function notifySystemGroup(tx: Tx, realmId: number, event: ParleyEvent): Promise<void> {
  if (tx.featureLevel < SYSTEM_GROUPS_SHOWN_FROM) return;
  tx.notify(event, await users.listActiveIdsInRealm(tx.db, realmId), realmId);
}

/**
 * Zulip's create_system_user_groups_for_realm, for a new organization before its first
 * user: the eight groups, each role group a direct subgroup of the next, every group's
 * can_mention_group role:nobody. No event: nobody can be listening yet.
 */
export async function doCreateSystemGroups(tx: Tx, realmId: number): Promise<void> {
  const ids = new Map<string, number>();
  for (const g of SYSTEM_GROUPS) {
    const row = await userGroups.insert(tx.db, { realm_id: realmId, name: g.name, description: g.description, is_system_group: 1, can_mention_group_id: null });
    ids.set(g.name, row.id);
  }
  await userGroups.setCanMentionGroup(tx.db, [...ids.values()], ids.get(SystemGroup.NOBODY)!);
  const chain = SYSTEM_GROUPS.slice(1).map((g) => ids.get(g.name)!);
  for (let i = 0; i + 1 < chain.length; i++) await userGroups.insertSubgroups(tx.db, chain[i + 1]!, [chain[i]!]);
}

/**
 * A user's direct system groups made to match their role (Zulip's do_create_user and
 * do_change_user_role): left groups first (`remove_members`), then joined ones
 * (`add_members`), one event per group. The organization's system bots belong to none.
 */
export async function doSyncSystemGroups(tx: Tx, user: Pick<UserRow, 'id' | 'realm_id' | 'role' | 'date_joined' | 'is_system_bot'>): Promise<void> {
  if (user.is_system_bot === 1) return;
  const byName = await userGroups.systemGroupsByName(tx.db, user.realm_id);
  // An organization without system groups (none should remain after migration 040) is left alone.
  if (byName.size === 0) return;
  const realm = await realms.findById(tx.db, user.realm_id);
  const waiting = realm ? realmSettings(realm.settings).waiting_period_threshold : 0;
  const wanted = new Set(directSystemGroupsOf(user, waiting).map((name) => byName.get(name)!.id));
  const current = new Set(await userGroups.listSystemGroupIdsOfUser(tx.db, user.id));
  for (const id of [...current].filter((g) => !wanted.has(g)).sort((a, b) => b - a)) {
    await userGroups.deleteMembers(tx.db, id, [user.id]);
    await notifySystemGroup(tx, user.realm_id, { type: 'user_group', op: 'remove_members', group_id: id, user_ids: [user.id] });
  }
  for (const id of [...wanted].filter((g) => !current.has(g)).sort((a, b) => b - a)) {
    await userGroups.insertMembers(tx.db, id, [user.id]);
    await notifySystemGroup(tx, user.realm_id, { type: 'user_group', op: 'add_members', group_id: id, user_ids: [user.id] });
  }
}
