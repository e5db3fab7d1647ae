import { done, NoAnswer, pathInt, route, type AuthedRequest, type Route } from '../route.js';
import { AnyJson, Bool, Default, Int, IntList, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { decodeGroupSettingChange } from '../../lib/group-setting-value.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { accessUserGroupById, accessUserGroupsAsPotentialSubgroups, checkCanEditUserGroups } from '../../access/user-group.js';
import { accessUserById } from '../../access/user.js';
import {
  doAddUserGroupMembers, doAddUserGroupSubgroups, doCreateUserGroup, doDeleteUserGroup, doRemoveUserGroupMembers, doRemoveUserGroupSubgroups,
  doUpdateUserGroup, type CanMentionChange,
} from '../../actions/user-groups.js';
import { realmUserGroups, userGroupMemberIds, userGroupSubgroupIds } from '../../reads/user-groups.js';
import { badRequest, groupNothingToDo, noNewData } from '../../errors.js';
import { WireUserGroup } from '../../schemas/wire.js';

/**
 * can_mention_group (feature level 198), formerly can_mention_group_id (191): a group's id;
 * the newer name wins. From 258 an anonymous group `{direct_members, direct_subgroups}`; on
 * PATCH from 260 `{new, old}` (a bare value is still taken, at every level).
 */
const CAN_MENTION = {
  can_mention_group: Opt(AnyJson({ description: 'Feature level 198: the group whose members may mention this one (an id; from 258 or {direct_members, direct_subgroups}; PATCH from 260 {new, old})' })),
  can_mention_group_id: Opt(Int({ description: 'Feature level 191 (renamed can_mention_group at 198)' })),
};
function canMentionParam(r: AuthedRequest<ArgsOf<typeof CAN_MENTION>>, withOld: boolean): CanMentionChange | undefined {
  const raw = r.args.can_mention_group ?? r.args.can_mention_group_id;
  if (raw === undefined) return undefined;
  const change = decodeGroupSettingChange('can_mention_group', raw);
  // POST /user_groups/create takes a value, not a change.
  if (!withOld && typeof raw === 'object' && raw !== null && 'new' in raw) throw badRequest('Invalid can_mention_group');
  return { acting: r.user, change };
}

/** Members or subgroups to add and to remove; Zulip reads `delete` before `add`. */
const ADD_DELETE = { delete: Opt(IntList(LIST_LIMITS.users)), add: Opt(IntList(LIST_LIMITS.users)) };

/** The edit permission, then the group's id, then the lists, in Zulip's order; at least one list not empty. */
function addAndDelete(r: AuthedRequest<ArgsOf<typeof ADD_DELETE>>): { id: number; add: number[]; remove: number[] } {
  checkCanEditUserGroups(r.user, r.realm);
  const id = pathInt(r, 'user_group_id');
  const remove = r.args.delete ?? [];
  const add = r.args.add ?? [];
  if (add.length === 0 && remove.length === 0) throw groupNothingToDo();
  return { id, add, remove };
}

// As Zulip: the edit permission (user_group_edit_policy) is checked before the parameters.
export const userGroupRoutes: Route[] = [
  route({
    method: 'GET', path: '/user_groups', auth: 'user', summary: 'Get user groups', answer: Type.Object({ user_groups: Type.Array(WireUserGroup) }),
    handler: async (r) => ({ user_groups: await realmUserGroups(r.ctx.store.db, r.realm.id, r.ctx.config.featureLevel) }),
  }),
  route({
    method: 'POST', path: '/user_groups/create', auth: 'user', summary: 'Create a user group', answer: NoAnswer,
    params: { name: Str(), members: IntList(LIST_LIMITS.users), description: Str(), ...CAN_MENTION },
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const { name, members: memberIds, description } = r.args;
      const canMention = canMentionParam(r, false);
      return done(transact(r.ctx, (tx) => doCreateUserGroup(tx, r.realm, { name, description, memberIds, canMention })));
    },
  }),
  route({
    method: 'PATCH', path: '/user_groups/:user_group_id', auth: 'user', summary: 'Update a user group', answer: NoAnswer,
    // Both optional since feature level 165 (required before it); Zulip reads them before the group.
    params: { name: Opt(Str({ description: 'Empty or absent to keep the name' })), description: Opt(Str({ description: 'Absent to keep the description' })), ...CAN_MENTION },
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const id = pathInt(r, 'user_group_id');
      const { name, description } = r.args;
      const canMention = canMentionParam(r, true);
      if (!name && !description && canMention === undefined) throw noNewData();
      // An empty name leaves the name as it is: a group is never renamed to nothing.
      return done(transact(r.ctx, async (tx) => doUpdateUserGroup(tx, await accessUserGroupById(tx.db, r.user, id),
        { name: name || undefined, description, canMention })));
    },
  }),
  route({
    method: 'DELETE', path: '/user_groups/:user_group_id', auth: 'user', summary: 'Delete a user group', answer: NoAnswer,
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const id = pathInt(r, 'user_group_id');
      return done(transact(r.ctx, async (tx) => doDeleteUserGroup(tx, await accessUserGroupById(tx.db, r.user, id))));
    },
  }),
  route({
    method: 'POST', path: '/user_groups/:user_group_id/members', auth: 'user', summary: 'Update a user group\'s members', answer: NoAnswer, params: ADD_DELETE,
    handler: async (r) => {
      const { id, add, remove } = addAndDelete(r);
      // Zulip composes the two in one transaction: adding first, then removing.
      return done(transact(r.ctx, async (tx) => {
        const group = await accessUserGroupById(tx.db, r.user, id);
        if (add.length > 0) await doAddUserGroupMembers(tx, group, add);
        if (remove.length > 0) await doRemoveUserGroupMembers(tx, group, remove);
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
      return { members: await userGroupMemberIds(r.ctx.store.db, group, r.args.direct_member_only) };
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
        if (add.length > 0) {
          const subgroups = await accessUserGroupsAsPotentialSubgroups(tx.db, r.realm.id, add);
          await doAddUserGroupSubgroups(tx, await accessUserGroupById(tx.db, r.user, id), subgroups);
        }
        if (remove.length > 0) {
          const subgroups = await accessUserGroupsAsPotentialSubgroups(tx.db, r.realm.id, remove);
          await doRemoveUserGroupSubgroups(tx, await accessUserGroupById(tx.db, r.user, id), subgroups);
        }
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
