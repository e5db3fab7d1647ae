import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import type { InviteRow, Q, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { invites, INVITE_STATUS } from '../store/repos/invites.js';
import { users } from '../store/repos/users.js';
import { streams } from '../store/repos/streams.js';
import {
  badRequest, insufficientPermission, invalidInviteAs, invitationFailed, inviteStreamMissing, multiuseStreamInvalid, mustBeAdmin, mustBeOwner,
  noInviteEmails, noInviteStreams, noSuchInvitation, notForGuests,
} from '../errors.js';
import { accessStreamById } from '../access/stream.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import { INVITE_AS_VALUES } from '../lib/invites.js';
import { isAdminRole, Role } from '../lib/roles.js';
import { realmUri } from '../lib/realm-host.js';
import { nowSeconds } from '../lib/time.js';
import { checkEmail } from './user-create.js';
import { accessUserGroupById, checkCanEditUserGroups } from '../access/user-group.js';

/**
 * What an inviter chose: the role, the streams (ids), minutes until the link expires (null:
 * never), whether the default streams come too (261; null: Zulip 5's "only when no stream is
 * named"), and (email invites, 267) whether the inviter hears of the sign-up.
 */
export interface InviteTerms {
  inviteAs: number; streamIds: number[]; expiresInMinutes: number | null;
  includeDefaults: boolean | null; notifyReferrer?: boolean;
  /** Level 322: the user groups the invited user joins. */
  groupIds?: number[];
}

/**
 * Level 322: the groups an invitation adds its user to, each one the inviter may add members
 * to now (as POST /user_groups/{id}/members checks it), stored as JSON ids.
 */
async function inviteGroupIds(q: Q, realm: RealmRow, inviter: UserRow, ids: number[] | undefined): Promise<string> {
  const unique = [...new Set(ids ?? [])];
  if (unique.length > 0) checkCanEditUserGroups(inviter, realm);
  for (const id of unique) await accessUserGroupById(q, inviter, id);
  return JSON.stringify(unique);
}
const flag = (b: boolean | null) => (b === null ? null : b ? 1 : 0);

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Zulip's generate_key shape: 24 lowercase letters and digits (about 124 bits). */
function newConfirmationKey(): string {
  let out = '';
  while (out.length < 24) {
    for (const b of crypto.randomBytes(32)) if (b < 252 && out.length < 24) out += KEY_ALPHABET[b % 36];
  }
  return out;
}

export const inviteLink = (ctx: AppContext, realm: RealmRow, key: string) => `${realmUri(ctx.config, realm)}/join/${key}/`;

/** Zulip's require_member_or_admin, then can_invite_others_to_realm. */
async function checkCanInvite(q: Q, realm: RealmRow, user: UserRow): Promise<void> {
  if (user.role === Role.GUEST) throw notForGuests();
  // Level 321: can_invite_users_group (invite_to_realm_policy is kept equal to it).
  if (!await hasRealmGroupPermission(q, realm, user, 'can_invite_users_group')) throw insufficientPermission();
}

/** Zulip's check_if_owner_required. */
function checkOwnerRequired(inviteAs: number, user: UserRow): void {
  if (inviteAs === Role.OWNER && user.role !== Role.OWNER) throw mustBeOwner();
}

async function inviteStreams(q: Q, user: UserRow, ids: number[], missing: (id: number) => Error): Promise<StreamRow[]> {
  const out: StreamRow[] = [];
  for (const id of ids) {
    try {
      out.push((await accessStreamById(q, user, id)).stream);
    } catch {
      throw missing(id);
    }
  }
  return out;
}

/**
 * Zulip's notify_invites_changed: to the organization's administrators and (from feature
 * level 209, when non-administrators may make reusable links) the invite's creator.
 */
export async function notifyInvitesChanged(tx: Tx, realmId: number, referrerId?: number): Promise<void> {
  const ids = await users.listAdminIds(tx.db, realmId);
  if (referrerId !== undefined && !ids.includes(referrerId)) ids.push(referrerId);
  tx.notify({ type: 'invites_changed' }, ids, realmId);
}

/** The feature level from which create_multiuse_invite_group decides who makes reusable links. */
export const MULTIUSE_GROUP_LEVEL = 209;

const expiryOf = (now: number, minutes: number | null) => (minutes === null ? null : now + minutes * 60);

/**
 * POST /invites (Zulip 5's invite_users_backend and do_invite_users): every address checked
 * before any invite is made. Answers the addresses skipped because they already have an
 * account; the caller reports them after the others' invites have committed, as Zulip does.
 */
export async function doInviteUsers(
  tx: Tx, realm: RealmRow, inviter: UserRow, emails: string[], terms: InviteTerms, featureLevel: number,
): Promise<Array<[string, string, boolean]>> {
  await checkCanInvite(tx.db, realm, inviter);
  if (!INVITE_AS_VALUES.includes(terms.inviteAs)) throw invalidInviteAs();
  checkOwnerRequired(terms.inviteAs, inviter);
  if ((terms.inviteAs === Role.ADMINISTRATOR || terms.inviteAs === Role.MODERATOR) && !isAdminRole(inviter.role)) {
    throw badRequest('Must be an organization administrator');
  }
  if (emails.length === 0) throw noInviteEmails();
  // Zulip 5 wanted a stream; from feature level 157 none is fine (the default streams, or nothing).
  if (terms.streamIds.length === 0 && featureLevel < 157) throw noInviteStreams();
  const streamRows = await inviteStreams(tx.db, inviter, terms.streamIds, inviteStreamMissing);
  const groupIds = await inviteGroupIds(tx.db, realm, inviter, terms.groupIds);
  const errors: Array<[string, string, boolean]> = [];
  const skipped: Array<[string, string, boolean]> = [];
  const good: string[] = [];
  for (const email of emails) {
    try {
      checkEmail(email);
    } catch {
      errors.push([email, 'Invalid address.', false]);
      continue;
    }
    const existing = await users.findByDeliveryEmail(tx.db, realm.id, email);
    if (existing) skipped.push([email, existing.is_active === 1 ? 'Already has an account.' : 'Account has been deactivated.', existing.is_active !== 1]);
    else good.push(email);
  }
  if (errors.length > 0) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...errors, ...skipped], false);
  if (skipped.length > 0 && skipped.length === emails.length) throw invitationFailed("We weren't able to invite anyone.", skipped, false);
  const now = nowSeconds();
  for (const email of good) {
    const key = newConfirmationKey();
    await invites.insert(tx.db, {
      realm_id: realm.id, is_multiuse: 0, email, invited_as: terms.inviteAs, referred_by: inviter.id, invited_at: now,
      expires: expiryOf(now, terms.expiresInMinutes), confirmation_key: key, stream_ids: JSON.stringify(streamRows.map((s) => s.id)),
      include_realm_default_subscriptions: flag(terms.includeDefaults), notify_referrer_on_join: terms.notifyReferrer === false ? 0 : 1, group_ids: groupIds,
    });
    tx.later((ctx) => sendInviteMail(ctx, realm, inviter, email, key));
  }
  await notifyInvitesChanged(tx, realm.id, inviter.id);
  return skipped;
}

async function sendInviteMail(ctx: AppContext, realm: RealmRow, inviter: UserRow, email: string, key: string): Promise<void> {
  await ctx.mail.send({
    to: email,
    subject: `${inviter.full_name} invited you to join ${realm.name}`,
    text: `${inviter.full_name} (${inviter.delivery_email}) has invited you to join ${realm.name}, a Parley organization.\n\n`
      + `Click the link below to create your account:\n\n${inviteLink(ctx, realm, key)}\n\n`
      + 'If you were not expecting this invitation, you can ignore this message.\n',
  });
}

/**
 * POST /invites/multiuse (Zulip's generate_multiuse_invite_backend): the members of the
 * realm's create_multiuse_invite_group (feature level 209; administrators by default), no
 * guest; a link for an administrator or a moderator needs an administrator, one for an
 * owner an owner. Answers the new link's key (inviteLink makes the URL).
 */
export async function doCreateMultiuseInvite(tx: Tx, realm: RealmRow, inviter: UserRow, terms: InviteTerms, featureLevel: number): Promise<string> {
  // Below level 209 the contract is Zulip 5's: administrators only, with its error.
  if (featureLevel < MULTIUSE_GROUP_LEVEL && !isAdminRole(inviter.role)) throw mustBeAdmin();
  if (inviter.role === Role.GUEST) throw notForGuests();
  if (!await hasRealmGroupPermission(tx.db, realm, inviter, 'create_multiuse_invite_group')) throw insufficientPermission();
  if (!INVITE_AS_VALUES.includes(terms.inviteAs)) throw invalidInviteAs();
  checkOwnerRequired(terms.inviteAs, inviter);
  if ([Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR].includes(terms.inviteAs as never) && !isAdminRole(inviter.role)) throw mustBeAdmin();
  const streamRows = await inviteStreams(tx.db, inviter, terms.streamIds, multiuseStreamInvalid);
  const groupIds = await inviteGroupIds(tx.db, realm, inviter, terms.groupIds);
  const now = nowSeconds();
  const key = newConfirmationKey();
  await invites.insert(tx.db, {
    realm_id: realm.id, is_multiuse: 1, email: null, invited_as: terms.inviteAs, referred_by: inviter.id, invited_at: now,
    expires: expiryOf(now, terms.expiresInMinutes), confirmation_key: key, stream_ids: JSON.stringify(streamRows.map((s) => s.id)),
    include_realm_default_subscriptions: flag(terms.includeDefaults), group_ids: groupIds,
  });
  await notifyInvitesChanged(tx, realm.id, inviter.id);
  return key;
}

/** An invite of this realm, of this kind, still pending; otherwise Zulip's "No such invitation". */
async function pendingInvite(q: Q, realm: RealmRow, id: number, multiuse: boolean): Promise<InviteRow> {
  const invite = await invites.findById(q, id);
  if (!invite || invite.realm_id !== realm.id || invite.is_multiuse !== (multiuse ? 1 : 0) || invite.status !== INVITE_STATUS.PENDING) throw noSuchInvitation();
  return invite;
}

/** Someone else's invite: its owner-only role needs an owner, and the rest an administrator (Zulip's revoke_user_invite). */
function checkControls(user: UserRow, invite: InviteRow): void {
  if (invite.referred_by === user.id) return;
  checkOwnerRequired(invite.invited_as, user);
  if (!isAdminRole(user.role)) throw badRequest('Must be an organization administrator');
}

/** DELETE /invites/{id}. */
export async function doRevokeInvite(tx: Tx, realm: RealmRow, user: UserRow, id: number): Promise<void> {
  if (user.role === Role.GUEST) throw notForGuests();
  const invite = await pendingInvite(tx.db, realm, id, false);
  checkControls(user, invite);
  await invites.finish(tx.db, invite.id, INVITE_STATUS.REVOKED);
  await notifyInvitesChanged(tx, realm.id, invite.referred_by);
}

/**
 * DELETE /invites/multiuse/{id}: its creator (feature level 209: any member who could make
 * it), else administrators (and owners for a link that makes owners).
 */
export async function doRevokeMultiuseInvite(tx: Tx, realm: RealmRow, user: UserRow, id: number, featureLevel: number): Promise<void> {
  if (featureLevel < MULTIUSE_GROUP_LEVEL && !isAdminRole(user.role)) throw mustBeAdmin();
  if (user.role === Role.GUEST) throw notForGuests();
  const invite = await pendingInvite(tx.db, realm, id, true);
  if (invite.referred_by !== user.id) {
    checkOwnerRequired(invite.invited_as, user);
    if (!isAdminRole(user.role)) throw mustBeAdmin();
  }
  await invites.finish(tx.db, invite.id, INVITE_STATUS.REVOKED);
  await notifyInvitesChanged(tx, realm.id, invite.referred_by);
}

/** POST /invites/{id}/resend: the same link mailed again. Answers the new invitation time. */
export async function doResendInvite(tx: Tx, realm: RealmRow, user: UserRow, id: number): Promise<number> {
  if (user.role === Role.GUEST) throw notForGuests();
  const invite = await pendingInvite(tx.db, realm, id, false);
  checkControls(user, invite);
  const now = nowSeconds();
  await invites.update(tx.db, invite.id, { invited_at: now });
  const inviter = (await users.findById(tx.db, invite.referred_by)) ?? user;
  tx.later((ctx) => sendInviteMail(ctx, realm, inviter, invite.email!, invite.confirmation_key));
  return now;
}

/** The streams an accepted invite names that still exist. */
export async function inviteStreamRows(q: Q, invite: InviteRow): Promise<StreamRow[]> {
  const ids = JSON.parse(invite.stream_ids) as number[];
  return (await streams.listByIds(q, ids)).filter((s) => s.realm_id === invite.realm_id);
}
