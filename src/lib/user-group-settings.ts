import type { UserGroupRow } from '../rows.js';
import { GROUP_CREATOR, GROUP_PERMISSION_SETTINGS, GROUP_PERMISSION_SETTING_LEVELS, type GroupPermissionSettingName } from './permission-settings.js';
import { canMentionValue, type AnonymousGroup, type GroupSettingValue } from './group-setting-value.js';
import { SystemGroup } from './system-groups.js';

/**
 * Zulip 10's user-group settings stored in TEXT columns named as the setting (migration
 * 053); can_mention_group keeps its own columns (migrations 040 and 048).
 */
export const COLUMN_GROUP_SETTINGS = ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_remove_members_group'] as const;
export type ColumnGroupSettingName = typeof COLUMN_GROUP_SETTINGS[number];

/** Every group setting, in Zulip's (alphabetical) order. */
export const USER_GROUP_SETTING_NAMES = Object.keys(GROUP_PERMISSION_SETTINGS).sort() as GroupPermissionSettingName[];

/** The settings a client of this level knows. */
export const groupSettingsAt = (featureLevel: number): GroupPermissionSettingName[] =>
  USER_GROUP_SETTING_NAMES.filter((n) => featureLevel >= GROUP_PERMISSION_SETTING_LEVELS[n]);

/** System group ids by name (Zulip's get_role_based_system_groups_dict). */
export type SystemGroupIds = ReadonlyMap<string, number>;

/**
 * A setting's value (Zulip's get_group_setting_value_for_api: a named group's id, or the
 * anonymous group). A null column is the setting's default: for system groups Zulip's
 * default_for_system_groups; for others the default group, "group_creator" being the creator
 * alone (nobody for groups made before Parley knew their creator).
 */
export function userGroupSettingValue(g: UserGroupRow, name: GroupPermissionSettingName, system: SystemGroupIds): GroupSettingValue {
  if (name === 'can_mention_group') {
    const v = canMentionValue(g);
    if (v !== null) return v;
  } else {
    const raw = g[name];
    if (raw !== null) return JSON.parse(raw) as GroupSettingValue;
  }
  const config = GROUP_PERMISSION_SETTINGS[name];
  const groupName = g.is_system_group === 1 ? config.default_for_system_groups ?? config.default_group_name : config.default_group_name;
  if (groupName === GROUP_CREATOR) {
    if (g.creator_id !== null) return { direct_members: [g.creator_id], direct_subgroups: [] } satisfies AnonymousGroup;
    return system.get(SystemGroup.NOBODY) ?? 0;
  }
  return system.get(groupName) ?? 0;
}

/** The columns that store a value of the setting. */
export function userGroupSettingColumns(name: GroupPermissionSettingName, v: GroupSettingValue): Partial<UserGroupRow> {
  if (name === 'can_mention_group') {
    return typeof v === 'number' ? { can_mention_group_id: v, can_mention_group_anon: null } : { can_mention_group_id: null, can_mention_group_anon: JSON.stringify(v) };
  }
  return { [name]: JSON.stringify(v) };
}
