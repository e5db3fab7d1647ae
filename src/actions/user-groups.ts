import type { Tx } from './transaction.js';
import { SystemGroup } from '../lib/system-groups.js';
import type { RealmRow, UserGroupRow, UserRow } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { users } from '../store/repos/users.js';
import { CAN_MENTION_GROUP_ID_LEVEL, CAN_MENTION_GROUP_LEVEL, presentUserGroup } from '../presenters/user-group.js';
import { accessGroupSettingValue } from '../access/group-setting.js';
import { canMentionValue, sameGroupSettingValue, type GroupSettingChange, type GroupSettingValue } from '../lib/group-setting-value.js';
import { GROUP_PERMISSION_SETTINGS } from '../lib/permission-settings.js';
import { usersOfIds } from '../access/user-group.js';
import { recursiveSubgroups } from '../reads/user-groups.js';
import { previousSettingValueMismatched } from '../errors.js';
import { alreadyGroupMember, alreadySubgroup, notGroupMember, notSubgroup, subgroupCycle, userGroupExists, userGroupNameTooLong } from '../errors.js';

/**
 * User groups, as Zulip 5's actions: each change is one `user_group` event heard by every
 * active user of the organization (groups are public within it).
 */
const MAX_NAME_LENGTH = 100;

async function notifyGroup(tx: Tx, realmId: number, event: Parameters<Tx['notify']>[0]): Promise<void> {
  tx.notify(event, await users.listActiveIdsInRealm(tx.db, realmId), realmId);
}

async function checkNameFree(tx: Tx, realmId: number, name: string): Promise<void> {
  if (name.length > MAX_NAME_LENGTH) throw userGroupNameTooLong(MAX_NAME_LENGTH);
  if (await userGroups.findByName(tx.db, realmId, name)) throw userGroupExists(name);
}

/** A can_mention_group to set: the value is checked against the setting (accessGroupSettingValue) as `acting`. */
export interface CanMentionChange { acting: UserRow; change: GroupSettingChange }

/** The columns that hold a stored group-setting value. */
const canMentionColumns = (v: GroupSettingValue) => (typeof v === 'number'
  ? { can_mention_group_id: v, can_mention_group_anon: null }
  : { can_mention_group_id: null, can_mention_group_anon: JSON.stringify(v) });

export interface NewUserGroup { name: string; description: string; memberIds: number[]; canMention?: CanMentionChange | undefined }

/** POST /user_groups/create: the members are checked first, then the name (Zulip's order). */
export async function doCreateUserGroup(tx: Tx, realm: RealmRow, req: NewUserGroup): Promise<UserGroupRow> {
  const members = await usersOfIds(tx.db, realm.id, req.memberIds);
  const chosen = req.canMention && await accessGroupSettingValue(tx.db, req.canMention.acting, req.canMention.change.new, 'can_mention_group', GROUP_PERMISSION_SETTINGS.can_mention_group);
  await checkNameFree(tx, realm.id, req.name);
  // Zulip's default for can_mention_group (level 191): role:everyone.
  const everyone = (await userGroups.systemGroupsByName(tx.db, realm.id)).get(SystemGroup.EVERYONE);
  const value = chosen ?? everyone?.id;
  const group = await userGroups.insert(tx.db, {
    realm_id: realm.id, name: req.name, description: req.description, ...(value === undefined ? { can_mention_group_id: null } : canMentionColumns(value)),
  });
  const ids = members.map((u) => u.id);
  await userGroups.insertMembers(tx.db, group.id, ids);
  await notifyGroup(tx, realm.id, { type: 'user_group', op: 'add', group: presentUserGroup(group, ids, [], tx.featureLevel) });
  return group;
}

/** PATCH /user_groups/{id}: one `update` event per field that changed, as Zulip sends them. */
export async function doUpdateUserGroup(tx: Tx, group: UserGroupRow, change: { name?: string | undefined; description?: string | undefined; canMention?: CanMentionChange | undefined }): Promise<void> {
  if (change.name !== undefined && change.name !== group.name) {
    await checkNameFree(tx, group.realm_id, change.name);
    await userGroups.update(tx.db, group.id, { name: change.name });
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { name: change.name } });
  }
  if (change.description !== undefined && change.description !== group.description) {
    await userGroups.update(tx.db, group.id, { description: change.description });
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { description: change.description } });
  }
  const mention = change.canMention;
  const current = canMentionValue(group);
  // Zulip's validate_group_setting_value_change: a stale `old` (level 260) refuses the edit; the same value changes nothing.
  if (mention?.change.old !== undefined && (current === null || !sameGroupSettingValue(mention.change.old, current))) throw previousSettingValueMismatched();
  if (mention && (current === null || !sameGroupSettingValue(mention.change.new, current))) {
    const chosen = await accessGroupSettingValue(tx.db, mention.acting, mention.change.new, 'can_mention_group', GROUP_PERMISSION_SETTINGS.can_mention_group);
    await userGroups.update(tx.db, group.id, canMentionColumns(chosen));
    // Named as the level names the field (can_mention_group_id before 198); no event below 191, where groups do not carry it.
    const key = tx.featureLevel >= CAN_MENTION_GROUP_LEVEL ? 'can_mention_group' : tx.featureLevel >= CAN_MENTION_GROUP_ID_LEVEL ? 'can_mention_group_id' : undefined;
    if (key) await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { [key]: chosen } });
  }
}

export async function doDeleteUserGroup(tx: Tx, group: UserGroupRow): Promise<void> {
  await userGroups.delete(tx.db, group.id);
  await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'remove', group_id: group.id });
}

/** Adding people already in the group, or removing people not in it, refuses the whole request. */
export async function doAddUserGroupMembers(tx: Tx, group: UserGroupRow, ids: number[]): Promise<void> {
  const added = (await usersOfIds(tx.db, group.realm_id, ids)).map((u) => u.id);
  const current = new Set(await userGroups.listMemberIds(tx.db, group.id));
  const already = added.find((id) => current.has(id));
  if (already !== undefined) throw alreadyGroupMember(already);
  await userGroups.insertMembers(tx.db, group.id, added);
  await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'add_members', group_id: group.id, user_ids: added });
}

export async function doRemoveUserGroupMembers(tx: Tx, group: UserGroupRow, ids: number[]): Promise<void> {
  const removed = (await usersOfIds(tx.db, group.realm_id, ids)).map((u) => u.id);
  const current = new Set(await userGroups.listMemberIds(tx.db, group.id));
  const stranger = ids.find((id) => !current.has(id));
  if (stranger !== undefined) throw notGroupMember(stranger);
  await userGroups.deleteMembers(tx.db, group.id, removed);
  await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'remove_members', group_id: group.id, user_ids: removed });
}


/**
 * POST /user_groups/{id}/subgroups `add` (feature level 127), Zulip's checks in order: a
 * group already a direct subgroup is named, then a group that is this one or has it below
 * (the change would make a cycle) refuses the request with this group's id.
 */
export async function doAddUserGroupSubgroups(tx: Tx, group: UserGroupRow, subgroups: UserGroupRow[]): Promise<void> {
  const current = new Set(await userGroups.listDirectSubgroupIds(tx.db, group.id));
  const already = subgroups.find((g) => current.has(g.id));
  if (already) throw alreadySubgroup(already.id);
  const ids = subgroups.map((g) => g.id);
  const edges = await userGroups.listSubgroupEdgesByRealm(tx.db, group.realm_id);
  if (recursiveSubgroups(edges, ids).has(group.id)) throw subgroupCycle(group.id);
  await userGroups.insertSubgroups(tx.db, group.id, ids);
  await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: ids });
}

/** POST /user_groups/{id}/subgroups `delete`: each group must be a direct subgroup. */
export async function doRemoveUserGroupSubgroups(tx: Tx, group: UserGroupRow, subgroups: UserGroupRow[]): Promise<void> {
  const current = new Set(await userGroups.listDirectSubgroupIds(tx.db, group.id));
  const stranger = subgroups.find((g) => !current.has(g.id));
  if (stranger) throw notSubgroup(stranger.id);
  const ids = subgroups.map((g) => g.id);
  await userGroups.deleteSubgroups(tx.db, group.id, ids);
  await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: ids });
}
