import type { Q, RealmRow, StreamRow, UserGroupRow, UserRow } from '../store/rows.js';
import { streamSettingValue } from '../lib/stream-group-settings.js';
import { realmSettings } from '../lib/realm-settings.js';
import { GROUP_PERMISSION_SETTINGS, STREAM_PERMISSION_SETTINGS, type GroupPermissionSetting } from '../lib/permission-settings.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { SystemGroup } from '../lib/system-groups.js';
import { fitsIdColumn } from '../lib/ids.js';
import { userGroups } from '../store/repos/user-groups.js';
import { recursiveSubgroups } from '../lib/group-graph.js';
import { badRequest, invalidUserGroup, userGroupDeactivated } from '../errors.js';
import { usersOfIds } from './user-group.js';
import { inSystemGroup } from '../lib/realm-group-settings.js';
import type { AnonymousGroup, GroupSettingValue } from '../lib/group-setting-value.js';

/**
 * Zulip's access_user_group_for_setting for a group-setting value (level 258): a named
 * group as above; an anonymous group only where the setting needs no system group, its
 * members users of the organization and its subgroups its groups. Answers the value to store
 * (an anonymous group with its ids once each, ascending).
 */
export async function accessGroupSettingValue(q: Q, user: UserRow, value: GroupSettingValue, settingName: string,
  config: GroupPermissionSetting, featureLevel = 0): Promise<GroupSettingValue> {
  if (typeof value === 'number') {
    const group = await accessUserGroupForSetting(q, user, value, settingName, config);
    // Zulip 10 (level 290): a deactivated group is no setting's value.
    if (group.deactivated === 1) throw userGroupDeactivated();
    return group.id;
  }
  if (config.require_system_group) throw badRequest(`'${settingName}' must be a system user group.`);
  // From level 303 deactivated users are in no group, anonymous ones included (Zulip's allow_deactivated=False).
  const members = (await usersOfIds(q, user.realm_id, value.direct_members, featureLevel >= 303)).map((u) => u.id);
  const wanted = [...new Set(value.direct_subgroups)];
  const groups = await userGroups.listInRealmByIds(q, user.realm_id, wanted.filter(fitsIdColumn));
  const found = new Set(groups.map((g) => g.id));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  if (groups.some((g) => g.deactivated === 1)) throw userGroupDeactivated();
  const asc = (a: number, b: number) => a - b;
  return { direct_members: members.sort(asc), direct_subgroups: wanted.sort(asc) } satisfies AnonymousGroup;
}

/** Zulip's is_user_in_group for an anonymous group: a direct member, or in one of its subgroups (or below). */
export async function isUserInAnonymousGroup(q: Q, group: AnonymousGroup, realmId: number, userId: number): Promise<boolean> {
  if (group.direct_members.includes(userId)) return true;
  if (group.direct_subgroups.length === 0) return false;
  const ids = recursiveSubgroups(await userGroups.listSubgroupEdgesByRealm(q, realmId), group.direct_subgroups);
  return userGroups.isMemberOfAny(q, userId, [...ids]);
}

/**
 * Zulip's access_user_group_for_setting (as of feature level 277, group ids only): the
 * group must be the organization's, then each restriction of the setting in Zulip's order.
 */
export async function accessUserGroupForSetting(q: Q, user: UserRow, groupId: number, settingName: string,
  config: GroupPermissionSetting): Promise<UserGroupRow> {
  const group = fitsIdColumn(groupId) ? await userGroups.findInRealm(q, user.realm_id, groupId) : undefined;
  if (!group) throw invalidUserGroup();
  if (config.require_system_group && group.is_system_group !== 1) throw badRequest(`'${settingName}' must be a system user group.`);
  const refuse = (name: string) => badRequest(`'${settingName}' setting cannot be set to '${name}' group.`);
  // Only system groups carry these names: no other group can be named so (the names are taken).
  if (group.is_system_group === 1) {
    if (!config.allow_internet_group && group.name === SystemGroup.EVERYONE_ON_INTERNET) throw refuse(group.name);
    if (!config.allow_owners_group && group.name === SystemGroup.OWNERS) throw refuse(group.name);
    if (!config.allow_nobody_group && group.name === SystemGroup.NOBODY) throw refuse(group.name);
    if (!config.allow_everyone_group && group.name === SystemGroup.EVERYONE) throw refuse(group.name);
    if (config.allowed_system_groups.length > 0 && !config.allowed_system_groups.includes(group.name)) throw refuse(group.name);
  }
  return group;
}

/** Zulip's is_user_in_group: a member of the group or of any group below it. */
export async function isUserInGroup(q: Q, groupId: number, realmId: number, userId: number): Promise<boolean> {
  const ids = recursiveSubgroups(await userGroups.listSubgroupEdgesByRealm(q, realmId), [groupId]);
  return userGroups.isMemberOfAny(q, userId, [...ids]);
}

/** The organization's system group of that name (every organization has them: migration 040). */
export async function systemGroupId(q: Q, realmId: number, name: string): Promise<number | null> {
  return (await userGroups.systemGroupsByName(q, realmId)).get(name)?.id ?? null;
}

/** Zulip's user_has_permission_for_group_setting: guests only where the setting allows role:everyone. */
export async function hasGroupSettingPermission(q: Q, user: UserRow, groupId: number, config: GroupPermissionSetting): Promise<boolean> {
  if (!config.allow_everyone_group && user.role === Role.GUEST) return false;
  return isUserInGroup(q, groupId, user.realm_id, user.id);
}

/**
 * Zulip's user_has_permission_for_group_setting for any group-setting value (a named group's
 * id or an anonymous group): the one check every realm, stream and group permission uses.
 * A system group is answered from the user's role without a query (Zulip's
 * check_any_user_has_permission_by_role), which keeps hot paths such as sending free of joins.
 */
export async function userHasGroupSettingValue(q: Q, user: UserRow, value: GroupSettingValue, config: GroupPermissionSetting,
  waitingPeriodDays: number): Promise<boolean> {
  if (!config.allow_everyone_group && user.role === Role.GUEST) return false;
  if (typeof value !== 'number') return isUserInAnonymousGroup(q, value, user.realm_id, user.id);
  const system = [...(await userGroups.systemGroupsByName(q, user.realm_id)).values()].find((g) => g.id === value);
  if (system) return inSystemGroup(user, system.name, waitingPeriodDays);
  return isUserInGroup(q, value, user.realm_id, user.id);
}

/**
 * Zulip's can_remove_subscribers_from_stream: the stream must be one the user may act on
 * (check_basic_stream_access with administrators allowed), then administrators may, and
 * otherwise the members of the stream's can_remove_subscribers_group.
 */
export async function canRemoveSubscribers(q: Q, user: UserRow, stream: StreamRow, sub: unknown | null, featureLevel = 0, realm?: RealmRow): Promise<boolean> {
  if (isAdminRole(user.role)) return true;
  const waiting = realm ? realmSettings(realm.settings).waiting_period_threshold : 0;
  // Level 349 (Zulip's bulk_can_remove_subscribers_from_streams): channel administrators
  // may, checked before basic access, so without content access too.
  if (featureLevel >= 349 && await userHasGroupSettingValue(q, user, streamSettingValue(stream, 'can_administer_channel_group'),
    STREAM_PERMISSION_SETTINGS.can_administer_channel_group, waiting)) return true;
  const basic = stream.is_web_public === 1 || (stream.invite_only === 0 && user.role !== Role.GUEST) || sub !== null;
  if (!basic) return false;
  const value = streamSettingValue(stream, 'can_remove_subscribers_group');
  if (await userHasGroupSettingValue(q, user, value, STREAM_PERMISSION_SETTINGS.can_remove_subscribers_group, waiting)) return true;
  // Level 349: channel administrators may unsubscribe others too.
  return featureLevel >= 349 && userHasGroupSettingValue(q, user, streamSettingValue(stream, 'can_administer_channel_group'),
    STREAM_PERMISSION_SETTINGS.can_administer_channel_group, waiting);
}

/**
 * Zulip's check_user_group_mention_allowed, for the groups a message mentions (not
 * silently): each group's can_mention_group must hold the sender, unless it is role:everyone;
 * the organization's system bots may mention only those. Zulip 8 (feature levels 191 to
 * 257) names the group needed; from 258, when the setting can be an anonymous group, not.
 */
export async function checkUserGroupMentionAllowed(q: Q, sender: UserRow, groupIds: Iterable<number>, featureLevel: number): Promise<void> {
  const ids = [...groupIds];
  if (ids.length === 0) return;
  const groups = await userGroups.listInRealmByIds(q, sender.realm_id, ids);
  const settingIds = [...new Set(groups.map((g) => g.can_mention_group_id).filter((id): id is number => id !== null))];
  const settingGroups = new Map((await userGroups.listInRealmByIds(q, sender.realm_id, settingIds)).map((g) => [g.id, g]));
  for (const group of groups) {
    if (group.can_mention_group_anon !== null) {
      // An anonymous group (level 258): its members may; Zulip names no group in the error.
      const anon = JSON.parse(group.can_mention_group_anon) as AnonymousGroup;
      if (sender.is_system_bot !== 1 && await isUserInAnonymousGroup(q, anon, sender.realm_id, sender.id)) continue;
      throw badRequest(`You are not allowed to mention user group '${group.name}'.`);
    }
    if (group.can_mention_group_id === null) continue;
    const setting = settingGroups.get(group.can_mention_group_id);
    if (setting?.is_system_group === 1 && setting.name === SystemGroup.EVERYONE) continue;
    const allowed = sender.is_system_bot !== 1 && await hasGroupSettingPermission(q, sender, group.can_mention_group_id, GROUP_PERMISSION_SETTINGS.can_mention_group);
    if (allowed) continue;
    if (featureLevel >= 258 || !setting) throw badRequest(`You are not allowed to mention user group '${group.name}'.`);
    throw badRequest(`You are not allowed to mention user group '${group.name}'. You must be a member of '${setting.name}' to mention this group.`);
  }
}
