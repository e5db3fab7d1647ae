import type { AuthedRequest, Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { pathInt, PreSerialized } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { accessUserByEmail, accessUserById, requireAdmin } from '../../access/user.js';
import { canSeeDeliveryEmail } from '../../presenters/user.js';
import { doCreateUser } from '../../actions/user-create.js';
import { doChangeFullName, doChangeRole, doRegenerateApiKey } from '../../actions/user-update.js';
import { doDeactivateUser, doReactivateUser } from '../../actions/user-deactivate.js';
import { listUsers, ownUserAnswer, userAnswer } from '../../reads/users.js';
import { doRemoveProfileData, doUpdateProfileData } from '../../actions/profile-fields.js';
import { checkProfileDataItems } from '../../lib/profile-field-rules.js';
import { badRequest } from '../../errors.js';
import { isAdminRole } from '../../lib/roles.js';
import type { UserRow } from '../../rows.js';

function presentOpts(r: AuthedRequest) {
  return {
    clientGravatar: r.params.bool('client_gravatar', true),
    showDeliveryEmail: canSeeDeliveryEmail(r.user, r.realm),
    profileData: r.params.bool('include_custom_profile_fields', false) ? {} : undefined,
  };
}

const isEmptyValue = (v: unknown) => v === null || v === '' || (Array.isArray(v) && v.length === 0);

async function targetOf(r: AuthedRequest): Promise<UserRow> {
  const key = r.path.user_id ?? '';
  if (/^\d+$/.test(key)) return accessUserById(r.ctx.store.db, r.user, Number(key), { allowDeactivated: true, allowBots: true });
  return accessUserByEmail(r.ctx.store.db, r.user, key);
}

export const userRoutes: Route[] = [
  {
    method: 'GET', path: '/users', auth: 'user',
    handler: async (r) => ({ members: await listUsers(r.ctx.store.db, r.realm.id, presentOpts(r)) }),
  },
  {
    method: 'GET', path: '/users/me', auth: 'user',
    handler: async (r) => new PreSerialized(await ownUserAnswer(r.ctx.store.db, r.user)),
  },
  {
    method: 'DELETE', path: '/users/me', auth: 'user',
    handler: async (r) => {
      await transact(r.ctx, (tx) => doDeactivateUser(tx, r.user));
      return {};
    },
  },
  {
    method: 'POST', path: '/users/me/api_key/regenerate', auth: 'user',
    handler: async (r) => ({ api_key: await transact(r.ctx, (tx) => doRegenerateApiKey(tx, r.user)) }),
  },
  {
    method: 'GET', path: '/users/:user_id', auth: 'user',
    handler: async (r) => ({ user: await userAnswer(r.ctx.store.db, await targetOf(r), presentOpts(r)) }),
  },
  {
    method: 'POST', path: '/users', auth: 'user',
    handler: async (r) => {
      if (!isAdminRole(r.user.role)) throw badRequest('User not authorized to create users');
      const email = r.params.str('email');
      const password = r.params.str('password');
      const fullName = r.params.str('full_name');
      const user = await transact(r.ctx, (tx) => doCreateUser(tx, r.realm, { email, password, fullName }));
      return { user_id: user.id };
    },
  },
  {
    method: 'PATCH', path: '/users/:user_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'user_id');
      const fullName = r.params.optStr('full_name');
      const role = r.params.optInt('role');
      const raw = r.params.optJsonList('profile_data', LIST_LIMITS.other);
      const profile = raw === undefined ? undefined : checkProfileDataItems('profile_data', raw, true);
      await transact(r.ctx, async (tx) => {
        const target = await accessUserById(tx.db, r.user, id, { allowDeactivated: true, allowBots: true, forAdmin: true });
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
  },
  {
    method: 'DELETE', path: '/users/:user_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'user_id');
      await transact(r.ctx, async (tx) => doDeactivateUser(tx, await accessUserById(tx.db, r.user, id, { forAdmin: true })));
      return {};
    },
  },
  {
    method: 'POST', path: '/users/:user_id/reactivate', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'user_id');
      await transact(r.ctx, async (tx) =>
        doReactivateUser(tx, r.realm, await accessUserById(tx.db, r.user, id, { allowDeactivated: true, allowBots: true, forAdmin: true })));
      return {};
    },
  },
];
