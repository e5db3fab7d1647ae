import { pathInt, type AuthedRequest, type Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { requireAdmin } from '../../access/user.js';
import {
  accessProfileField, doCreateProfileField, doDeleteProfileField, doRemoveProfileData, doReorderProfileFields, doUpdateProfileData, doUpdateProfileField,
} from '../../actions/profile-fields.js';
import { realmProfileFields } from '../../reads/profile-fields.js';
import { checkFieldDataParam, checkProfileDataItems } from '../../lib/profile-field-rules.js';
import { botRequestsRefused } from '../../errors.js';

/** Zulip 5 strips the label; the hint stays as given. */
const labelAndHint = (r: AuthedRequest) => ({
  name: (r.params.optStr('name') ?? '').trim(), hint: r.params.optStr('hint') ?? '', data: checkFieldDataParam(r.params.optJsonList('field_data', LIST_LIMITS.other)),
});

function requireHuman(r: AuthedRequest): void {
  if (r.user.is_bot === 1) throw botRequestsRefused();
}

export const profileFieldRoutes: Route[] = [
  {
    method: 'GET', path: '/realm/profile_fields', auth: 'user',
    handler: async (r) => ({ custom_fields: await realmProfileFields(r.ctx.store.db, r.realm.id) }),
  },
  {
    method: 'POST', path: '/realm/profile_fields', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const { name, hint, data } = labelAndHint(r);
      const type = r.params.int('field_type');
      return { id: await transact(r.ctx, (tx) => doCreateProfileField(tx, r.realm, { name, hint, type, data })) };
    },
  },
  {
    method: 'PATCH', path: '/realm/profile_fields', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const order = r.params.intList('order', LIST_LIMITS.other);
      await transact(r.ctx, (tx) => doReorderProfileFields(tx, r.realm, order));
      return {};
    },
  },
  {
    method: 'PATCH', path: '/realm/profile_fields/:field_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'field_id');
      const change = labelAndHint(r);
      await transact(r.ctx, async (tx) => doUpdateProfileField(tx, r.realm, await accessProfileField(tx, r.realm.id, id), change));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/realm/profile_fields/:field_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'field_id');
      await transact(r.ctx, async (tx) => doDeleteProfileField(tx, r.realm, await accessProfileField(tx, r.realm.id, id)));
      return {};
    },
  },
  {
    method: 'PATCH', path: '/users/me/profile_data', auth: 'user',
    handler: async (r) => {
      requireHuman(r);
      const items = checkProfileDataItems('data', r.params.jsonList('data', LIST_LIMITS.other), false);
      await transact(r.ctx, (tx) => doUpdateProfileData(tx, r.user, items));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/users/me/profile_data', auth: 'user',
    handler: async (r) => {
      requireHuman(r);
      const ids = r.params.intList('data', LIST_LIMITS.other);
      await transact(r.ctx, (tx) => doRemoveProfileData(tx, r.user, ids));
      return {};
    },
  },
];
