import { done, NoAnswer, pathInt, route, type AuthedRequest, type Route } from '../route.js';
import { AnyJson, Bool, Default, Int, IntList, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { decodeGroupSettingChange } from '../../lib/group-setting-value.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import type { Tx } from '../../actions/transaction.js';
import { accessUserGroupById, accessUserGroupsAsPotentialSubgroups, checkCanEditUserGroups, requireMemberOrAdmin } from '../../access/user-group.js';
import { accessUserGroupForUpdate, checkGroupWriteRequest, groupInUseObjections, GROUP_ACCESS_LEVEL, hasRealmGroupsPermission } from '../../access/user-group-update.js';
import { accessUserById } from '../../access/user.js';
import {
  DEACTIVATED_NOT_MEMBERS_LEVEL, doAddUserGroupMembers, doAddUserGroupSubgroups, doCreateUserGroup, doDeactivateUserGroup, doDeleteUserGroup,
  doRemoveUserGroupMembers, doRemoveUserGroupSubgroups, doUpdateUserGroup, type GroupSettingChanges,
} from '../../actions/user-groups.js';
import { activeUserIds, realmUserGroups, userGroupMemberIds, userGroupSubgroupIds } from '../../reads/user-groups.js';
import { USER_GROUP_SETTING_NAMES } from '../../lib/user-group-settings.js';
import type { GroupPermissionSettingName } from '../../lib/permission-settings.js';
import { GROUP_DEACTIVATION_LEVEL } from '../../presenters/user-group.js';
import { badRequest, cannotDeactivateGroupInUse, groupNothingToDo, insufficientPermission, noNewData } from '../../errors.js';
import { WireUserGroup } from '../../schemas/wire.js';

/**
 * The group settings, each a group-setting value: can_mention_group (feature level 198;
 * formerly can_mention_group_id, 191: the newer name wins), can_manage_group (283),
 * can_join_group (301), can_add_members_group (305), can_leave_group (308),
 * can_remove_members_group (324). A group id; from 258 or an anonymous group
 * `{direct_members, direct_subgroups}`; on PATCH from 260 `{new, old}` (a bare value is
 * still taken, at every level).
 */
const SETTING_PARAMS = {
  can_mention_group: Opt(AnyJson({ description: 'Feature level 198: the group whose members may mention this one (an id; from 258 or {direct_members, direct_subgroups}; PATCH from 260 {new, old})' })),
  can_mention_group_id: Opt(Int({ description: 'Feature level 191 (renamed can_mention_group at 198)' })),
  can_manage_group: Opt(AnyJson({ description: 'Feature level 283: who may manage the group (a group-setting value; PATCH {new, old})' })),
  can_join_group: Opt(AnyJson({ description: 'Feature level 301: who may join the group' })),
  can_add_members_group: Opt(AnyJson({ description: 'Feature level 305: who may add members to the group' })),
  can_leave_group: Opt(AnyJson({ description: 'Feature level 308: who may leave the group' })),
  can_remove_members_group: Opt(AnyJson({ description: 'Feature level 324: who may remove members from the group' })),
};
function settingParams(r: AuthedRequest<ArgsOf<typeof SETTING_PARAMS>>, withOld: boolean): GroupSettingChanges {
  const out: GroupSettingChanges = {};
  for (const name of USER_GROUP_SETTING_NAMES) {
    const raw = name === 'can_mention_group' ? r.args.can_mention_group ?? r.args.can_mention_group_id : r.args[name];
    if (raw === undefined) continue;
    // POST /user_groups/create takes a value, not a change.
    if (!withOld && typeof raw === 'object' && raw !== null && 'new' in raw) throw badRequest(`Invalid ${name}`);
    out[name] = decodeGroupSettingChange(name, raw);
  }
  return out;
}

/** Members or subgroups to add and to remove; Zulip reads `delete` before `add`. */
const ADD_DELETE = { delete: Opt(IntList(LIST_LIMITS.users)), add: Opt(IntList(LIST_LIMITS.users)) };

/** The edit permission, then the group's id, then the lists, in Zulip's order; at least one list not empty. */
function addAndDelete(r: AuthedRequest<ArgsOf<typeof ADD_DELETE>>): { id: number; add: number[]; remove: number[] } {
  checkGroupWriteRequest(r.user, r.realm, r.ctx.config.featureLevel);
  const id = pathInt(r, 'user_group_id');
  const remove = r.args.delete ?? [];
  const add = r.args.add ?? [];
  if (add.length === 0 && remove.length === 0) throw groupNothingToDo();
  return { id, add, remove };
}

/** Level 311: POST /user_groups/{id}/members also takes subgroups. */
const MEMBER_PARAMS = {
  ...ADD_DELETE,
  delete_subgroups: Opt(IntList(LIST_LIMITS.users, { description: 'Feature level 311: direct subgroups to remove' })),
  add_subgroups: Opt(IntList(LIST_LIMITS.users, { description: 'Feature level 311: groups to add as direct subgroups' })),
};

/** The user alone: joining or leaving, which can_join_group / can_leave_group also allow (levels 301, 308). */
const self = (r: AuthedRequest<unknown>, ids: number[]) => ids.length === 1 && ids[0] === r.user.id;

/** From level 303 deactivated users are no members. */
async function activeOnly(r: AuthedRequest<unknown>, ids: number[]): Promise<number[]> {
  if (r.ctx.config.featureLevel < DEACTIVATED_NOT_MEMBERS_LEVEL || ids.length === 0) return ids;
  return activeUserIds(r.ctx.store.db, ids);
}

/** Subgroups to add: each named group of the organization, then the group, then the additions (Zulip's order). */
async function addSubgroups(tx: Tx, r: AuthedRequest<unknown>, id: number, ids: number[], permission: GroupPermissionSettingName[]): Promise<void> {
  const subgroups = await accessUserGroupsAsPotentialSubgroups(tx.db, r.realm.id, ids);
  await doAddUserGroupSubgroups(tx, await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, permission, tx.featureLevel), subgroups);
}
async function removeSubgroups(tx: Tx, r: AuthedRequest<unknown>, id: number, ids: number[], permission: GroupPermissionSettingName[]): Promise<void> {
  const subgroups = await accessUserGroupsAsPotentialSubgroups(tx.db, r.realm.id, ids);
  await doRemoveUserGroupSubgroups(tx, await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, permission, tx.featureLevel), subgroups);
}

// As Zulip: the write permission is checked before the parameters.
export const userGroupRoutes: Route[] = [
  route({
    method: 'GET', path: '/user_groups', auth: 'user', summary: 'Get user groups', answer: Type.Object({ user_groups: Type.Array(WireUserGroup) }),
    params: { include_deactivated_groups: Default(Bool({ description: 'Feature level 294: include deactivated groups (always at 290-293)' }), false) },
    handler: async (r) => {
      const level = r.ctx.config.featureLevel;
      const withDeactivated = level >= 294 ? r.args.include_deactivated_groups : level >= GROUP_DEACTIVATION_LEVEL;
      return { user_groups: await realmUserGroups(r.ctx.store.db, r.realm.id, level, withDeactivated) };
    },
  }),
  route({
    method: 'POST', path: '/user_groups/create', auth: 'user', summary: 'Create a user group',
    answer: Type.Object({ group_id: Type.Optional(Type.Integer({ description: 'Feature level 317: the new group' })) }),
    params: {
      name: Str(), members: IntList(LIST_LIMITS.users), description: Str(), ...SETTING_PARAMS,
      subgroups: Opt(IntList(LIST_LIMITS.users, { description: 'Feature level 311: the direct subgroups of the new group' })),
    },
    handler: async (r) => {
      const level = r.ctx.config.featureLevel;
      checkGroupWriteRequest(r.user, r.realm, level);
      // Zulip 10's can_create_user_groups (level 299; the policy until the organization sets it).
      if (level >= GROUP_ACCESS_LEVEL && !await hasRealmGroupsPermission(r.ctx.store.db, r.realm, r.user, 'can_create_groups')) throw insufficientPermission();
      const { name, members: memberIds, description } = r.args;
      const settings = settingParams(r, false);
      const group = await transact(r.ctx, async (tx) => {
        const made = await doCreateUserGroup(tx, r.realm, { name, description, memberIds, acting: r.user, settings });
        // The creator may add subgroups whatever the group's settings (Zulip's creating_group).
        if (r.args.subgroups && r.args.subgroups.length > 0) {
          await doAddUserGroupSubgroups(tx, made, await accessUserGroupsAsPotentialSubgroups(tx.db, r.realm.id, r.args.subgroups));
        }
        return made;
      });
      return level >= 317 ? { group_id: group.id } : {};
    },
  }),
  route({
    method: 'PATCH', path: '/user_groups/:user_group_id', auth: 'user', summary: 'Update a user group', answer: NoAnswer,
    // Both optional since feature level 165 (required before it); Zulip reads them before the group.
    params: { name: Opt(Str({ description: 'Empty or absent to keep the name' })), description: Opt(Str({ description: 'Absent to keep the description' })), ...SETTING_PARAMS },
    handler: async (r) => {
      const level = r.ctx.config.featureLevel;
      checkGroupWriteRequest(r.user, r.realm, level);
      const id = pathInt(r, 'user_group_id');
      const { name, description } = r.args;
      const settings = settingParams(r, true);
      if (!name && !description && Object.keys(settings).length === 0) throw noNewData();
      // From level 340 a deactivated group's name, description and settings may still change.
      return done(transact(r.ctx, async (tx) => doUpdateUserGroup(tx,
        await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, ['can_manage_group'], level, level >= 340),
        // An empty name leaves the name as it is: a group is never renamed to nothing.
        { name: name || undefined, description, acting: r.user, settings })));
    },
  }),
  route({
    // Removed from the API at feature level 294 (groups are deactivated instead); kept for older clients.
    method: 'DELETE', path: '/user_groups/:user_group_id', auth: 'user', summary: 'Delete a user group', answer: NoAnswer,
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const id = pathInt(r, 'user_group_id');
      return done(transact(r.ctx, async (tx) => doDeleteUserGroup(tx, await accessUserGroupById(tx.db, r.user, id))));
    },
  }),
  route({
    method: 'POST', path: '/user_groups/:user_group_id/deactivate', auth: 'user', summary: 'Deactivate a user group', answer: NoAnswer,
    handler: async (r) => {
      const level = r.ctx.config.featureLevel;
      checkGroupWriteRequest(r.user, r.realm, level);
      const id = pathInt(r, 'user_group_id');
      return done(transact(r.ctx, async (tx) => {
        // Zulip's access_user_group_for_deactivation: may manage it, and nothing uses it (the error's code and objections from level 298).
        const group = await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, ['can_manage_group'], level);
        const objections = await groupInUseObjections(tx.db, r.realm, group);
        if (objections.length > 0) throw level >= 298 ? cannotDeactivateGroupInUse(objections) : badRequest('Cannot deactivate user group in use.');
        await doDeactivateUserGroup(tx, group);
      }));
    },
  }),
  route({
    method: 'POST', path: '/user_groups/:user_group_id/members', auth: 'user', summary: 'Update a user group\'s members', answer: NoAnswer, params: MEMBER_PARAMS,
    handler: async (r) => {
      const level = r.ctx.config.featureLevel;
      if (level < GROUP_ACCESS_LEVEL) {
        const { id, add, remove } = addAndDelete(r);
        // Zulip composes the two in one transaction: adding first, then removing.
        return done(transact(r.ctx, async (tx) => {
          const group = await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, ['can_manage_group'], level);
          if (add.length > 0) await doAddUserGroupMembers(tx, group, add);
          if (remove.length > 0) await doRemoveUserGroupMembers(tx, group, remove);
        }));
      }
      // Zulip 10's update_user_group_backend: each part checks the permission it needs.
      requireMemberOrAdmin(r.user);
      const id = pathInt(r, 'user_group_id');
      const add = r.args.add ?? [];
      const remove = r.args.delete ?? [];
      const addSub = r.args.add_subgroups ?? [];
      const removeSub = r.args.delete_subgroups ?? [];
      if (add.length + remove.length + addSub.length + removeSub.length === 0) {
        throw level >= 311 ? badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".') : groupNothingToDo();
      }
      return done(transact(r.ctx, async (tx) => {
        if (add.length > 0) {
          const perms: GroupPermissionSettingName[] = self(r, add) ? ['can_join_group', 'can_add_members_group'] : ['can_add_members_group'];
          await doAddUserGroupMembers(tx, await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, perms, level), add);
        }
        if (remove.length > 0) {
          const perms: GroupPermissionSettingName[] = self(r, remove) ? ['can_leave_group', 'can_remove_members_group'] : ['can_remove_members_group'];
          await doRemoveUserGroupMembers(tx, await accessUserGroupForUpdate(tx.db, r.realm, r.user, id, perms, level), remove);
        }
        if (addSub.length > 0) await addSubgroups(tx, r, id, addSub, ['can_add_members_group']);
        if (removeSub.length > 0) await removeSubgroups(tx, r, id, removeSub, ['can_remove_members_group']);
      }));
    },
  }),
  route({
    method: 'GET', path: '/user_groups/:user_group_id/members', auth: 'user', summary: 'Get a user group\'s members', requires: 'member',
    // Members of subgroups count unless `direct_member_only` (feature level 127).
    params: { direct_member_only: Default(Bool(), false) },
    answer: Type.Object({ members: Type.Array(Type.Integer()) }),
    handler: async (r) => {
      const id = pathInt(r, 'user_group_id');
      const group = await accessUserGroupById(r.ctx.store.db, r.user, id, true);
      return { members: await activeOnly(r, await userGroupMemberIds(r.ctx.store.db, group, r.args.direct_member_only)) };
    },
  }),
  route({
    method: 'GET', path: '/user_groups/:user_group_id/members/:user_id', auth: 'user', summary: 'Get the status of membership of a user group', requires: 'member',
    params: { direct_member_only: Default(Bool(), false) },
    answer: Type.Object({ is_user_group_member: Type.Boolean() }),
    handler: async (r) => {
      const db = r.ctx.store.db;
      // Zulip's order: the group, then the user (access_user_by_id: no bots, no deactivated users).
      const group = await accessUserGroupById(db, r.user, pathInt(r, 'user_group_id'), true);
      const target = await accessUserById(db, r.user, pathInt(r, 'user_id'));
      return { is_user_group_member: (await userGroupMemberIds(db, group, r.args.direct_member_only)).includes(target.id) };
    },
  }),
  route({
    method: 'POST', path: '/user_groups/:user_group_id/subgroups', auth: 'user', summary: 'Update subgroups of a user group', answer: NoAnswer, params: ADD_DELETE,
    handler: async (r) => {
      const { id, add, remove } = addAndDelete(r);
      // As Zulip's compose_views: adding, then removing, in one transaction; each part checks
      // the named subgroups before the group itself.
      return done(transact(r.ctx, async (tx) => {
        if (add.length > 0) await addSubgroups(tx, r, id, add, ['can_add_members_group']);
        if (remove.length > 0) await removeSubgroups(tx, r, id, remove, ['can_remove_members_group']);
      }));
    },
  }),
  route({
    method: 'GET', path: '/user_groups/:user_group_id/subgroups', auth: 'user', summary: 'Get subgroups of a user group', requires: 'member',
    params: { direct_subgroup_only: Default(Bool(), false) }, answer: Type.Object({ subgroups: Type.Array(Type.Integer()) }),
    handler: async (r) => {
      const group = await accessUserGroupById(r.ctx.store.db, r.user, pathInt(r, 'user_group_id'), true);
      return { subgroups: await userGroupSubgroupIds(r.ctx.store.db, group, r.args.direct_subgroup_only) };
    },
  }),
];
