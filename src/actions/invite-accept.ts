import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { notificationBot } from '../reads/system-bots.js';
import { sendMessage } from './message-send.js';
import { silentMention } from './message-move-notices.js';
import { INTERNAL_CLIENT } from '../lib/system-bots.js';
import type { InviteRow, RealmRow, UserRow } from '../store/rows.js';
import { nowSeconds } from '../lib/time.js';
import { invites, INVITE_STATUS } from '../store/repos/invites.js';
import { users } from '../store/repos/users.js';
import { badRequest, confirmationLinkExpired, missingArgument, passwordTooWeak, realmDeactivated } from '../errors.js';
import { usableInvite } from '../reads/invites.js';
import { checkEmail, doCreateUser } from './user-create.js';
import { inviteStreamRows, notifyInvitesChanged } from './invites.js';
import { userGroups } from '../store/repos/user-groups.js';
import { doAddUserGroupMembers } from './user-groups.js';

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
  const existing = await users.findByDeliveryEmail(tx.db, realm.id, email);
  if (existing) throw badRequest(existing.is_active === 1 ? 'Already has an account.' : 'Account has been deactivated.');
  return createInvitedUser(tx, realm, invite, email, s.fullName, s.password);
}

/**
 * Single sign-on of someone invited by email who has no account yet (Zulip sends them on to
 * registration with the invitation's role and streams): the newest usable invitation to
 * `email` makes the account, without a password. None: undefined.
 */
export async function doAcceptInviteBySignIn(tx: Tx, realm: RealmRow, email: string, fullName: string): Promise<UserRow | undefined> {
  const now = nowSeconds();
  const usable = (await invites.listPendingByEmail(tx.db, realm.id, email.toLowerCase()))
    .filter((i) => i.expires === null || i.expires > now).sort((a, b) => b.id - a.id);
  const invite = usable[0];
  if (!invite) return undefined;
  return createInvitedUser(tx, realm, invite, email, fullName, undefined);
}

async function createInvitedUser(tx: Tx, realm: RealmRow, invite: InviteRow, email: string, fullName: string, password: string | undefined): Promise<UserRow> {
  if (invite.is_multiuse === 0) {
    // Two sign-ups racing on one link: the second finds it used.
    if (!(await invites.finish(tx.db, invite.id, INVITE_STATUS.USED))) throw confirmationLinkExpired();
    for (const other of await invites.listPendingByEmail(tx.db, realm.id, email.toLowerCase())) await invites.finish(tx.db, other.id, INVITE_STATUS.REVOKED);
    await notifyInvitesChanged(tx, realm.id);
  }
  const withDefaults = invite.include_realm_default_subscriptions === null ? {} : { withDefaults: invite.include_realm_default_subscriptions === 1 };
  const user = await doCreateUser(tx, realm, {
    email, fullName, password, role: invite.invited_as, streams: await inviteStreamRows(tx.db, invite), ...withDefaults,
  });
  // Level 322: the invitation's groups (those still there).
  for (const groupId of JSON.parse(invite.group_ids || '[]') as number[]) {
    const group = await userGroups.findInRealm(tx.db, realm.id, groupId);
    if (group && group.is_system_group !== 1) await doAddUserGroupMembers(tx, group, [user.id]);
  }
  if (invite.is_multiuse === 0 && invite.notify_referrer_on_join === 1) {
    const referrerId = invite.referred_by;
    tx.later((ctx) => tellReferrer(ctx, realm, referrerId, user));
  }
  return user;
}

/**
 * Zulip's process_new_human_user: Notification Bot tells the (still active) inviter of an
 * email invitation that it was accepted, unless the invitation said not to (feature level 267).
 */
async function tellReferrer(ctx: AppContext, realm: RealmRow, referrerId: number, joined: UserRow): Promise<void> {
  const referrer = await users.findById(ctx.store.db, referrerId);
  if (!referrer || referrer.is_active !== 1 || referrer.realm_id !== realm.id) return;
  const bot = await notificationBot(ctx.store.db, realm.id);
  await sendMessage(ctx, realm, bot, {
    to: { kind: 'private', ids: [referrer.id] }, content: `${silentMention(joined)} accepted your invitation to join Zulip!`, client: INTERNAL_CLIENT, internal: true,
  });
}
