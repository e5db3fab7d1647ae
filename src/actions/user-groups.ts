import type { Tx } from './transaction.js';
import type { RealmRow, UserGroupRow, UserRow } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { users } from '../store/repos/users.js';
import { CAN_MENTION_GROUP_ID_LEVEL, CAN_MENTION_GROUP_LEVEL, presentUserGroup, withoutInactive } from '../presenters/user-group.js';
import { accessGroupSettingValue } from '../access/group-setting.js';
import { sameGroupSettingValue, type GroupSettingChange, type GroupSettingValue } from '../lib/group-setting-value.js';
import { GROUP_CREATOR, GROUP_PERMISSION_SETTINGS, GROUP_PERMISSION_SETTING_LEVELS, type GroupPermissionSettingName } from '../lib/permission-settings.js';
import { USER_GROUP_SETTING_NAMES, userGroupSettingColumns, userGroupSettingValue } from '../lib/user-group-settings.js';
import { usersOfIds } from '../access/user-group.js';
import { withChannelAccessEvents } from './channel-access-events.js';
import { inactiveSettingMembers, recursiveSubgroups } from '../reads/user-groups.js';
import { previousSettingValueMismatched } from '../errors.js';
import { userGroupDeactivated } from '../errors.js';
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

/** Group settings to set, each checked against its config (accessGroupSettingValue) as `acting`. */
export type GroupSettingChanges = Partial<Record<GroupPermissionSettingName, GroupSettingChange>>;
/** A can_mention_group to set (kept for callers of the single setting). */
export interface CanMentionChange { acting: UserRow; change: GroupSettingChange }

/** The system group ids by name. */
async function systemIds(tx: Tx, realmId: number): Promise<Map<string, number>> {
  return new Map([...(await userGroups.systemGroupsByName(tx.db, realmId)).values()].map((g) => [g.name, g.id]));
}

export interface NewUserGroup {
  name: string; description: string; memberIds: number[]; acting: UserRow; settings?: GroupSettingChanges | undefined;
  /** Level 311: groups to be its direct subgroups (already checked). */
  subgroups?: UserGroupRow[] | undefined;
}

/**
 * POST /user_groups/create: the members are checked first, then the settings, then the name
 * (Zulip's order). A setting not given takes its default: the system group it names, or for
 * "group_creator" an anonymous group of the creator alone (Zulip 10). The creator and the
 * time are kept (level 292). From level 303 deactivated users may not be members.
 */
export async function doCreateUserGroup(tx: Tx, realm: RealmRow, req: NewUserGroup): Promise<UserGroupRow> {
  const members = await usersOfIds(tx.db, realm.id, req.memberIds, tx.featureLevel >= DEACTIVATED_NOT_MEMBERS_LEVEL);
  const system = await systemIds(tx, realm.id);
  let columns: Partial<UserGroupRow> = {};
  for (const name of USER_GROUP_SETTING_NAMES) {
    const asked = req.settings?.[name];
    const config = GROUP_PERMISSION_SETTINGS[name];
    let value: GroupSettingValue | undefined;
    if (asked) value = await accessGroupSettingValue(tx.db, req.acting, asked.new, name, config, tx.featureLevel);
    else if (config.default_group_name === GROUP_CREATOR) value = { direct_members: [req.acting.id], direct_subgroups: [] };
    else value = system.get(config.default_group_name);
    if (value !== undefined) columns = { ...columns, ...userGroupSettingColumns(name, value) };
  }
  await checkNameFree(tx, realm.id, req.name);
  const group = await userGroups.insert(tx.db, {
    realm_id: realm.id, name: req.name, description: req.description, can_mention_group_id: null, ...columns,
    creator_id: req.acting.id, date_created: Math.floor(Date.now() / 1000),
  });
  const ids = members.map((u) => u.id);
  await userGroups.insertMembers(tx.db, group.id, ids);
  await notifyGroup(tx, realm.id, { type: 'user_group', op: 'add', group: presentUserGroup(group, ids, [], tx.featureLevel, system) });
  if (req.subgroups && req.subgroups.length > 0) await doAddUserGroupSubgroups(tx, group, req.subgroups);
  return group;
}

/** Level 303: deactivated users are no members (not shown, not added). */
export const DEACTIVATED_NOT_MEMBERS_LEVEL = 303;

/** The event key of a setting at a level: none below the level that added it; can_mention_group_id at 191-197. */
function settingEventKey(name: GroupPermissionSettingName, level: number): string | undefined {
  if (name === 'can_mention_group') return level >= CAN_MENTION_GROUP_LEVEL ? 'can_mention_group' : level >= CAN_MENTION_GROUP_ID_LEVEL ? 'can_mention_group_id' : undefined;
  return level >= GROUP_PERMISSION_SETTING_LEVELS[name] ? name : undefined;
}

/** PATCH /user_groups/{id}: one `update` event per field that changed, as Zulip sends them. */
export async function doUpdateUserGroup(tx: Tx, group: UserGroupRow, change: {
  name?: string | undefined; description?: string | undefined; acting?: UserRow | undefined; settings?: GroupSettingChanges | undefined;
}): Promise<void> {
  if (change.name !== undefined && change.name !== group.name) {
    await checkNameFree(tx, group.realm_id, change.name);
    await userGroups.update(tx.db, group.id, { name: change.name });
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { name: change.name } });
  }
  if (change.description !== undefined && change.description !== group.description) {
    await userGroups.update(tx.db, group.id, { description: change.description });
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { description: change.description } });
  }
  const system = await systemIds(tx, group.realm_id);
  for (const name of USER_GROUP_SETTING_NAMES) {
    const asked = change.settings?.[name];
    if (!asked || !change.acting) continue;
    const current = userGroupSettingValue(group, name, system);
    // Zulip's validate_group_setting_value_change: a stale `old` (level 260) refuses the edit; the same value changes nothing.
    if (asked.old !== undefined && !sameGroupSettingValue(asked.old, current)) throw previousSettingValueMismatched();
    if (sameGroupSettingValue(asked.new, current)) continue;
    const chosen = await accessGroupSettingValue(tx.db, change.acting, asked.new, name, GROUP_PERMISSION_SETTINGS[name], tx.featureLevel);
    await userGroups.update(tx.db, group.id, userGroupSettingColumns(name, chosen));
    const key = settingEventKey(name, tx.featureLevel);
    if (key) await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { [key]: chosen } });
  }
}

/**
 * POST /user_groups/{id}/deactivate (level 290; Zulip's do_deactivate_user_group): an
 * `update` event with `deactivated`, which clients not shown deactivated groups hear as a
 * `remove` (src/events/personalize.ts).
 */
export async function doDeactivateUserGroup(tx: Tx, group: UserGroupRow): Promise<void> {
  if (group.deactivated === 1) throw userGroupDeactivated();
  await withChannelAccessEvents(tx, group.realm_id, async () => {
    await userGroups.update(tx.db, group.id, { deactivated: 1 });
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: true } });
  });
}

export async function doDeleteUserGroup(tx: Tx, group: UserGroupRow): Promise<void> {
  await withChannelAccessEvents(tx, group.realm_id, async () => {
    await userGroups.delete(tx.db, group.id);
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'remove', group_id: group.id });
  });
}

/** Adding people already in the group, or removing people not in it, refuses the whole request. */
export async function doAddUserGroupMembers(tx: Tx, group: UserGroupRow, ids: number[]): Promise<void> {
  const added = (await usersOfIds(tx.db, group.realm_id, ids, tx.featureLevel >= DEACTIVATED_NOT_MEMBERS_LEVEL)).map((u) => u.id);
  const current = new Set(await userGroups.listMemberIds(tx.db, group.id));
  const already = added.find((id) => current.has(id));
  if (already !== undefined) throw alreadyGroupMember(already);
  await withChannelAccessEvents(tx, group.realm_id, async () => {
    await userGroups.insertMembers(tx.db, group.id, added);
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'add_members', group_id: group.id, user_ids: added });
  });
}

export async function doRemoveUserGroupMembers(tx: Tx, group: UserGroupRow, ids: number[]): Promise<void> {
  const removed = (await usersOfIds(tx.db, group.realm_id, ids, tx.featureLevel >= DEACTIVATED_NOT_MEMBERS_LEVEL)).map((u) => u.id);
  const current = new Set(await userGroups.listMemberIds(tx.db, group.id));
  const stranger = ids.find((id) => !current.has(id));
  if (stranger !== undefined) throw notGroupMember(stranger);
  await withChannelAccessEvents(tx, group.realm_id, async () => {
    await userGroups.deleteMembers(tx.db, group.id, removed);
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'remove_members', group_id: group.id, user_ids: removed });
  });
}


/**
 * POST /user_groups/{id}/subgroups `add` (feature level 127), Zulip's checks in order: a
 * group already a direct subgroup is named, then a group that is this one or has it below
 * (the change would make a cycle) refuses the request with this group's id.
 */
export async function doAddUserGroupSubgroups(tx: Tx, group: UserGroupRow, subgroups: UserGroupRow[]): Promise<void> {
  // Zulip's has_user_group_access_for_subgroup: a deactivated group is no one's subgroup.
  if (subgroups.some((g) => g.deactivated === 1)) throw userGroupDeactivated();
  const current = new Set(await userGroups.listDirectSubgroupIds(tx.db, group.id));
  const already = subgroups.find((g) => current.has(g.id));
  if (already) throw alreadySubgroup(already.id);
  const ids = subgroups.map((g) => g.id);
  const edges = await userGroups.listSubgroupEdgesByRealm(tx.db, group.realm_id);
  if (recursiveSubgroups(edges, ids).has(group.id)) throw subgroupCycle(group.id);
  await withChannelAccessEvents(tx, group.realm_id, async () => {
    await userGroups.insertSubgroups(tx.db, group.id, ids);
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: ids });
  });
}

/** POST /user_groups/{id}/subgroups `delete`: each group must be a direct subgroup. */
export async function doRemoveUserGroupSubgroups(tx: Tx, group: UserGroupRow, subgroups: UserGroupRow[]): Promise<void> {
  const current = new Set(await userGroups.listDirectSubgroupIds(tx.db, group.id));
  const stranger = subgroups.find((g) => !current.has(g.id));
  if (stranger) throw notSubgroup(stranger.id);
  const ids = subgroups.map((g) => g.id);
  await withChannelAccessEvents(tx, group.realm_id, async () => {
    await userGroups.deleteSubgroups(tx.db, group.id, ids);
    await notifyGroup(tx, group.realm_id, { type: 'user_group', op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: ids });
  });
}

/**
 * Level 303: a deactivated user is no group's member, and comes back to the groups they
 * were in when reactivated (the memberships are kept; reads leave them out). One
 * `remove_members` / `add_members` per group, as Zulip 10 sends them, to the active users.
 */
export async function notifyGroupsOfUserActivation(tx: Tx, user: Pick<UserRow, 'id' | 'realm_id'>, active: boolean): Promise<void> {
  if (tx.featureLevel < DEACTIVATED_NOT_MEMBERS_LEVEL) return;
  const groupIds = await userGroups.listGroupIdsOfUser(tx.db, user.id);
  const audience = (await users.listActiveIdsInRealm(tx.db, user.realm_id)).filter((id) => id !== user.id);
  for (const group_id of groupIds) {
    tx.notify({ type: 'user_group', op: active ? 'add_members' : 'remove_members', group_id, user_ids: [user.id] }, audience, user.realm_id);
  }
  // Anonymous setting values naming the user change as shown (Zulip's send_update_events_for_anonymous_group_settings).
  const all = await userGroups.listByRealm(tx.db, user.realm_id);
  const system = new Map(all.filter((g) => g.is_system_group === 1).map((g) => [g.name, g.id]));
  const inactive = await inactiveSettingMembers(tx.db, all);
  for (const g of all) {
    for (const name of USER_GROUP_SETTING_NAMES) {
      const raw = name === 'can_mention_group' ? g.can_mention_group_anon : g[name];
      if (raw === null) continue;
      const v = userGroupSettingValue(g, name, system);
      const key = settingEventKey(name, tx.featureLevel);
      if (typeof v === 'number' || !v.direct_members.includes(user.id) || !key) continue;
      tx.notify({ type: 'user_group', op: 'update', group_id: g.id, data: { [key]: withoutInactive(v, inactive) } }, audience, user.realm_id);
    }
  }
}
