import { checkNewAddress, doChangeDeliveryEmail } from '../../actions/email-change.js';
import { done, NoAnswer, pathInt, PreSerialized, route, type AuthedRequest, type Route } from '../route.js';
import { AnyJson, Bool, Default, Int, List, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { WireOwnUser, WireUser } from '../../schemas/wire.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { accessUserByEmail, accessUserById } from '../../access/user.js';
import { deliveryEmailOpts } from '../../presenters/user.js';
import { doCreateUser } from '../../actions/user-create.js';
import { doChangeFullName, doChangeRole, doRegenerateApiKey } from '../../actions/user-update.js';
import { doDeactivateUser, doMailDeactivationNotice, doReactivateUser } from '../../actions/user-deactivate.js';
import { listUsers, ownUserAnswer, userAnswer } from '../../reads/users.js';
import { doRemoveProfileData, doUpdateProfileData } from '../../actions/profile-fields.js';
import { checkProfileDataItems } from '../../lib/profile-field-rules.js';
import { badRequest } from '../../errors.js';
import { isAdminRole } from '../../lib/roles.js';
import type { UserRow } from '../../rows.js';
import type { Json } from '../params.js';

const PRESENT_PARAMS = {
  client_gravatar: Default(Bool({ description: 'null avatar_url for Gravatar users, which the client computes' }), true),
  include_custom_profile_fields: Default(Bool(), false),
};

function presentOpts(r: AuthedRequest<ArgsOf<typeof PRESENT_PARAMS>>) {
  return {
    clientGravatar: r.args.client_gravatar,
    ...deliveryEmailOpts(r.user, r.realm, r.ctx.config.featureLevel),
    profileData: r.args.include_custom_profile_fields ? {} : undefined,
    featureLevel: r.ctx.config.featureLevel,
  };
}

const isEmptyValue = (v: unknown) => v === null || v === '' || (Array.isArray(v) && v.length === 0);

async function targetOf(r: AuthedRequest): Promise<UserRow> {
  const key = r.path.user_id ?? '';
  if (/^\d+$/.test(key)) return accessUserById(r.ctx.store.db, r.user, Number(key), { allowDeactivated: true, allowBots: true });
  return accessUserByEmail(r.ctx.store.db, r.user, key, r.realm, r.ctx.config.featureLevel);
}

export const userRoutes: Route[] = [
  route({
    method: 'GET', path: '/users', auth: 'user', summary: 'Get all users',
    params: PRESENT_PARAMS,
    answer: Type.Object({ members: Type.Array(WireUser) }),
    handler: async (r) => ({ members: await listUsers(r.ctx.store.db, r.realm.id, presentOpts(r)) }),
  }),
  route({
    method: 'GET', path: '/users/me', auth: 'user', summary: 'Get your own user', answer: WireOwnUser,
    handler: async (r) => new PreSerialized(await ownUserAnswer(r.ctx.store.db, r.user, r.ctx.config.featureLevel)),
  }),
  route({
    method: 'DELETE', path: '/users/me', auth: 'user', summary: 'Deactivate your own account', answer: NoAnswer,
    handler: async (r) => done(transact(r.ctx, (tx) => doDeactivateUser(tx, r.user))),
  }),
  route({
    method: 'POST', path: '/users/me/api_key/regenerate', auth: 'user', summary: 'Regenerate your API key', answer: Type.Object({ api_key: Type.String() }),
    handler: async (r) => ({ api_key: await transact(r.ctx, (tx) => doRegenerateApiKey(tx, r.user)) }),
  }),
  route({
    method: 'GET', path: '/users/:user_id', auth: 'user', summary: 'Get a user by id or email',
    params: PRESENT_PARAMS,
    answer: Type.Object({ user: WireUser }),
    handler: async (r) => ({ user: await userAnswer(r.ctx.store.db, await targetOf(r), presentOpts(r)) }),
  }),
  route({
    method: 'POST', path: '/users', auth: 'user', summary: 'Create a user', params: { email: Str(), password: Str(), full_name: Str() },
    answer: Type.Object({ user_id: Type.Integer() }),
    handler: async (r) => {
      if (!isAdminRole(r.user.role)) throw badRequest('User not authorized to create users');
      const { email, password, full_name: fullName } = r.args;
      const user = await transact(r.ctx, (tx) => doCreateUser(tx, r.realm, { email, password, fullName }));
      return { user_id: user.id };
    },
  }),
  route({
    method: 'PATCH', path: '/users/:user_id', auth: 'user', summary: 'Update a user', requires: 'admin',
    params: {
      full_name: Opt(Str()),
      role: Opt(Int({ description: '100 owner, 200 administrator, 300 moderator, 400 member, 600 guest' })),
      profile_data: Opt(List(AnyJson({ description: '{"id": field id, "value": ...}' }), LIST_LIMITS.other)),
      new_email: Opt(Str({ description: 'Level 313: needs the can_change_user_emails special permission (`parley user special-permission`)' })),
    },
    answer: NoAnswer,
    handler: async (r) => {
      // Level 313: the user by id, or by email as GET /users/{email} finds them.
      const key = r.path.user_id ?? '';
      const id = /^\d+$/.test(key) ? pathInt(r, 'user_id') : (await accessUserByEmail(r.ctx.store.db, r.user, key, r.realm, r.ctx.config.featureLevel)).id;
      // Zulip lets only administrators holding the can_change_user_emails special permission
      // (granted from the server's command line) change another's address, at once.
      const newEmail = r.args.new_email;
      if (newEmail !== undefined && r.user.can_change_user_emails !== 1) throw badRequest('User not authorized to change user emails');
      const fullName = r.args.full_name;
      const role = r.args.role;
      const raw = r.args.profile_data as Json[] | undefined;
      const profile = raw === undefined ? undefined : checkProfileDataItems('profile_data', raw, true);
      await transact(r.ctx, async (tx) => {
        const target = await accessUserById(tx.db, r.user, id, { allowDeactivated: true, allowBots: true, forAdmin: true });
        if (newEmail !== undefined && newEmail !== target.delivery_email) {
          await checkNewAddress(tx.db, r.realm, newEmail);
          await doChangeDeliveryEmail(tx, r.realm, target, newEmail);
        }
        if (fullName !== undefined) await doChangeFullName(tx, target, fullName);
        if (role !== undefined) await doChangeRole(tx, r.user, target, role);
        if (profile !== undefined) {
          // As Zulip's update_user_backend: an empty or null value clears the field.
          await doRemoveProfileData(tx, target, profile.filter((p) => isEmptyValue(p.value)).map((p) => p.id));
          await doUpdateProfileData(tx, target, profile.filter((p) => !isEmptyValue(p.value)));
        }
      });
      return {};
    },
  }),
  route({
    method: 'DELETE', path: '/users/:user_id', auth: 'user', summary: 'Deactivate a user', requires: 'admin', answer: NoAnswer,
    params: {
      deactivation_notification_comment: Opt(Str({ maxLength: 2000, description: 'Mail the user about the deactivation, with this comment unless empty (feature level 135)' })),
    },
    handler: async (r) => {
      const id = pathInt(r, 'user_id');
      // Absent: no mail; empty: the notice without a comment (Zulip strips it).
      const comment = r.args.deactivation_notification_comment?.trim();
      return done(transact(r.ctx, async (tx) => {
        const target = await accessUserById(tx.db, r.user, id, { forAdmin: true });
        await doDeactivateUser(tx, target);
        if (comment !== undefined) doMailDeactivationNotice(tx, r.realm, target, comment);
      }));
    },
  }),
  route({
    method: 'POST', path: '/users/:user_id/reactivate', auth: 'user', summary: 'Reactivate a user', requires: 'admin', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'user_id');
      return done(transact(r.ctx, async (tx) =>
        doReactivateUser(tx, r.realm, await accessUserById(tx.db, r.user, id, { allowDeactivated: true, allowBots: true, forAdmin: true }))));
    },
  }),
];
