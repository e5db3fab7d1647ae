import type { Q, RealmRow } from '../../store/rows.js';
import type { Config } from '../../config.js';
import { REALM_PERMISSION_SETTINGS, REALM_PERMISSION_SETTING_LEVELS, type RealmPermissionSettingName } from '../../lib/permission-settings.js';
import { realmGroupSettingId } from '../../access/realm-group-setting.js';

/** register's `realm_<setting>` for the realm group settings of this feature level (a group id each). */
export async function realmGroupSettingsState(q: Q, config: Config, realm: RealmRow): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(REALM_PERMISSION_SETTINGS) as RealmPermissionSettingName[]) {
    if (config.featureLevel < REALM_PERMISSION_SETTING_LEVELS[name]) continue;
    out[`realm_${name}`] = await realmGroupSettingId(q, realm, name);
  }
  return out;
}
