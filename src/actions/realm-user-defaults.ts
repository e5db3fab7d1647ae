import type { AppContext } from '../context.js';
import { transact } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { badRequest, mustBeAdmin } from '../errors.js';
import { isAdminRole } from '../lib/roles.js';
import { realmUserSettingsDefaults, settingRemovedAt, wireSetting } from '../lib/user-settings.js';
import { canonicalSettings, settingValueError, type SettingName } from '../lib/settings-rules.js';

/**
 * PATCH /realm/user_settings_defaults (Zulip's update_realm_user_settings_defaults): checks
 * every value as PATCH /settings does, stores what differs in the realm's settings JSON,
 * and tells every active user with one realm_user_settings_defaults/update per setting.
 */
export async function updateRealmUserDefaults(ctx: AppContext, realm: RealmRow, user: UserRow, values: Partial<Record<SettingName, unknown>>): Promise<void> {
  if (!isAdminRole(user.role)) throw mustBeAdmin();
  const level = ctx.config.featureLevel;
  for (const [name, value] of Object.entries(values) as Array<[SettingName, unknown]>) {
    const error = settingValueError(name, value, level);
    if (error) throw badRequest(error);
  }
  const canonical = canonicalSettings(values, level);
  await transact(ctx, async (tx) => {
    const current = (await realms.findById(tx.db, realm.id)) ?? realm;
    // Today's names (every level's request is canonical by now), the level's density defaults.
    const effective = realmUserSettingsDefaults(current.settings, Infinity, level);
    const changed = Object.entries(canonical).filter(([name, value]) => effective[name] !== value);
    if (changed.length === 0) return;
    const own = JSON.parse(current.settings || '{}') as Record<string, unknown> & { user_settings_defaults?: Record<string, unknown> };
    own.user_settings_defaults = { ...(own.user_settings_defaults ?? {}), ...Object.fromEntries(changed) };
    await realms.update(tx.db, realm.id, { settings: JSON.stringify(own) });
    const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
    // Under the level's names and numbering, as register's realm_user_settings_defaults.
    for (const [name, canonicalValue] of changed) {
      if (settingRemovedAt(name, level)) continue;
      const [property, value] = wireSetting(name, canonicalValue, level) ?? [name, canonicalValue];
      tx.notify({ type: 'realm_user_settings_defaults', op: 'update', property, value }, audience, realm.id);
    }
  });
}
