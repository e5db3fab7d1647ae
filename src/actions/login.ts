import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { passwordFormEnabled } from '../lib/sso-config.js';
import { authenticationFailed, ldapUnavailable, passwordAuthDisabled, rateLimited, realmDeactivated, userDeactivated } from '../errors.js';
import { hashPassword, needsRehash, randomString, verifyPassword } from '../lib/secrets.js';
import type { RateLimitDomain } from '../ratelimit/rules.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { transact } from './transaction.js';
import { signInExternally, SsoRefusal } from './external-login.js';
import { authenticateLdap, LdapUnavailable, type LdapPerson } from '../sso/ldap.js';

interface Budget { domain: RateLimitDomain; key: string }

/**
 * Refuses a sign-in whose account or address has spent its failures (Zulip's
 * rate_limit_auth), and marks it pending in each budget: a failure is counted only once
 * the hash said so (a success never counts), so the failures still possible are shared
 * with the sign-ins being checked now, on every node. Answers the marks to release.
 */
async function checkBudgets(limiter: RateLimiter, budgets: Budget[]): Promise<Array<() => void>> {
  const releases: Array<() => void> = [];
  try {
    for (const { domain, key } of budgets) {
      // Marked before the budget is read: a failure another check counts meanwhile is then
      // either in what is read or still among the marks, never in neither.
      const pending = await limiter.begin(domain, key);
      releases.push(pending.release);
      const r = await limiter.peek(domain, key);
      if (!r) continue;
      if (r.limited) throw rateLimited(r.secsToFreedom);
      // The failures still possible are being tried now: the answer is a second away.
      if (r.remaining - (pending.count - 1) <= 0) throw rateLimited(1);
    }
    return releases;
  } catch (err) {
    for (const release of releases) release();
    throw err;
  }
}

/**
 * POST /fetch_api_key and the web's sign-in: a username and password for the account. As
 * Zulip tries its backends in order: Parley's own password (the username an email) when
 * PARLEY_PASSWORD_AUTH is on, then the LDAP directory (its username, or an email) when
 * configured. Failures are limited per username (Zulip's authenticate_by_username: 5 per
 * 30 minutes) and per source address (authenticate_by_ip), so that one password tried
 * across many accounts is slowed too. A hash of an older scheme or cost is replaced while
 * the password is at hand.
 */
export async function fetchApiKey(ctx: AppContext, realm: RealmRow, username: string, password: string, ip: string): Promise<UserRow> {
  const { limiter } = ctx;
  // Zulip's password_auth_enabled, checked before any budget: no password can ever work.
  if (!passwordFormEnabled(ctx.config.sso)) throw passwordAuthDisabled();
  const budgets: Budget[] = limiter.enabled
    ? [{ domain: 'authenticate_by_username', key: `${realm.id}:${username.trim().toLowerCase()}` }, { domain: 'authenticate_by_ip', key: ip }]
    : [];
  const releases = await checkBudgets(limiter, budgets);
  let found: Credentials | null;
  try {
    found = await checkCredentials(ctx, realm, username, password);
    if (!found) {
      // Counted before the pending marks go, so that no check sees neither.
      for (const b of budgets) await limiter.hit(b.domain, b.key);
      throw authenticationFailed();
    }
  } catch (err) {
    if (!(err instanceof LdapUnavailable)) throw err;
    // The directory's silence says nothing about the password: not a failure to count.
    ctx.log.warn({ backend: 'ldap', realm: realm.string_id, username, error: err.message }, 'LDAP directory unavailable');
    throw ldapUnavailable();
  } finally {
    for (const release of releases) release();
  }
  if (found.via === 'ldap') return signInWithDirectory(ctx, realm, found.person, found.autoSignup);
  const { user, hash } = found;
  if (realm.deactivated === 1) throw realmDeactivated();
  if (user.is_active !== 1) throw userDeactivated();
  if (needsRehash(hash)) await upgradePasswordHash(ctx, user, password);
  return user;
}

type Credentials = { via: 'password'; user: UserRow; hash: string } | { via: 'ldap'; person: LdapPerson; autoSignup: boolean };

/** Which method, if any, vouches for the username and password; throws LdapUnavailable. */
async function checkCredentials(ctx: AppContext, realm: RealmRow, username: string, password: string): Promise<Credentials | null> {
  const { sso } = ctx.config;
  if (sso.passwordAuth) {
    // The real address, as Zulip's EmailAuthBackend (a dummy `email` from feature level 163 is no username).
    const user = await users.findByDeliveryEmail(ctx.store.db, realm.id, username.trim());
    // Hash even for unknown users so response time does not reveal which emails exist.
    const ok = await verifyPassword(password, user?.password_hash ?? await dummyHash());
    if (user && ok && user.password_hash !== null) return { via: 'password', user, hash: user.password_hash };
  }
  if (sso.ldap) {
    const person = await authenticateLdap(sso.ldap, username, password);
    if (person) return { via: 'ldap', person, autoSignup: sso.ldap.autoSignup };
  }
  return null;
}

/**
 * The account of the person the directory vouched for (created with PARLEY_LDAP_AUTO_SIGNUP).
 * As Zulip's LDAP backend, an account it can neither find nor create answers the generic
 * failure; the log says which.
 */
async function signInWithDirectory(ctx: AppContext, realm: RealmRow, person: LdapPerson, autoSignup: boolean): Promise<UserRow> {
  try {
    return await signInExternally(ctx, realm, { backend: 'ldap', email: person.email, emailVerified: true, fullName: person.fullName },
      { autoSignup });
  } catch (err) {
    if (!(err instanceof SsoRefusal)) throw err;
    ctx.log.info({ ...err.logDetail, reason: err.reason }, 'LDAP sign-in refused');
    if (err.reason === 'no_account' || err.reason === 'invalid_email') throw authenticationFailed();
    throw err.toApiError();
  }
}

async function upgradePasswordHash(ctx: AppContext, user: UserRow, password: string): Promise<void> {
  const old = user.password_hash;
  const fresh = await hashPassword(password);
  await transact(ctx, async (tx) => {
    // Only if the password was not changed meanwhile.
    const current = await users.findById(tx.db, user.id);
    if (current?.password_hash === old) await users.update(tx.db, user.id, { password_hash: fresh });
  });
}

/** An Argon2id hash of nothing anyone knows, at today's cost: what unknown accounts are checked against. */
let dummy: { hash: Promise<string>; made: string } | undefined;
function dummyHash(): Promise<string> {
  // Made again if the cost changed (needsRehash says so), so its timing stays the real one's.
  if (!dummy || (dummy.made !== '' && needsRehash(dummy.made))) {
    const hash = hashPassword(randomString(32));
    const entry = { hash, made: '' };
    void hash.then((h) => { entry.made = h; }, () => { dummy = undefined; });
    dummy = entry;
  }
  return dummy.hash;
}
