import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { REALM_PERMISSION_SETTINGS, type RealmPermissionSettingName } from '../lib/permission-settings.js';
import { realmSettings } from '../lib/realm-settings.js';
import { inSystemGroup } from '../lib/realm-group-settings.js';
import { Role } from '../lib/roles.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import { userHasGroupSettingValue } from './group-setting.js';
import { POLICY_OF_GROUP_SETTING } from '../lib/realm-policy-groups.js';

/**
 * Zulip's user_has_permission_for_group_setting for a realm group setting (levels 299-363,
 * src/lib/realm-policy-groups.ts), its value read where the realm group settings are stored
 * (the realm's settings JSON, under the setting's name: a group id or an anonymous group).
 * The default value, a role's system group, is answered from the user's role without a
 * query, which keeps the send path (wildcard mentions) as cheap as the policy was.
 */
/**
 * The system group a setting that was never set names: the replaced policy's group where
 * the organization stored the policy without the group (a row older than migration 052
 * would have; its own group otherwise), else the setting's default.
 */
function defaultGroupOf(realm: RealmRow, name: RealmPermissionSettingName): string {
  const replaced = POLICY_OF_GROUP_SETTING.get(name);
  if (replaced) {
    const policy = (realmSettings(realm.settings) as Readonly<Record<string, unknown>>)[replaced.policy];
    const group = typeof policy === 'number' && realm.settings.includes(`"${replaced.policy}"`) ? replaced.groupsOf(policy)[name] : undefined;
    if (group !== undefined) return group;
  }
  return REALM_PERMISSION_SETTINGS[name].default_group_name;
}

export async function realmGroupAllows(q: Q, realm: RealmRow, user: UserRow, name: RealmPermissionSettingName): Promise<boolean> {
  const config = REALM_PERMISSION_SETTINGS[name];
  const settings = realmSettings(realm.settings);
  const stored = (settings as Readonly<Record<string, unknown>>)[name] as GroupSettingValue | undefined;
  if (stored === undefined) {
    if (!config.allow_everyone_group && user.role === Role.GUEST) return false;
    return inSystemGroup(user, defaultGroupOf(realm, name), settings.waiting_period_threshold);
  }
  return userHasGroupSettingValue(q, user, stored, config, settings.waiting_period_threshold);
}
