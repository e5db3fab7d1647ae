import { pathInt, type BaseRequest, type Route } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { doCreateMultiuseInvite, doInviteUsers, doResendInvite, doRevokeInvite, doRevokeMultiuseInvite, inviteLink, type InviteTerms } from '../../actions/invites.js';
import { doAcceptInvite } from '../../actions/invite-accept.js';
import { doCreateSession } from '../../actions/sessions.js';
import { invitesControlledBy, usableInvite } from '../../reads/invites.js';
import { presentInvite } from '../../presenters/invite.js';
import { badRequest, invitationFailed } from '../../errors.js';
import { DEFAULT_INVITE_VALIDITY_MINUTES, inviteeEmails } from '../../lib/invites.js';
import { Role } from '../../lib/roles.js';
import { setSessionCookies } from '../session-auth.js';

// A century: anything longer is no expiry a person means, and keeps timestamps in range.
const MAX_VALIDITY_MINUTES = 100 * 365 * 24 * 60;

/**
 * The link's lifetime: Zulip 5's `invite_expires_in_days` (feature level 96; null for never
 * since 117), or `invite_expires_in_minutes` as later Zulip and the web app send it.
 */
function expiresInMinutes(r: BaseRequest): number | null {
  for (const [name, scale] of [['invite_expires_in_minutes', 1], ['invite_expires_in_days', 24 * 60]] as const) {
    const v = r.params.optJson(name);
    if (v === undefined) continue;
    if (v === null) return null;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${name} is not an integer`);
    if (v <= 0 || v * scale > MAX_VALIDITY_MINUTES) throw badRequest(`Invalid ${name}`);
    return v * scale;
  }
  return DEFAULT_INVITE_VALIDITY_MINUTES;
}

function inviteAs(r: BaseRequest): number {
  const v = r.params.optJson('invite_as');
  if (v === undefined) return Role.MEMBER;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest('invite_as is not an integer');
  return v;
}

export const inviteRoutes: Route[] = [
  {
    method: 'POST', path: '/invites', auth: 'user',
    handler: async (r) => {
      const emails = inviteeEmails(r.params.str('invitee_emails'));
      const terms: InviteTerms = { inviteAs: inviteAs(r), streamIds: r.params.intList('stream_ids'), expiresInMinutes: expiresInMinutes(r) };
      const skipped = await transact(r.ctx, (tx) => doInviteUsers(tx, r.realm, r.user, emails, terms));
      // As Zulip: the others' invitations went out, and the answer still names who was skipped.
      if (skipped.length > 0) {
        throw invitationFailed("Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!", skipped, true);
      }
      return {};
    },
  },
  {
    method: 'GET', path: '/invites', auth: 'user',
    handler: async (r) => {
      const list = await invitesControlledBy(r.ctx.store.db, r.realm, r.user);
      return { invites: list.map((i) => presentInvite(i, inviteLink(r.ctx, r.realm, i.confirmation_key))) };
    },
  },
  {
    method: 'POST', path: '/invites/multiuse', auth: 'user',
    handler: async (r) => {
      const terms: InviteTerms = { inviteAs: inviteAs(r), streamIds: r.params.optIntList('stream_ids') ?? [], expiresInMinutes: expiresInMinutes(r) };
      return { invite_link: await transact(r.ctx, (tx) => doCreateMultiuseInvite(tx, r.ctx, r.realm, r.user, terms)) };
    },
  },
  {
    method: 'DELETE', path: '/invites/multiuse/:invite_id', auth: 'user',
    handler: async (r) => {
      const id = pathInt(r, 'invite_id');
      await transact(r.ctx, (tx) => doRevokeMultiuseInvite(tx, r.realm, r.user, id));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/invites/:invite_id', auth: 'user',
    handler: async (r) => {
      const id = pathInt(r, 'invite_id');
      await transact(r.ctx, (tx) => doRevokeInvite(tx, r.realm, r.user, id));
      return {};
    },
  },
  {
    method: 'POST', path: '/invites/:invite_id/resend', auth: 'user',
    handler: async (r) => {
      const id = pathInt(r, 'invite_id');
      return { timestamp: await transact(r.ctx, (tx) => doResendInvite(tx, r.realm, r.user, id)) };
    },
  },
  // The sign-up page of the web app (web-contract.md): outside the API, no credentials.
  {
    method: 'GET', path: '/accounts/invite/:key', prefix: '', auth: 'none',
    handler: async (r) => {
      const invite = await usableInvite(r.ctx.store.db, r.realm, r.path.key ?? '');
      return { realm_name: r.realm.name, email: invite.email, invited_as: invite.invited_as };
    },
  },
  {
    method: 'POST', path: '/accounts/register', prefix: '', auth: 'none',
    handler: async (r) => {
      const signUp = { key: r.params.str('key'), fullName: r.params.str('full_name'), password: r.params.str('password'), email: r.params.optStr('email') };
      const user = await transact(r.ctx, (tx) => doAcceptInvite(tx, r.realm, signUp));
      setSessionCookies(r.ctx, r.reply, await doCreateSession(r.ctx, r.realm, user));
      return { user_id: user.id };
    },
  },
];
