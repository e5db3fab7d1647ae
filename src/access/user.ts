import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { PER_USER_EMAIL_VISIBILITY_LEVEL, dummyEmailUserId, emailVisibilityOf, viewerClass, visibilityAllows } from '../lib/email-visibility.js';
import { users } from '../store/repos/users.js';
import { badRequest, principalNotAuthorized, noSuchUser, mustBeOwner, mustBeAdmin } from '../errors.js';
import { fitsIdColumn, isPossibleId } from '../lib/ids.js';
import { Role } from '../lib/roles.js';

export interface AccessUserOpts {
  allowDeactivated?: boolean;
  allowBots?: boolean;
  /** Administrative access: owners are only changeable by owners. */
  forAdmin?: boolean;
}

/** Loads a user of the caller's organization, or throws Zulip's "No such user". */
export async function accessUserById(q: Q, acting: UserRow, id: number, opts: AccessUserOpts = {}): Promise<UserRow> {
  // Ids are 32-bit columns; PostgreSQL refuses to compare with anything larger.
  if (!isPossibleId(id)) throw noSuchUser();
  const target = await users.findInRealm(q, acting.realm_id, id);
  if (!target) throw noSuchUser();
  if (target.is_bot === 1 && !opts.allowBots) throw noSuchUser();
  if (target.is_active !== 1 && !opts.allowDeactivated) throw badRequest('User is deactivated');
  if (opts.forAdmin && target.role === Role.OWNER && acting.role !== Role.OWNER) {
    throw mustBeOwner();
  }
  return target;
}

/**
 * A user by email (GET /users/{email}, their presence). From feature level 163, as Zulip's
 * access_user_by_email: the API `email`; a dummy `user{id}@host` names the user by id; otherwise the real
 * address, found only among those whose email_address_visibility lets the caller's role see it.
 */
/** From this level GET/PATCH /users/{email} look up as Zulip 10 does (accessUserByEmail). */
export const EMAIL_LOOKUP_BY_VISIBILITY_LEVEL = 302;

export async function accessUserByEmail(q: Q, acting: UserRow, email: string, realm?: Pick<RealmRow, 'string_id'>, featureLevel = 0): Promise<UserRow> {
  // No address holds a NUL; PostgreSQL would refuse to even compare one.
  if (email.includes('\u0000')) throw noSuchUser();
  if (realm !== undefined && featureLevel >= EMAIL_LOOKUP_BY_VISIBILITY_LEVEL) {
    // Level 302 (Zulip 10's access_user_by_email): an address of the dummy form is the id it
    // names; any other is a real address, found only among the users whose visibility
    // setting shows it to the requester's role (the requester's own included).
    const id = dummyEmailUserId(email, realm);
    if (id !== undefined) return accessUserById(q, acting, id, { allowDeactivated: true, allowBots: true });
    const found = await users.findByDeliveryEmail(q, acting.realm_id, email.trim());
    if (!found || !visibilityAllows(emailVisibilityOf(found), viewerClass(acting.role))) throw noSuchUser();
    return found;
  }
  if (realm !== undefined && featureLevel >= PER_USER_EMAIL_VISIBILITY_LEVEL) {
    // The API `email` first (a visible real address, or the dummy itself): a real address of
    // the dummy's form (`user5@host`) still names its owner, where Zulip would take the id.
    const shown = await users.findByEmail(q, acting.realm_id, email);
    if (shown) return shown;
    const id = dummyEmailUserId(email, realm);
    if (id !== undefined) return accessUserById(q, acting, id, { allowDeactivated: true, allowBots: true });
    const found = await users.findByDeliveryEmail(q, acting.realm_id, email.trim());
    if (!found || !visibilityAllows(emailVisibilityOf(found), viewerClass(acting.role))) throw noSuchUser();
    return found;
  }
  const target = await users.findByEmail(q, acting.realm_id, email);
  if (!target) throw noSuchUser();
  return target;
}

export function requireAdmin(user: UserRow): void {
  if (user.role > Role.ADMINISTRATOR) throw mustBeAdmin();
}

export function requireNotGuest(user: UserRow): void {
  if (user.role === Role.GUEST) throw badRequest('Not allowed for guest users');
}


/**
 * Resolves principals to active users of the caller's organization. Before feature level
 * 208 anything else is 403 UNAUTHORIZED_PRINCIPAL; from 208, as Zulip's
 * bulk_access_users_by_*: 400 "No such user" when one is missing (checked for all first),
 * then "User is deactivated".
 */
export async function accessPrincipals(q: Q, acting: UserRow, principals: Array<string | number>, featureLevel = 0): Promise<UserRow[]> {
  const out = new Map<number, UserRow>();
  const found: Array<[string | number, UserRow | undefined]> = [];
  for (const p of principals) {
    const u = typeof p === 'number'
      ? (fitsIdColumn(p) ? await users.findInRealm(q, acting.realm_id, p) : undefined)
      : (p.includes('\u0000') ? undefined : await users.findByEmail(q, acting.realm_id, p));
    found.push([p, u]);
  }
  if (featureLevel >= PRINCIPAL_ERRORS_BAD_REQUEST) {
    if (found.some(([, u]) => !u)) throw noSuchUser();
    if (found.some(([, u]) => u!.is_active !== 1)) throw badRequest('User is deactivated');
  }
  for (const [p, u] of found) {
    if (!u || u.is_active !== 1) throw principalNotAuthorized(p);
    out.set(u.id, u);
  }
  return [...out.values()];
}

/** The feature level from which unknown or deactivated principals are 400 BAD_REQUEST. */
export const PRINCIPAL_ERRORS_BAD_REQUEST = 208;

