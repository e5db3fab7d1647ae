import { done, NoAnswer, pathInt, route, type AuthedRequest, type Route } from '../route.js';
import { AnyJson, Default, Dict, Int, IntList, List, OneOf, Opt, Str, Type } from '../../schemas/params.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { capList } from '../../lib/lists.js';
import { transact } from '../../actions/transaction.js';
import {
  accessProfileField, doCreateProfileField, doDeleteProfileField, doRemoveProfileData, doReorderProfileFields, doUpdateProfileData, doUpdateProfileField,
} from '../../actions/profile-fields.js';
import { realmProfileFields } from '../../reads/profile-fields.js';
import { checkFieldDataParam } from '../../lib/profile-field-rules.js';
import { botRequestsRefused } from '../../errors.js';
import { WireProfileField } from '../../schemas/wire.js';

/**
 * A field's label, hint and field_data. field_data is any JSON, checked to be a dict by
 * checkFieldDataParam; a list is refused there too, unless longer than the list limit
 * (then that limit's message, as before).
 */
const LABEL_AND_HINT = { name: Default(Str(), ''), hint: Default(Str(), ''), field_data: Opt(AnyJson()) };
type LabelArgs = { readonly name: string; readonly hint: string; readonly field_data: unknown };

/** Zulip 5 strips the label; the hint stays as given. */
const labelAndHint = (args: LabelArgs) => ({
  name: args.name.trim(), hint: args.hint, data: checkFieldDataParam(capList('field_data', args.field_data, LIST_LIMITS.other)),
});

function requireHuman(r: AuthedRequest<unknown>): void {
  if (r.user.is_bot === 1) throw botRequestsRefused();
}

export const profileFieldRoutes: Route[] = [
  route({
    method: 'GET', path: '/realm/profile_fields', auth: 'user', summary: 'Get custom profile fields',
    answer: Type.Object({ custom_fields: Type.Array(WireProfileField) }),
    handler: async (r) => ({ custom_fields: await realmProfileFields(r.ctx.store.db, r.realm.id) }),
  }),
  route({
    method: 'POST', path: '/realm/profile_fields', auth: 'user', summary: 'Create a custom profile field', requires: 'admin',
    params: { ...LABEL_AND_HINT, field_type: Int() },
    answer: Type.Object({ id: Type.Integer() }),
    handler: async (r) => {
      const { name, hint, data } = labelAndHint(r.args);
      const type = r.args.field_type;
      return { id: await transact(r.ctx, (tx) => doCreateProfileField(tx, r.realm, { name, hint, type, data })) };
    },
  }),
  route({
    method: 'PATCH', path: '/realm/profile_fields', auth: 'user', summary: 'Reorder custom profile fields', requires: 'admin',
    params: { order: IntList(LIST_LIMITS.other) },
    answer: NoAnswer,
    handler: async (r) => {
      const order = r.args.order;
      return done(transact(r.ctx, (tx) => doReorderProfileFields(tx, r.realm, order)));
    },
  }),
  route({
    method: 'PATCH', path: '/realm/profile_fields/:field_id', auth: 'user', summary: 'Update a custom profile field', requires: 'admin',
    params: LABEL_AND_HINT,
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'field_id');
      const change = labelAndHint(r.args);
      return done(transact(r.ctx, async (tx) => doUpdateProfileField(tx, r.realm, await accessProfileField(tx, r.realm.id, id), change)));
    },
  }),
  route({
    method: 'DELETE', path: '/realm/profile_fields/:field_id', auth: 'user', summary: 'Delete a custom profile field', requires: 'admin', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'field_id');
      return done(transact(r.ctx, async (tx) => doDeleteProfileField(tx, r.realm, await accessProfileField(tx, r.realm.id, id))));
    },
  }),
  route({
    method: 'PATCH', path: '/users/me/profile_data', auth: 'user', summary: 'Update your custom profile data',
    // Zulip's check_list(check_dict_only([id: check_int, value: check_union([check_string, check_list(check_int)])])).
    params: { data: List(Dict({ id: Int(), value: OneOf([Str(), Type.Array(Type.Integer())]) }), LIST_LIMITS.other) },
    answer: NoAnswer,
    handler: async (r) => {
      requireHuman(r);
      const items = r.args.data.map(({ id, value }) => ({ id, value }));
      return done(transact(r.ctx, (tx) => doUpdateProfileData(tx, r.user, items)));
    },
  }),
  route({
    method: 'DELETE', path: '/users/me/profile_data', auth: 'user', summary: 'Remove your custom profile data', params: { data: IntList(LIST_LIMITS.other) },
    answer: NoAnswer,
    handler: async (r) => {
      requireHuman(r);
      const ids = r.args.data;
      return done(transact(r.ctx, (tx) => doRemoveProfileData(tx, r.user, ids)));
    },
  }),
];
