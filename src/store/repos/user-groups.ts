import type { Q, UserGroupRow } from '../rows.js';
import { rowsWritten } from '../changes.js';

export const userGroups = {
  findInRealm: (q: Q, realmId: number, id: number): Promise<UserGroupRow | undefined> =>
    q.selectFrom('user_group').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst(),

  findByName: (q: Q, realmId: number, name: string): Promise<UserGroupRow | undefined> =>
    q.selectFrom('user_group').selectAll().where('realm_id', '=', realmId).where('name', '=', name).executeTakeFirst(),

  listByRealm: (q: Q, realmId: number): Promise<UserGroupRow[]> =>
    q.selectFrom('user_group').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  /** Every direct membership of the realm's groups. */
  listMembershipsByRealm: (q: Q, realmId: number): Promise<Array<{ group_id: number; user_id: number }>> =>
    q.selectFrom('user_group_member').innerJoin('user_group', 'user_group.id', 'user_group_member.group_id')
      .select(['user_group_member.group_id', 'user_group_member.user_id']).where('user_group.realm_id', '=', realmId).execute(),

  /** Every direct membership of the realm's groups by active users (level 303: deactivated users are no members). */
  listActiveMembershipsByRealm: (q: Q, realmId: number): Promise<Array<{ group_id: number; user_id: number }>> =>
    q.selectFrom('user_group_member').innerJoin('user_group', 'user_group.id', 'user_group_member.group_id')
      .innerJoin('users', 'users.id', 'user_group_member.user_id').where('users.is_active', '=', 1)
      .select(['user_group_member.group_id', 'user_group_member.user_id']).where('user_group.realm_id', '=', realmId).execute(),

  /** The groups the user is a direct member of, ascending. */
  listGroupIdsOfUser: async (q: Q, userId: number): Promise<number[]> =>
    (await q.selectFrom('user_group_member').select('group_id').where('user_id', '=', userId).orderBy('group_id').execute()).map((r) => r.group_id),

  /** The group's direct members, ascending. */
  listMemberIds: async (q: Q, groupId: number): Promise<number[]> =>
    (await q.selectFrom('user_group_member').select('user_id').where('group_id', '=', groupId).orderBy('user_id').execute()).map((r) => r.user_id),

  /** Every subgroup edge of the realm's groups (few: read whole, walked in memory). */
  listSubgroupEdgesByRealm: (q: Q, realmId: number): Promise<Array<{ supergroup_id: number; subgroup_id: number }>> =>
    q.selectFrom('user_group_subgroup').innerJoin('user_group', 'user_group.id', 'user_group_subgroup.supergroup_id')
      .select(['user_group_subgroup.supergroup_id', 'user_group_subgroup.subgroup_id']).where('user_group.realm_id', '=', realmId).execute(),

  /** The group's direct subgroups, ascending. */
  listDirectSubgroupIds: async (q: Q, groupId: number): Promise<number[]> =>
    (await q.selectFrom('user_group_subgroup').select('subgroup_id').where('supergroup_id', '=', groupId).orderBy('subgroup_id').execute()).map((r) => r.subgroup_id),

  listInRealmByIds: (q: Q, realmId: number, ids: number[]): Promise<UserGroupRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('user_group').selectAll().where('realm_id', '=', realmId).where('id', 'in', ids).orderBy('id').execute(),

  // Both no-ops for an empty list (an empty IN list is not valid SQL).
  insertSubgroups: async (q: Q, groupId: number, subgroupIds: number[]): Promise<void> => {
    if (subgroupIds.length === 0) return;
    await q.insertInto('user_group_subgroup').values(subgroupIds.map((subgroup_id) => ({ supergroup_id: groupId, subgroup_id }))).execute();
    rowsWritten(q, 'user_groups');
  },
  deleteSubgroups: async (q: Q, groupId: number, subgroupIds: number[]): Promise<void> => {
    if (subgroupIds.length === 0) return;
    await q.deleteFrom('user_group_subgroup').where('supergroup_id', '=', groupId).where('subgroup_id', 'in', subgroupIds).execute();
    rowsWritten(q, 'user_groups');
  },

  /** The organization's system groups by name (Zulip's get_role_based_system_groups_dict). */
  systemGroupsByName: async (q: Q, realmId: number): Promise<Map<string, UserGroupRow>> =>
    new Map((await q.selectFrom('user_group').selectAll().where('realm_id', '=', realmId).where('is_system_group', '=', 1).execute()).map((g) => [g.name, g])),

  /** Whether the user is a direct member of any of the groups. */
  isMemberOfAny: async (q: Q, userId: number, groupIds: number[]): Promise<boolean> => groupIds.length > 0
    && (await q.selectFrom('user_group_member').select('group_id').where('user_id', '=', userId).where('group_id', 'in', groupIds).limit(1).execute()).length > 0,

  /** The system groups the user is a direct member of. */
  listSystemGroupIdsOfUser: async (q: Q, userId: number): Promise<number[]> =>
    (await q.selectFrom('user_group_member').innerJoin('user_group', 'user_group.id', 'user_group_member.group_id')
      .select('user_group.id').where('user_group_member.user_id', '=', userId).where('user_group.is_system_group', '=', 1).execute()).map((r) => r.id),

  setCanMentionGroup: async (q: Q, ids: number[], groupId: number): Promise<void> => {
    if (ids.length === 0) return;
    await q.updateTable('user_group').set({ can_mention_group_id: groupId }).where('id', 'in', ids).execute();
    rowsWritten(q, 'user_groups');
  },

  insert: async (q: Q, row: { realm_id: number; name: string; description: string; is_system_group?: number; can_mention_group_id: number | null }
    & Partial<Omit<UserGroupRow, 'id' | 'realm_id' | 'name' | 'description' | 'is_system_group' | 'can_mention_group_id'>>): Promise<UserGroupRow> => {
    const made = await q.insertInto('user_group').values(row).returningAll().executeTakeFirstOrThrow();
    rowsWritten(q, 'user_groups');
    return made;
  },

  update: async (q: Q, id: number, change: Partial<Omit<UserGroupRow, 'id' | 'realm_id' | 'is_system_group'>>): Promise<void> => {
    await q.updateTable('user_group').set(change).where('id', '=', id).execute();
    rowsWritten(q, 'user_groups');
  },

  delete: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('user_group_member').where('group_id', '=', id).execute();
    // Its place as a subgroup goes too, as Zulip's GroupGroupMembership cascades.
    await q.deleteFrom('user_group_subgroup').where((w) => w.or([w('supergroup_id', '=', id), w('subgroup_id', '=', id)])).execute();
    await q.deleteFrom('user_group').where('id', '=', id).execute();
    rowsWritten(q, 'user_groups');
  },

  /** Active users of the role, joined at or before the time, who are not direct members of the group, by id. */
  listDueForGroup: async (q: Q, realmId: number, groupId: number, role: number, joinedBy: number): Promise<number[]> =>
    (await q.selectFrom('users').select('users.id').where('users.realm_id', '=', realmId).where('users.is_active', '=', 1)
      .where('users.role', '=', role).where('users.is_system_bot', '=', 0).where('users.date_joined', '<=', joinedBy)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('user_group_member').select('user_group_member.user_id')
        .where('user_group_member.group_id', '=', groupId).whereRef('user_group_member.user_id', '=', 'users.id'))))
      .orderBy('users.id').execute()).map((r) => r.id),

  /** Direct members of the group with the role who joined after the time, by id. */
  listJoinedAfterInGroup: async (q: Q, groupId: number, role: number, joinedAfter: number): Promise<number[]> =>
    (await q.selectFrom('user_group_member').innerJoin('users', 'users.id', 'user_group_member.user_id').select('users.id')
      .where('user_group_member.group_id', '=', groupId).where('users.role', '=', role).where('users.date_joined', '>', joinedAfter)
      .orderBy('users.id').execute()).map((r) => r.id),

  insertMembers: async (q: Q, groupId: number, userIds: number[]): Promise<void> => {
    if (userIds.length === 0) return;
    await q.insertInto('user_group_member').values(userIds.map((user_id) => ({ group_id: groupId, user_id }))).execute();
    rowsWritten(q, 'user_groups');
  },

  deleteMembers: async (q: Q, groupId: number, userIds: number[]): Promise<void> => {
    if (userIds.length === 0) return;
    await q.deleteFrom('user_group_member').where('group_id', '=', groupId).where('user_id', 'in', userIds).execute();
    rowsWritten(q, 'user_groups');
  },
};
