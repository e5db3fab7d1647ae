import { pathInt, type Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { accessUserGroupById, checkCanEditUserGroups, requireMemberOrAdmin } from '../../access/user-group.js';
import { doAddUserGroupMembers, doCreateUserGroup, doDeleteUserGroup, doRemoveUserGroupMembers, doUpdateUserGroup } from '../../actions/user-groups.js';
import { realmUserGroups, userGroupMemberIds } from '../../reads/user-groups.js';
import { groupNothingToDo, noNewData } from '../../errors.js';

// As Zulip: the edit permission (user_group_edit_policy) is checked before the parameters.
export const userGroupRoutes: Route[] = [
  {
    method: 'GET', path: '/user_groups', auth: 'user',
    handler: async (r) => ({ user_groups: await realmUserGroups(r.ctx.store.db, r.realm.id) }),
  },
  {
    method: 'POST', path: '/user_groups/create', auth: 'user',
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const name = r.params.str('name');
      const memberIds = r.params.intList('members', LIST_LIMITS.users);
      const description = r.params.str('description');
      await transact(r.ctx, (tx) => doCreateUserGroup(tx, r.realm, { name, description, memberIds }));
      return {};
    },
  },
  {
    method: 'PATCH', path: '/user_groups/:user_group_id', auth: 'user',
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const id = pathInt(r, 'user_group_id');
      const name = r.params.str('name');
      const description = r.params.str('description');
      if (!name && !description) throw noNewData();
      // An empty name leaves the name as it is: a group is never renamed to nothing.
      await transact(r.ctx, async (tx) => doUpdateUserGroup(tx, await accessUserGroupById(tx.db, r.user, id), { name: name || undefined, description }));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/user_groups/:user_group_id', auth: 'user',
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const id = pathInt(r, 'user_group_id');
      await transact(r.ctx, async (tx) => doDeleteUserGroup(tx, await accessUserGroupById(tx.db, r.user, id)));
      return {};
    },
  },
  {
    method: 'POST', path: '/user_groups/:user_group_id/members', auth: 'user',
    handler: async (r) => {
      checkCanEditUserGroups(r.user, r.realm);
      const id = pathInt(r, 'user_group_id');
      const remove = r.params.optIntList('delete', LIST_LIMITS.users) ?? [];
      const add = r.params.optIntList('add', LIST_LIMITS.users) ?? [];
      if (add.length === 0 && remove.length === 0) throw groupNothingToDo();
      // Zulip composes the two in one transaction: adding first, then removing.
      await transact(r.ctx, async (tx) => {
        const group = await accessUserGroupById(tx.db, r.user, id);
        if (add.length > 0) await doAddUserGroupMembers(tx, group, add);
        if (remove.length > 0) await doRemoveUserGroupMembers(tx, group, remove);
      });
      return {};
    },
  },
  {
    method: 'GET', path: '/user_groups/:user_group_id/members', auth: 'user',
    handler: async (r) => {
      requireMemberOrAdmin(r.user);
      const id = pathInt(r, 'user_group_id');
      return { members: await userGroupMemberIds(r.ctx.store.db, await accessUserGroupById(r.ctx.store.db, r.user, id, true)) };
    },
  },
];
