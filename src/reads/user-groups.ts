import type { Q } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { presentUserGroup, type WireUserGroup } from '../presenters/user-group.js';

/** GET /user_groups and register's `realm_user_groups`: every group of the realm, by id. */
export async function realmUserGroups(q: Q, realmId: number): Promise<WireUserGroup[]> {
  const members = new Map<number, number[]>();
  for (const m of await userGroups.listMembershipsByRealm(q, realmId)) {
    let list = members.get(m.group_id);
    if (!list) members.set(m.group_id, (list = []));
    list.push(m.user_id);
  }
  return (await userGroups.listByRealm(q, realmId)).map((g) => presentUserGroup(g, members.get(g.id) ?? []));
}

/**
 * The groups `@*name*` mentions may name, by lowercased name, with their members: only
 * read when the content has a group mention at all.
 */
export async function mentionableGroups(q: Q, realmId: number): Promise<Map<string, WireUserGroup>> {
  return new Map((await realmUserGroups(q, realmId)).map((g) => [g.name.toLowerCase(), g]));
}

/** GET /user_groups/{id}/members: the group's members, ascending (all direct: Parley has no subgroups). */
export const userGroupMemberIds = (q: Q, group: { id: number }): Promise<number[]> => userGroups.listMemberIds(q, group.id);
