import type { Q, RealmRow, UserGroupRow, UserRow } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { streams } from '../store/repos/streams.js';
import { fitsIdColumn } from '../lib/ids.js';
import { realmSettings } from '../lib/realm-settings.js';
import {
  GROUP_PERMISSION_SETTINGS, GROUP_PERMISSION_SETTING_LEVELS, REALM_PERMISSION_SETTINGS, STREAM_PERMISSION_SETTINGS, type GroupPermissionSettingName,
} from '../lib/permission-settings.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import { canMentionValue } from '../lib/group-setting-value.js';
import { userGroupSettingValue, COLUMN_GROUP_SETTINGS } from '../lib/user-group-settings.js';
import { userHasGroupSettingValue } from './group-setting.js';
import { hasPolicyPermission } from './realm-policy.js';
import { accessUserGroupById, checkCanEditUserGroups, requireMemberOrAdmin } from './user-group.js';
import { cannotDeactivateGroupInUse, insufficientPermission, invalidUserGroup, userGroupDeactivated } from '../errors.js';

/**
 * From this feature level (can_manage_group) Parley checks group edits as Zulip 10 does
 * (access_user_group_for_update); below it, as Zulip 5 (user_group_edit_policy alone).
 */
export const GROUP_ACCESS_LEVEL = 283;

/**
 * The realm's can_create_groups / can_manage_all_groups (level 299). Until the organization
 * sets one it is what Zulip's migration made of user_group_edit_policy: the policy decides.
 */
export async function hasRealmGroupsPermission(q: Q, realm: RealmRow, user: UserRow, name: 'can_create_groups' | 'can_manage_all_groups'): Promise<boolean> {
  const stored = (JSON.parse(realm.settings || '{}') as Record<string, unknown>)[name];
  if (stored === undefined || stored === null) return hasPolicyPermission(user, realm, 'user_group_edit_policy');
  return userHasGroupSettingValue(q, user, stored as GroupSettingValue, REALM_PERMISSION_SETTINGS[name], realmSettings(realm.settings).waiting_period_threshold);
}

/** Whether the user passes one of the group's settings. */
export async function hasUserGroupSetting(q: Q, realm: RealmRow, user: UserRow, group: UserGroupRow, name: GroupPermissionSettingName): Promise<boolean> {
  const system = new Map([...(await userGroups.systemGroupsByName(q, realm.id)).values()].map((g) => [g.name, g.id]));
  return userHasGroupSettingValue(q, user, userGroupSettingValue(group, name, system), GROUP_PERMISSION_SETTINGS[name],
    realmSettings(realm.settings).waiting_period_threshold);
}

/**
 * The check a write request makes before its parameters: from GROUP_ACCESS_LEVEL that the
 * user is no guest or bot (Zulip 10's require_member_or_admin); below it, the edit policy too.
 */
export function checkGroupWriteRequest(user: UserRow, realm: RealmRow, featureLevel: number): void {
  if (featureLevel >= GROUP_ACCESS_LEVEL) requireMemberOrAdmin(user);
  else checkCanEditUserGroups(user, realm);
}

/**
 * Zulip 10's access_user_group_for_update: the organization's group (deactivated ones only
 * where allowed), never a system group; then who may: can_manage_all_groups, the group's
 * can_manage_group, or a setting the action takes (each only from the level that added it;
 * joining tries can_join_group then can_add_members_group, as Zulip's views do).
 * Below GROUP_ACCESS_LEVEL, Zulip 5's check (the policy was checked by checkGroupWriteRequest).
 */
export async function accessUserGroupForUpdate(q: Q, realm: RealmRow, user: UserRow, id: number, permissions: readonly GroupPermissionSettingName[],
  featureLevel: number, allowDeactivated = false): Promise<UserGroupRow> {
  if (featureLevel < GROUP_ACCESS_LEVEL) {
    const group = await accessUserGroupById(q, user, id);
    if (!allowDeactivated && group.deactivated === 1) throw userGroupDeactivated();
    return group;
  }
  const group = fitsIdColumn(id) ? await userGroups.findInRealm(q, realm.id, id) : undefined;
  if (!group) throw invalidUserGroup();
  if (!allowDeactivated && group.deactivated === 1) throw userGroupDeactivated();
  if (group.is_system_group === 1) throw insufficientPermission();
  // Those who may manage the group may do everything to it (join, leave, add and remove others).
  if (await hasRealmGroupsPermission(q, realm, user, 'can_manage_all_groups')) return group;
  if (await hasUserGroupSetting(q, realm, user, group, 'can_manage_group')) return group;
  for (const permission of permissions) {
    if (permission !== 'can_manage_group' && featureLevel >= GROUP_PERMISSION_SETTING_LEVELS[permission]
      && await hasUserGroupSetting(q, realm, user, group, permission)) return group;
  }
  throw insufficientPermission();
}

/** Whether a setting's value is the group or an anonymous group with it as a direct subgroup. */
function uses(value: unknown, groupId: number): boolean {
  if (value === groupId) return true;
  if (typeof value === 'string') {
    try { return uses(JSON.parse(value) as unknown, groupId); } catch { return false; }
  }
  return typeof value === 'object' && value !== null && Array.isArray((value as { direct_subgroups?: unknown }).direct_subgroups)
    && (value as { direct_subgroups: unknown[] }).direct_subgroups.includes(groupId);
}

/**
 * Zulip's access_user_group_for_deactivation objections (level 298): the active groups it is
 * a direct subgroup of, then every stream, user-group and realm setting whose value is the
 * group or an anonymous group with it as a subgroup. Found by the storage conventions: a
 * stream setting in a TEXT column named as the setting (or a group id in `<setting>_id`),
 * a group setting likewise on user_group, a realm setting under its name in the settings JSON.
 */
export async function groupInUseObjections(q: Q, realm: RealmRow, group: UserGroupRow): Promise<Array<Record<string, unknown>>> {
  const objections: Array<Record<string, unknown>> = [];
  const groups = await userGroups.listByRealm(q, realm.id);
  const active = new Set(groups.filter((g) => g.deactivated !== 1).map((g) => g.id));
  const supergroupIds = (await userGroups.listSubgroupEdgesByRealm(q, realm.id))
    .filter((e) => e.subgroup_id === group.id && active.has(e.supergroup_id)).map((e) => e.supergroup_id).sort((a, b) => a - b);
  if (supergroupIds.length > 0) objections.push({ type: 'subgroup', supergroup_ids: supergroupIds });

  const streamRows = (await streams.listByRealm(q, realm.id)).filter((st) => st.deactivated === 0).sort((a, b) => a.id - b.id);
  for (const stream of streamRows) {
    const row = stream as unknown as Record<string, unknown>;
    const settings = Object.keys(STREAM_PERMISSION_SETTINGS).filter((name) => uses(row[name] ?? row[`${name}_id`], group.id));
    if (settings.length > 0) objections.push({ type: 'channel', channel_id: stream.id, settings });
  }

  for (const other of groups) {
    if (other.deactivated === 1) continue;
    const settings = Object.keys(GROUP_PERMISSION_SETTINGS).sort().filter((name) => {
      if (name === 'can_mention_group') return uses(canMentionValue(other), group.id);
      return (COLUMN_GROUP_SETTINGS as readonly string[]).includes(name) && uses(other[name as typeof COLUMN_GROUP_SETTINGS[number]], group.id);
    });
    if (settings.length > 0) objections.push({ type: 'user_group', group_id: other.id, settings });
  }

  const stored = JSON.parse(realm.settings || '{}') as Record<string, unknown>;
  const realmUses = Object.keys(REALM_PERMISSION_SETTINGS).filter((name) => uses(stored[name], group.id));
  if (realmUses.length > 0) objections.push({ type: 'realm', settings: realmUses });
  return objections;
}

/** Refuses the deactivation while the group is used (level 298). */
export async function checkGroupNotInUse(q: Q, realm: RealmRow, group: UserGroupRow): Promise<void> {
  const objections = await groupInUseObjections(q, realm, group);
  if (objections.length > 0) throw cannotDeactivateGroupInUse(objections);
}
