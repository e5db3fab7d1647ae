import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { transact } from './transaction.js';
import { checkEmail, checkFullName, doCreateUser } from './user-create.js';
import { ApiError } from '../errors.js';
import { takeSsoToken } from './sso-tokens.js';
import { doAcceptInviteBySignIn } from './invite-accept.js';

/** Who an identity provider (or a directory) says signed in. */
export interface ExternalIdentity {
  backend: 'oidc' | 'saml' | 'ldap';
  email: string;
  /**
   * The provider vouches that the person controls the address (OpenID's email_verified; a
   * SAML assertion and a directory entry are the organization's own word).
   */
  emailVerified: boolean;
  fullName: string | null;
}

/**
 * Why a single sign-on ends without a session; `message` is what the person reads. Each
 * is logged (never with a secret) and creates no session, account or key.
 */
export type SsoRefusalReason =
  | 'bad_state' | 'expired' | 'invalid_response' | 'replayed' | 'provider_error' | 'not_configured'
  | 'unverified_email' | 'invalid_email' | 'no_account' | 'user_deactivated' | 'realm_deactivated' | 'rate_limited';

const STATUS: Record<SsoRefusalReason, number> = {
  bad_state: 400, expired: 400, invalid_response: 400, replayed: 400, provider_error: 502, not_configured: 404,
  unverified_email: 403, invalid_email: 403, no_account: 403, user_deactivated: 403, realm_deactivated: 403, rate_limited: 429,
};

export class SsoRefusal extends Error {
  constructor(readonly reason: SsoRefusalReason, message: string, readonly logDetail: Record<string, unknown> = {}) {
    super(message);
  }

  get httpStatus(): number {
    return STATUS[this.reason];
  }

  /** The same refusal in the API's shape (POST /fetch_api_key answers there). */
  toApiError(): ApiError {
    if (this.reason === 'user_deactivated') return new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
    if (this.reason === 'realm_deactivated') return new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401);
    return new ApiError('AUTHENTICATION_FAILED', this.message, 401);
  }
}

export const refusalMessages = {
  realmDeactivated: 'This organization has been deactivated.',
  userDeactivated: (email: string) => `Your account ${email} has been deactivated. Ask an administrator of this organization to reactivate it.`,
  unverifiedEmail: 'Your identity provider has not verified your email address, so it cannot sign you in here.',
  invalidEmail: (email: string) => `Your identity provider gave "${email}", which is not a valid email address.`,
  noAccount: (email: string, realm: RealmRow) =>
    `There is no account for ${email} in ${realm.name}. Ask an administrator of the organization for an invitation, then sign in again.`,
};

/**
 * Zulip's login_or_register_remote_user, after a provider has vouched for `identity`: the
 * organization's account with that (verified) address; else the account an invitation to
 * it promised; else with `autoSignup` a new member. Bots never sign in this way. Throws an
 * SsoRefusal for everything else.
 */
export async function signInExternally(ctx: AppContext, realm: RealmRow, identity: ExternalIdentity, opts: { autoSignup: boolean }): Promise<UserRow> {
  const log = { backend: identity.backend, realm: realm.string_id, email: identity.email };
  if (realm.deactivated === 1) throw new SsoRefusal('realm_deactivated', refusalMessages.realmDeactivated, log);
  if (!identity.emailVerified) throw new SsoRefusal('unverified_email', refusalMessages.unverifiedEmail, log);
  let email: string;
  try {
    email = checkEmail(identity.email);
  } catch {
    throw new SsoRefusal('invalid_email', refusalMessages.invalidEmail(identity.email), log);
  }
  const existing = await users.findByDeliveryEmail(ctx.store.db, realm.id, email);
  if (existing && existing.is_bot !== 1) {
    if (existing.is_active !== 1) throw new SsoRefusal('user_deactivated', refusalMessages.userDeactivated(existing.delivery_email), log);
    ctx.log.info({ ...log, userId: existing.id }, 'single sign-on');
    return existing;
  }
  if (existing) throw new SsoRefusal('no_account', refusalMessages.noAccount(email, realm), log);
  const fullName = signupName(identity.fullName, email);
  const create = () => transact(ctx, async (tx) => {
    const again = await users.findByDeliveryEmail(tx.db, realm.id, email);
    if (again) return again;
    // Invited by email: the invitation's role and streams, whatever auto-signup says.
    const invited = await doAcceptInviteBySignIn(tx, realm, email, fullName);
    if (invited) return invited;
    if (!opts.autoSignup) return undefined;
    return doCreateUser(tx, realm, { email, fullName });
  });
  let user: UserRow | undefined;
  try {
    user = await create();
  } catch (err) {
    // Two first sign-ins at once: the second meets the first's account (the unique index, or
    // doCreateUser's own check once the first committed), which it then finds.
    const again = await users.findByDeliveryEmail(ctx.store.db, realm.id, email);
    if (!again) throw err;
    user = again;
  }
  if (!user) throw new SsoRefusal('no_account', refusalMessages.noAccount(email, realm), log);
  if (user.is_active !== 1 || user.is_bot === 1) throw new SsoRefusal('no_account', refusalMessages.noAccount(email, realm), log);
  ctx.log.info({ ...log, userId: user.id }, 'single sign-on: account created');
  return user;
}

/** The provider's name for the person if Parley accepts it, else the address's local part (Zulip asks; auto-signup cannot). */
function signupName(given: string | null, email: string): string {
  for (const candidate of [given, email.split('@')[0] ?? '', 'New user']) {
    if (!candidate) continue;
    try {
      return checkFullName(candidate.replace(/[\u0000-\u001f\u007f*`\\>"@]/g, ' ').replace(/\s+/g, ' '));
    } catch {
      // the next candidate
    }
  }
  return 'New user';
}

/**
 * Zulip's log_into_subdomain: the account a desktop app's login token (made by a sign-in
 * that succeeded seconds ago) stands for, once.
 */
export async function signInWithLoginToken(ctx: AppContext, realm: RealmRow, token: string): Promise<UserRow> {
  const kept = await takeSsoToken<{ userId: number }>(ctx, 'login', token);
  if (!kept || kept.realmId !== realm.id) {
    throw new SsoRefusal('expired', 'This sign-in link has expired or was already used. Sign in again from the app.', { backend: 'desktop' });
  }
  if (realm.deactivated === 1) throw new SsoRefusal('realm_deactivated', refusalMessages.realmDeactivated);
  const user = await users.findById(ctx.store.db, kept.data.userId);
  if (!user || user.is_active !== 1) throw new SsoRefusal('user_deactivated', refusalMessages.userDeactivated(user?.delivery_email ?? ''));
  return user;
}
