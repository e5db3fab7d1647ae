import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { REALM_PERMISSION_SETTINGS, REALM_PERMISSION_SETTING_LEVELS, REALM_PERMISSION_SETTING_NAMES, type RealmPermissionSettingName } from '../lib/permission-settings.js';
import { realmSettings } from '../lib/realm-settings.js';
import { Role } from '../lib/roles.js';
import { REPLACED_POLICY, correspondingPolicy, inSystemGroup, storedGroupSetting, type StoredGroupSetting } from '../lib/realm-group-settings.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import { userGroups } from '../store/repos/user-groups.js';
import { userHasGroupSettingValue } from './group-setting.js';

/** What the realm's settings JSON holds for a permission setting (src/lib/realm-group-settings.ts). */
export function storedRealmGroupSetting(realm: Pick<RealmRow, 'settings'>, name: RealmPermissionSettingName): StoredGroupSetting {
  let own: Record<string, unknown> = {};
  try {
    own = JSON.parse(realm.settings || '{}') as Record<string, unknown>;
  } catch {
    /* corrupt: the defaults, as realmSettings() does */
  }
  return storedGroupSetting(own, realmSettings(realm.settings), name, REALM_PERMISSION_SETTINGS[name].default_group_name);
}

/** The organization's system groups: name to id. */
export async function systemGroupIds(q: Q, realmId: number): Promise<Map<string, number>> {
  return new Map([...(await userGroups.systemGroupsByName(q, realmId))].map(([n, g]) => [n, g.id]));
}

/** The system group a setting names (by name or by id), if it names one. */
export async function systemGroupOfSetting(q: Q, realm: RealmRow, name: RealmPermissionSettingName): Promise<string | undefined> {
  const stored = storedRealmGroupSetting(realm, name);
  if ('group' in stored) return stored.group;
  if (typeof stored.value !== 'number') return undefined;
  return [...(await systemGroupIds(q, realm.id))].find(([, id]) => id === stored.value)?.[0];
}

/** A setting as the API shows it (Zulip's get_group_setting_value_for_api), given the system groups' ids. */
export function realmGroupSettingValueOf(realm: Pick<RealmRow, 'settings'>, name: RealmPermissionSettingName, systemIds: ReadonlyMap<string, number>): GroupSettingValue {
  const stored = storedRealmGroupSetting(realm, name);
  if ('value' in stored) return stored.value;
  // Every organization has its system groups (migration 040); 0 would be a broken one.
  return systemIds.get(stored.group) ?? 0;
}

/** A realm permission setting's value (a named group's id or an anonymous group). */
export async function realmGroupSettingValue(q: Q, realm: RealmRow, name: RealmPermissionSettingName): Promise<GroupSettingValue> {
  const stored = storedRealmGroupSetting(realm, name);
  if ('value' in stored) return stored.value;
  return realmGroupSettingValueOf(realm, name, await systemGroupIds(q, realm.id));
}

/**
 * Zulip's UserProfile.has_permission for a realm group setting (userHasGroupSettingValue).
 * A setting never changed since these levels names its system group: answered from the
 * role without a query.
 */
export async function hasRealmGroupPermission(q: Q, realm: RealmRow, user: UserRow, name: RealmPermissionSettingName): Promise<boolean> {
  const config = REALM_PERMISSION_SETTINGS[name];
  const waiting = realmSettings(realm.settings).waiting_period_threshold;
  const stored = storedRealmGroupSetting(realm, name);
  if ('value' in stored) return userHasGroupSettingValue(q, user, stored.value, config, waiting);
  if (!config.allow_everyone_group && user.role === Role.GUEST) return false;
  return inSystemGroup(user, stored.group, waiting);
}

/**
 * register's `realm_<setting>` for every realm permission setting of this level, and the
 * deprecated `realm_<policy>` each replaced while the level has it (derived from the group,
 * Zulip's get_corresponding_policy_value_for_group_setting).
 */
export async function realmGroupSettingsState(q: Q, featureLevel: number, realm: RealmRow): Promise<Record<string, unknown>> {
  const ids = await systemGroupIds(q, realm.id);
  const out: Record<string, unknown> = {};
  for (const name of REALM_PERMISSION_SETTING_NAMES) {
    if (featureLevel >= REALM_PERMISSION_SETTING_LEVELS[name]) out[`realm_${name}`] = realmGroupSettingValueOf(realm, name, ids);
    const replaced = REPLACED_POLICY[name];
    if (replaced && featureLevel < replaced.registerUntil) out[`realm_${replaced.policy}`] = deprecatedPolicy(realm, name, ids, featureLevel);
  }
  return out;
}

/**
 * A replaced policy as register shows it: derived from the setting, or, where it does not
 * follow the one setting (src/lib/realm-group-settings.ts), the stored policy, kept in step.
 * wildcard_mention_policy's stream administrators option (4) is still itself below level 133.
 */
function deprecatedPolicy(realm: Pick<RealmRow, 'settings'>, name: RealmPermissionSettingName, ids: ReadonlyMap<string, number>, featureLevel: number): unknown {
  const replaced = REPLACED_POLICY[name]!;
  const stored = realmSettings(realm.settings)[replaced.policy];
  if (replaced.follows === false) return stored;
  if (replaced.policy === 'wildcard_mention_policy' && featureLevel < 133 && stored === 4) return stored;
  return policyOfSetting(realm, name, ids);
}

/** The replaced policy a setting's value corresponds to. */
export function policyOfSetting(realm: Pick<RealmRow, 'settings'>, name: RealmPermissionSettingName, systemIds: ReadonlyMap<string, number>): number | undefined {
  const replaced = REPLACED_POLICY[name];
  if (!replaced) return undefined;
  const value = realmGroupSettingValueOf(realm, name, systemIds);
  const system = typeof value === 'number' ? [...systemIds].find(([, id]) => id === value)?.[0] : undefined;
  return correspondingPolicy(replaced, system);
}
