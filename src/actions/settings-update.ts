import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { badRequest, rateLimited } from '../errors.js';
import { settingRemovedAt, userSettings, wireSetting } from '../lib/user-settings.js';
import { DISPLAY_SETTINGS, NOTIFICATION_SETTINGS, canonicalSettings, settingValueError, type CanonicalSettingName, type SettingName } from '../lib/settings-rules.js';
import { LANGUAGE_NAMES } from '../lib/languages.js';
import { realmSettings } from '../lib/realm-settings.js';
import { isAdminRole } from '../lib/roles.js';
import { hashPassword, verifyPassword } from '../lib/secrets.js';
import { doChangeFullName } from './user-update.js';
import { doUpdateDisplayEmail, notifyDeliveryEmailAccess, notifyRealmUser } from './user-notify.js';
import { emailVisibilityOf } from '../presenters/user.js';
import { checkEmailChange, doStartEmailChange } from './email-change.js';
import { doDeleteAllDrafts } from './drafts.js';

export interface SettingsRequest {
  fullName?: string | undefined;
  email?: string | undefined;
  oldPassword?: string | undefined;
  newPassword?: string | undefined;
  /** Decoded values of the personal settings passed. */
  settings: Partial<Record<SettingName, unknown>>;
}

// Zulip's PASSWORD_MIN_LENGTH.
const MIN_PASSWORD_LENGTH = 6;

/**
 * One setting's change, as Zulip's do_change_user_setting tells the user's clients (and, for a
 * time zone, everyone). A setting a level renamed or renumbered is told under the name and
 * numbering of the server's level, as register shows it (a value's meaning, not an event format).
 */
async function doChangeSetting(tx: Tx, user: UserRow, canonical: CanonicalSettingName, canonicalValue: unknown, featureLevel: number): Promise<void> {
  // A setting the level removed (dense_mode at 364) is still stored, but told to nobody.
  if (settingRemovedAt(canonical, featureLevel)) return;
  const [name, value] = wireSetting(canonical, canonicalValue, featureLevel) ?? [canonical, canonicalValue];
  tx.notify({ type: 'user_settings', op: 'update', property: name, value }, [user.id], user.realm_id);
  // Clients without the user_settings_object capability hear the legacy events instead
  // (the personaliser chooses per queue).
  if (DISPLAY_SETTINGS.has(name)) {
    tx.notify({
      type: 'update_display_settings', user: user.email, setting_name: name, setting: value,
      ...(name === 'default_language' ? { language_name: LANGUAGE_NAMES.get(value as string) ?? '' } : {}),
    }, [user.id], user.realm_id);
  }
  if (NOTIFICATION_SETTINGS.has(name)) {
    tx.notify({ type: 'update_global_notifications', user: user.email, notification_name: name, setting: value }, [user.id], user.realm_id);
  }
  // Turning synchronisation off deletes what the server holds, without events: the
  // clients' own copies stay (Zulip's behaviour).
  if (name === 'enable_drafts_synchronization' && value === false) await doDeleteAllDrafts(tx, user.id);
  // Feature level 163: the address goes to those who may now see it, null to those who no longer may.
  if (name === 'email_address_visibility') {
    await notifyDeliveryEmailAccess(tx, user, emailVisibilityOf(user), value as number);
    await doUpdateDisplayEmail(tx, user, emailVisibilityOf(user), value as number);
  }
  if (name === 'timezone') {
    await users.update(tx.db, user.id, { timezone: value as string });
    await notifyRealmUser(tx, user.realm_id, 'update', { user_id: user.id, timezone: value as string });
  }
}

/** One setting changed from elsewhere (POST /users/me/status's `away` from level 148): stored and told, if it differs. */
export async function doSetUserSetting(tx: Tx, userId: number, name: CanonicalSettingName, value: unknown, featureLevel: number): Promise<void> {
  const current = await users.findById(tx.db, userId);
  if (!current || userSettings(current.settings)[name] === value) return;
  const own = JSON.parse(current.settings || '{}') as Record<string, unknown>;
  own[name] = value;
  await users.update(tx.db, userId, { settings: JSON.stringify(own) });
  await doChangeSetting(tx, current, name, value, featureLevel);
}

/**
 * PATCH /settings (and its deprecated aliases): checks every value first, in Zulip's
 * order, then changes what differs; a new email address only starts its confirmation.
 */
export async function updateSettings(ctx: AppContext, realm: RealmRow, user: UserRow, req: SettingsRequest): Promise<void> {
  const level = ctx.config.featureLevel;
  for (const [name, value] of Object.entries(req.settings) as Array<[SettingName, unknown]>) {
    const error = settingValueError(name, value, level);
    if (error) throw badRequest(error);
  }
  const settings = canonicalSettings(req.settings, level);
  if (req.newPassword !== undefined) {
    if (req.oldPassword === undefined || !(await verifyPassword(req.oldPassword, user.password_hash))) throw badRequest('Wrong password!');
    if ([...req.newPassword].length < MIN_PASSWORD_LENGTH) throw badRequest('New password is too weak!');
  }
  const newEmail = req.email?.trim();
  const emailChanges = newEmail !== undefined && newEmail !== user.delivery_email;
  if (emailChanges) {
    await checkEmailChange(ctx.store.db, realm, user, newEmail);
    // Zulip's email_change_by_user: each request mails an address with no account yet.
    const budget = await ctx.limiter.hit('email_change_by_user', String(user.id));
    if (budget?.limited) throw rateLimited(budget.secsToFreedom);
  }
  const passwordHash = req.newPassword !== undefined ? await hashPassword(req.newPassword) : undefined;

  await transact(ctx, async (tx) => {
    const current = await users.findById(tx.db, user.id) ?? user;
    if (passwordHash !== undefined) await users.update(tx.db, user.id, { password_hash: passwordHash });
    if (emailChanges) await doStartEmailChange(tx, realm, current, newEmail);
    // As Zulip: a name change the organization forbids is ignored, not refused.
    if (req.fullName !== undefined && req.fullName !== current.full_name && (!realmSettings(realm.settings).name_changes_disabled || isAdminRole(current.role))) {
      await doChangeFullName(tx, current, req.fullName);
    }
    const stored = userSettings(current.settings);
    const changed = (Object.entries(settings) as Array<[CanonicalSettingName, unknown]>).filter(([name, value]) => stored[name] !== value);
    if (changed.length === 0) return;
    const own = JSON.parse(current.settings || '{}') as Record<string, unknown>;
    for (const [name, value] of changed) own[name] = value;
    await users.update(tx.db, user.id, { settings: JSON.stringify(own) });
    for (const [name, value] of changed) await doChangeSetting(tx, current, name, value, level);
  });
}
