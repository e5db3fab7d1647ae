import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { AnyJson, Bool, Default, IntList, Opt, Str, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { doCreateMultiuseInvite, doInviteUsers, doResendInvite, doRevokeInvite, doRevokeMultiuseInvite, inviteLink, type InviteTerms } from '../../actions/invites.js';
import { doAcceptInvite } from '../../actions/invite-accept.js';
import { createSession } from '../../actions/sessions.js';
import { invitesControlledBy, usableInvite } from '../../reads/invites.js';
import { presentInvite } from '../../presenters/invite.js';
import { badRequest, invitationFailed } from '../../errors.js';
import { DEFAULT_INVITE_VALIDITY_MINUTES, inviteeEmails } from '../../lib/invites.js';
import { Role } from '../../lib/roles.js';
import { setSessionCookies } from '../session-auth.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { capList } from '../../lib/lists.js';
import { WireInvite } from '../../schemas/wire.js';

// A century: anything longer is no expiry a person means, and keeps timestamps in range.
const MAX_VALIDITY_MINUTES = 100 * 365 * 24 * 60;

/**
 * The invitation's terms other than its streams, as any JSON checked here: `null` is "never"
 * for the lifetimes, and a JSON number such as 5.0 passes as an integer.
 */
const TERMS = {
  invite_as: Opt(AnyJson()), invite_expires_in_minutes: Opt(AnyJson()), invite_expires_in_days: Opt(AnyJson()),
  group_ids: Opt(IntList(LIST_LIMITS.other, { description: 'User groups the invited user joins (feature level 322)' })),
};
type TermArgs = { readonly invite_as: unknown; readonly invite_expires_in_minutes: unknown; readonly invite_expires_in_days: unknown };

/**
 * The link's lifetime: Zulip 5's `invite_expires_in_days` (feature level 96; null for never
 * since 117), or `invite_expires_in_minutes` as later Zulip and the web app send it.
 */
function expiresInMinutes(args: TermArgs): number | null {
  for (const [name, scale] of [['invite_expires_in_minutes', 1], ['invite_expires_in_days', 24 * 60]] as const) {
    const v = args[name];
    if (v === undefined) continue;
    if (v === null) return null;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${name} is not an integer`);
    if (v <= 0 || v * scale > MAX_VALIDITY_MINUTES) throw badRequest(`Invalid ${name}`);
    return v * scale;
  }
  return DEFAULT_INVITE_VALIDITY_MINUTES;
}

function inviteAs(args: TermArgs): number {
  const v = args.invite_as;
  if (v === undefined) return Role.MEMBER;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest('invite_as is not an integer');
  return v;
}

/**
 * include_realm_default_subscriptions (feature level 261, default false). Left out below that
 * level: null, Zulip 5's rule (the default streams when the invitation names no stream).
 */
const includeDefaults = (v: boolean | undefined, featureLevel: number): boolean | null => v ?? (featureLevel >= 261 ? false : null);

export const inviteRoutes: Route[] = [
  route({
    method: 'POST', path: '/invites', auth: 'user', summary: 'Send invitations',
    params: {
      invitee_emails: Str(), ...TERMS, stream_ids: IntList(LIST_LIMITS.streams), include_realm_default_subscriptions: Opt(Bool()),
      notify_referrer_on_join: Default(Bool(), true),
    },
    answer: NoAnswer,
    handler: async (r) => {
      const emails = capList('invitee_emails', inviteeEmails(r.args.invitee_emails), LIST_LIMITS.other);
      const level = r.ctx.config.featureLevel;
      const terms: InviteTerms = {
        inviteAs: inviteAs(r.args), streamIds: r.args.stream_ids, expiresInMinutes: expiresInMinutes(r.args),
        includeDefaults: includeDefaults(r.args.include_realm_default_subscriptions, level), notifyReferrer: r.args.notify_referrer_on_join,
        groupIds: r.args.group_ids ?? [],
      };
      const skipped = await transact(r.ctx, (tx) => doInviteUsers(tx, r.realm, r.user, emails, terms, level));
      // As Zulip: the others' invitations went out, and the answer still names who was skipped.
      if (skipped.length > 0) {
        throw invitationFailed("Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!", skipped, true);
      }
      return {};
    },
  }),
  route({
    method: 'GET', path: '/invites', auth: 'user', summary: 'Get all invitations', answer: Type.Object({ invites: Type.Array(WireInvite) }),
    handler: async (r) => {
      const list = await invitesControlledBy(r.ctx.store.db, r.realm, r.user);
      return { invites: list.map((i) => presentInvite(i, inviteLink(r.ctx, r.realm, i.confirmation_key), r.ctx.config.featureLevel)) };
    },
  }),
  route({
    method: 'POST', path: '/invites/multiuse', auth: 'user', summary: 'Create a reusable invitation link',
    params: { ...TERMS, stream_ids: Opt(IntList(LIST_LIMITS.streams)), include_realm_default_subscriptions: Opt(Bool()) },
    answer: Type.Object({ invite_link: Type.String() }),
    handler: async (r) => {
      const terms: InviteTerms = {
        inviteAs: inviteAs(r.args), streamIds: r.args.stream_ids ?? [], expiresInMinutes: expiresInMinutes(r.args),
        includeDefaults: includeDefaults(r.args.include_realm_default_subscriptions, r.ctx.config.featureLevel),
        groupIds: r.args.group_ids ?? [],
      };
      return { invite_link: inviteLink(r.ctx, r.realm, await transact(r.ctx, (tx) => doCreateMultiuseInvite(tx, r.realm, r.user, terms, r.ctx.config.featureLevel))) };
    },
  }),
  route({
    method: 'DELETE', path: '/invites/multiuse/:invite_id', auth: 'user', summary: 'Revoke a reusable invitation link', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'invite_id');
      return done(transact(r.ctx, (tx) => doRevokeMultiuseInvite(tx, r.realm, r.user, id, r.ctx.config.featureLevel)));
    },
  }),
  route({
    method: 'DELETE', path: '/invites/:invite_id', auth: 'user', summary: 'Revoke an email invitation', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'invite_id');
      return done(transact(r.ctx, (tx) => doRevokeInvite(tx, r.realm, r.user, id)));
    },
  }),
  route({
    method: 'POST', path: '/invites/:invite_id/resend', auth: 'user', summary: 'Resend an email invitation', answer: Type.Object({ timestamp: Type.Integer() }),
    handler: async (r) => {
      const id = pathInt(r, 'invite_id');
      return { timestamp: await transact(r.ctx, (tx) => doResendInvite(tx, r.realm, r.user, id)) };
    },
  }),
  // The sign-up page of the web app (web-contract.md): outside the API, no credentials.
  route({
    method: 'GET', path: '/accounts/invite/:key', prefix: '', auth: 'none', summary: 'Look up an invitation',
    answer: Type.Object({ realm_name: Type.String(), email: Type.Union([Type.String(), Type.Null()]), invited_as: Type.Integer() }),
    handler: async (r) => {
      const invite = await usableInvite(r.ctx.store.db, r.realm, r.path.key ?? '');
      return { realm_name: r.realm.name, email: invite.email, invited_as: invite.invited_as };
    },
  }),
  route({
    method: 'POST', path: '/accounts/register', prefix: '', auth: 'none', summary: 'Sign up with an invitation',
    params: { key: Str(), full_name: Str(), password: Str(), email: Opt(Str()) },
    answer: Type.Object({ user_id: Type.Integer() }),
    handler: async (r) => {
      const signUp = { key: r.args.key, fullName: r.args.full_name, password: r.args.password, email: r.args.email };
      const user = await transact(r.ctx, (tx) => doAcceptInvite(tx, r.realm, signUp));
      setSessionCookies(r.ctx, r.reply, await createSession(r.ctx, r.realm, user));
      return { user_id: user.id };
    },
  }),
];
