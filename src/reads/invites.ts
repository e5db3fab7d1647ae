import type { InviteRow, Q, RealmRow, UserRow } from '../store/rows.js';
import { invites, INVITE_STATUS } from '../store/repos/invites.js';
import { isAdminRole, Role } from '../lib/roles.js';
import { CONFIRMATION_KEY } from '../lib/invites.js';
import { nowSeconds } from '../lib/time.js';
import { confirmationLinkExpired, confirmationLinkNotFound, notForGuests } from '../errors.js';

/** GET /invites (Zulip's do_get_user_invites): administrators see the organization's, others their own. */
export async function invitesControlledBy(q: Q, realm: RealmRow, user: UserRow): Promise<InviteRow[]> {
  if (user.role === Role.GUEST) throw notForGuests();
  return invites.listPending(q, realm.id, nowSeconds(), isAdminRole(user.role) ? undefined : user.id);
}

/**
 * The invitation behind a link's key, if it can still be used on this organization: unknown
 * (or another organization's) is Zulip's "couldn't find" (404); used, revoked or expired is its
 * "expired or been deactivated" (400).
 */
export async function usableInvite(q: Q, realm: RealmRow, key: string): Promise<InviteRow> {
  const invite = CONFIRMATION_KEY.test(key) ? await invites.findByKey(q, key) : undefined;
  if (!invite || invite.realm_id !== realm.id) throw confirmationLinkNotFound();
  if (invite.status !== INVITE_STATUS.PENDING || (invite.expires !== null && invite.expires <= nowSeconds())) throw confirmationLinkExpired();
  return invite;
}
