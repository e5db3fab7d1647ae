import type { Q, UserGroupRow } from '../store/rows.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import { COLUMN_GROUP_SETTINGS } from '../lib/user-group-settings.js';
import { userGroups } from '../store/repos/user-groups.js';
import { users } from '../store/repos/users.js';
import { presentUserGroup, type WireUserGroup } from '../presenters/user-group.js';
import { SYSTEM_GROUPS_SHOWN_FROM } from '../lib/system-groups.js';
import { recursiveSubgroups } from '../lib/group-graph.js';
import { cachedRead } from '../cache/index.js';
import { shareSerialization } from '../presenters/shared-json.js';

export { recursiveSubgroups };

type Edge = { supergroup_id: number; subgroup_id: number };

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  list.push(value);
}

/** Direct subgroups by supergroup, from the realm's edges. */
function childrenOf(edges: readonly Edge[]): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const e of edges) push(children, e.supergroup_id, e.subgroup_id);
  return children;
}

/**
 * GET /user_groups and register's `realm_user_groups`: every group of the realm, by id;
 * system groups only from SYSTEM_GROUPS_SHOWN_FROM (`featureLevel` undefined: all of them,
 * for Parley's own reads).
 */
export async function realmUserGroups(q: Q, realmId: number, featureLevel?: number, includeDeactivated = false): Promise<WireUserGroup[]> {
  const members = new Map<number, number[]>();
  // From level 303 deactivated users are no members.
  const memberships = featureLevel !== undefined && featureLevel >= 303
    ? await userGroups.listActiveMembershipsByRealm(q, realmId) : await userGroups.listMembershipsByRealm(q, realmId);
  for (const m of memberships) push(members, m.group_id, m.user_id);
  const subgroups = childrenOf(await userGroups.listSubgroupEdgesByRealm(q, realmId));
  const hideSystem = featureLevel !== undefined && featureLevel < SYSTEM_GROUPS_SHOWN_FROM;
  const all = await userGroups.listByRealm(q, realmId);
  const system = new Map(all.filter((g) => g.is_system_group === 1).map((g) => [g.name, g.id]));
  // Deactivated groups (level 290) only for those who ask (Zulip's include_deactivated_groups, 294).
  const inactive = featureLevel !== undefined && featureLevel >= 303 ? await inactiveSettingMembers(q, all) : new Set<number>();
  return all.filter((g) => !(hideSystem && g.is_system_group === 1) && (includeDeactivated || g.deactivated !== 1))
    .map((g) => presentUserGroup(g, members.get(g.id) ?? [], subgroups.get(g.id) ?? [], featureLevel, system, inactive));
}

/**
 * register's `realm_user_groups`: the same for everyone of the organization, so made once per
 * change of a group or a user (level 303 leaves deactivated users out). Shared, never modified.
 */
export const registerUserGroups = (q: Q, realmId: number, featureLevel: number, includeDeactivated: boolean): Promise<readonly WireUserGroup[]> =>
  cachedRead(q, (c) => c.registerUserGroups, `${realmId}:${featureLevel}:${includeDeactivated}`,
    async () => shareSerialization(await realmUserGroups(q, realmId, featureLevel, includeDeactivated)));

/** The deactivated users among the direct members of the groups' anonymous setting values (one query, only when there are any). */
export async function inactiveSettingMembers(q: Q, groups: readonly UserGroupRow[]): Promise<Set<number>> {
  const ids = new Set<number>();
  for (const g of groups) {
    for (const raw of [g.can_mention_group_anon, ...COLUMN_GROUP_SETTINGS.map((n) => g[n])]) {
      if (raw === null) continue;
      const v = JSON.parse(raw) as GroupSettingValue;
      if (typeof v !== 'number') for (const id of v.direct_members) ids.add(id);
    }
  }
  if (ids.size === 0) return ids;
  return new Set((await users.listByIds(q, [...ids])).filter((u) => u.is_active !== 1).map((u) => u.id));
}

/**
 * The groups `@*name*` mentions may name, by lowercased name, with their members: only
 * read when the content has a group mention at all. A mention reaches the members of the
 * group's subgroups too (Zulip's MentionData, recursive since subgroups exist).
 */
export async function mentionableGroups(q: Q, realmId: number, withSystemGroups = false): Promise<Map<string, WireUserGroup>> {
  const all = await realmUserGroups(q, realmId);
  const edges = await userGroups.listSubgroupEdgesByRealm(q, realmId);
  const byId = new Map(all.map((g) => [g.id, g]));
  // As Zulip's MentionData: system groups are not looked up, except from level 333 for a
  // silent mention (the markdown refuses them in a plain one).
  return new Map(all.filter((g) => withSystemGroups || !g.is_system_group).map((g) => {
    if (g.direct_subgroup_ids.length === 0) return [g.name.toLowerCase(), g];
    const members = new Set<number>();
    for (const id of recursiveSubgroups(edges, [g.id])) for (const m of byId.get(id)?.members ?? []) members.add(m);
    return [g.name.toLowerCase(), { ...g, members: [...members].sort((a, b) => a - b) }];
  }));
}

/** GET /user_groups/{id}/subgroups: direct only, or every group below (the group itself excluded), ascending. */
export async function userGroupSubgroupIds(q: Q, group: { id: number; realm_id: number }, directOnly: boolean): Promise<number[]> {
  if (directOnly) return userGroups.listDirectSubgroupIds(q, group.id);
  const below = recursiveSubgroups(await userGroups.listSubgroupEdgesByRealm(q, group.realm_id), [group.id]);
  below.delete(group.id);
  return [...below].sort((a, b) => a - b);
}

/**
 * GET /user_groups/{id}/members: the direct members, or (Zulip's default since level 127)
 * the members of the group and of all its subgroups; ascending, each once.
 */
export async function userGroupMemberIds(q: Q, group: { id: number; realm_id: number }, directOnly = false): Promise<number[]> {
  if (directOnly) return userGroups.listMemberIds(q, group.id);
  const ids = recursiveSubgroups(await userGroups.listSubgroupEdgesByRealm(q, group.realm_id), [group.id]);
  if (ids.size === 1) return userGroups.listMemberIds(q, group.id);
  const members = new Set((await userGroups.listMembershipsByRealm(q, group.realm_id)).filter((m) => ids.has(m.group_id)).map((m) => m.user_id));
  return [...members].sort((a, b) => a - b);
}

/** The ids of active users among these, in their order. */
export async function activeUserIds(q: Q, ids: number[]): Promise<number[]> {
  const active = new Set((await users.listByIds(q, ids)).filter((u) => u.is_active === 1).map((u) => u.id));
  return ids.filter((id) => active.has(id));
}
