import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { invites, INVITE_STATUS } from '../store/repos/invites.js';
import { users } from '../store/repos/users.js';
import { badRequest, confirmationLinkExpired, missingArgument, passwordTooWeak, realmDeactivated } from '../errors.js';
import { usableInvite } from '../reads/invites.js';
import { checkEmail, doCreateUser } from './user-create.js';
import { inviteStreamRows, notifyInvitesChanged } from './invites.js';

// Zulip's PASSWORD_MIN_LENGTH default, as PATCH /settings checks a new password.
const MIN_PASSWORD_LENGTH = 6;

export interface SignUp { key: string; fullName: string; password: string; email: string | undefined }

/**
 * POST /accounts/register: the account an invitation promised, with its role and streams (or
 * the default streams when it names none, as Zulip 5). An email invite is used up, with any
 * other pending invites to the same address; a reusable link stays until revoked or expired.
 */
export async function doAcceptInvite(tx: Tx, realm: RealmRow, s: SignUp): Promise<UserRow> {
  if (realm.deactivated === 1) throw realmDeactivated();
  const invite = await usableInvite(tx.db, realm, s.key);
  let email = invite.email;
  if (email === null) {
    if (s.email === undefined) throw missingArgument('email');
    try {
      email = checkEmail(s.email);
    } catch {
      throw badRequest('Invalid address.');
    }
  }
  if ([...s.password].length < MIN_PASSWORD_LENGTH) throw passwordTooWeak();
  const existing = await users.findByEmail(tx.db, realm.id, email);
  if (existing) throw badRequest(existing.is_active === 1 ? 'Already has an account.' : 'Account has been deactivated.');
  if (invite.is_multiuse === 0) {
    // Two sign-ups racing on one link: the second finds it used.
    if (!(await invites.finish(tx.db, invite.id, INVITE_STATUS.USED))) throw confirmationLinkExpired();
    for (const other of await invites.listPendingByEmail(tx.db, realm.id, email.toLowerCase())) await invites.finish(tx.db, other.id, INVITE_STATUS.REVOKED);
    await notifyInvitesChanged(tx, realm.id);
  }
  return doCreateUser(tx, realm, { email, fullName: s.fullName, password: s.password, role: invite.invited_as, streams: await inviteStreamRows(tx.db, invite) });
}
