import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { realms } from '../store/repos/realms.js';
import { emailChanges } from '../store/repos/email-changes.js';
import { badRequest } from '../errors.js';
import { realmSettings } from '../lib/realm-settings.js';
import { isAdminRole } from '../lib/roles.js';
import { nowSeconds } from '../lib/time.js';
import { checkEmail } from './user-create.js';
import { notifyRealmUser } from './user-notify.js';
import { PER_USER_EMAIL_VISIBILITY_LEVEL, canSeeDeliveryEmail, canSeeDeliveryEmailOf, emailViewerOf, emailVisibilityOf, gravatarUrl } from '../presenters/user.js';

// Zulip's EMAIL_CHANGE_CONFIRMATION_DAYS.
const CONFIRMATION_SECONDS = 24 * 60 * 60;

/** Zulip's validate_email_change_request, before anything is stored. */
export async function checkEmailChange(q: Q, realm: RealmRow, user: UserRow, newEmail: string): Promise<void> {
  if (realmSettings(realm.settings).email_changes_disabled && !isAdminRole(user.role)) {
    throw badRequest('Email address changes are disabled in this organization.');
  }
  await checkNewAddress(q, realm, newEmail);
}

/** A valid address that no other account of the organization holds, as its real or stand-in address. */
export async function checkNewAddress(q: Q, realm: RealmRow, newEmail: string): Promise<void> {
  try {
    checkEmail(newEmail);
  } catch {
    throw badRequest('Invalid address.');
  }
  // Another user's stand-in address (level 163) is taken too: it holds the unique `email` column.
  const taken = await users.findByDeliveryEmail(q, realm.id, newEmail) ?? await users.findByEmail(q, realm.id, newEmail);
  if (taken) throw badRequest(taken.is_active === 1 ? 'Already has an account.' : 'Account has been deactivated.');
}

/** Stores the request and mails its link to the new address once it has committed. */
export async function doStartEmailChange(tx: Tx, realm: RealmRow, user: UserRow, newEmail: string): Promise<void> {
  const token = crypto.randomBytes(24).toString('base64url');
  await emailChanges.replacePending(tx.db, user.id);
  await emailChanges.insert(tx.db, { user_id: user.id, realm_id: realm.id, old_email: user.delivery_email, new_email: newEmail, token, date_created: nowSeconds() });
  tx.later(async (ctx) => {
    const link = `${realmUrl(ctx, realm)}/accounts/confirm_new_email/${token}/`;
    await ctx.mail.send({
      to: newEmail,
      subject: `Verify your new email address for ${realm.name}`,
      text: `We received a request to change the email address for ${user.full_name}'s account on ${realm.name} `
        + `from ${user.delivery_email} to ${newEmail}.\n\nTo confirm it, open this link within a day:\n\n${link}\n\n`
        + 'If you did not ask for this, ignore this message.\n',
    });
  });
}

function realmUrl(ctx: AppContext, realm: RealmRow): string {
  if (realm.string_id === '') return ctx.config.externalUrl;
  const u = new URL(ctx.config.externalUrl);
  u.hostname = `${realm.string_id}.${u.hostname}`;
  return u.toString().replace(/\/$/, '');
}

export type EmailConfirmation = { ok: true; oldEmail: string; newEmail: string } | { ok: false };

/**
 * The link's target: changes the address if the request is still pending, fresh, and the
 * address still free (Zulip's confirm_email_change), tells clients, and lets the old
 * address know.
 */
export async function confirmEmailChange(ctx: AppContext, token: string): Promise<EmailConfirmation> {
  return transact(ctx, async (tx) => {
    const change = token.length > 200 ? undefined : await emailChanges.findByToken(tx.db, token);
    if (!change || change.date_created + CONFIRMATION_SECONDS < nowSeconds()) return { ok: false };
    const user = await users.findById(tx.db, change.user_id);
    const realm = await realms.findById(tx.db, change.realm_id);
    if (!user || !realm || user.is_active !== 1 || realm.deactivated === 1 || user.delivery_email !== change.old_email) return { ok: false };
    if (!(await emailChanges.confirm(tx.db, change.id))) return { ok: false };
    await checkEmailChange(tx.db, realm, user, change.new_email);
    await doChangeDeliveryEmail(tx, realm, user, change.new_email);
    return { ok: true, oldEmail: change.old_email, newEmail: change.new_email };
  });
}

/**
 * Zulip's do_change_user_delivery_email: the new address stored (and shown, when the user's
 * is visible), told to those who may see it, and the old address told of the change.
 */
export async function doChangeDeliveryEmail(tx: Tx, realm: RealmRow, user: UserRow, newEmail: string): Promise<void> {
  const oldEmail = user.delivery_email;
  // From feature level 163 the API `email` follows only a visible address (Zulip's do_change_user_delivery_email).
  const shown = tx.featureLevel < PER_USER_EMAIL_VISIBILITY_LEVEL || emailVisibilityOf(user) === 1;
  await users.update(tx.db, user.id, shown
    ? { email: newEmail, email_lower: newEmail.toLowerCase(), delivery_email: newEmail }
    : { delivery_email: newEmail });
  if (shown) await notifyRealmUser(tx, realm.id, 'update', { user_id: user.id, new_email: newEmail });
  // The private address goes only to those who may see it; a gravatar follows the address.
  const viewers = await users.listByIds(tx.db, await users.listActiveIdsInRealm(tx.db, realm.id));
  // From feature level 163 the user's own email_address_visibility decides (Zulip's can_access_delivery_email).
  const sees = tx.featureLevel >= PER_USER_EMAIL_VISIBILITY_LEVEL
    ? (v: UserRow) => canSeeDeliveryEmailOf(emailViewerOf(v), user)
    : (v: UserRow) => v.id === user.id || canSeeDeliveryEmail(v, realm);
  const allowed = viewers.filter(sees).map((v) => v.id);
  tx.notify({ type: 'realm_user', op: 'update', person: { user_id: user.id, delivery_email: newEmail } }, allowed, realm.id);
  if (user.avatar_source === 'G') {
    await notifyRealmUser(tx, realm.id, 'update', { user_id: user.id, avatar_url: gravatarUrl(newEmail, user.avatar_version), avatar_version: user.avatar_version });
  }
  tx.later(async (c) => c.mail.send({
    to: oldEmail,
    subject: `Email address changed for ${realm.name}`,
    text: `The email address for your account on ${realm.name} has been changed from ${oldEmail} to ${newEmail}.\n`,
  }));
}
