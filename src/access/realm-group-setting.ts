import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { REALM_PERMISSION_SETTINGS, type RealmPermissionSettingName } from '../lib/permission-settings.js';
import { hasGroupSettingPermission, systemGroupId } from './group-setting.js';

/**
 * The group id of a realm group setting (create_multiuse_invite_group, level 209;
 * can_access_all_users_group, 225). Kept in the realm's settings JSON once changed; until
 * then the setting's default system group, as Zulip sets it when it creates the realm.
 */
export async function realmGroupSettingId(q: Q, realm: RealmRow, name: RealmPermissionSettingName): Promise<number | null> {
  const own = JSON.parse(realm.settings || '{}') as Record<string, unknown>;
  const stored = own[name];
  if (typeof stored === 'number') return stored;
  return systemGroupId(q, realm.id, REALM_PERMISSION_SETTINGS[name].default_group_name);
}

/** Zulip's UserProfile.has_permission for a realm group setting: a member of the group (or of a group under it). */
export async function hasRealmGroupPermission(q: Q, realm: RealmRow, user: UserRow, name: RealmPermissionSettingName): Promise<boolean> {
  const id = await realmGroupSettingId(q, realm, name);
  return id !== null && hasGroupSettingPermission(q, user, id, REALM_PERMISSION_SETTINGS[name]);
}
