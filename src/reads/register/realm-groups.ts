import type { Q, RealmRow } from '../../store/rows.js';
import type { Config } from '../../config.js';
import { ID_STORED_REALM_GROUP_SETTINGS, REALM_PERMISSION_SETTING_LEVELS } from '../../lib/permission-settings.js';
import { realmGroupSettingId } from '../../access/realm-group-setting.js';

/** register's `realm_<setting>` for the realm group settings of this feature level (a group id each). */
export async function realmGroupSettingsState(q: Q, config: Config, realm: RealmRow): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of ID_STORED_REALM_GROUP_SETTINGS) {
    if (config.featureLevel < REALM_PERMISSION_SETTING_LEVELS[name]) continue;
    out[`realm_${name}`] = await realmGroupSettingId(q, realm, name);
  }
  return out;
}
