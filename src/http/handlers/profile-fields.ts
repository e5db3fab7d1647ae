import { done, NoAnswer, pathInt, route, type AuthedRequest, type Route } from '../route.js';
import { AnyJson, Bool, Default, Dict, Int, IntList, List, OneOf, Opt, Str, Type } from '../../schemas/params.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { capList } from '../../lib/lists.js';
import { transact } from '../../actions/transaction.js';
import {
  accessProfileField, doCreateProfileField, doDeleteProfileField, doRemoveProfileData, doReorderProfileFields, doUpdateProfileData, doUpdateProfileField,
} from '../../actions/profile-fields.js';
import { realmProfileFields } from '../../reads/profile-fields.js';
import { checkFieldDataParam } from '../../lib/profile-field-rules.js';
import { botRequestsRefused } from '../../errors.js';
import { isAdminRole } from '../../lib/roles.js';
import { WireProfileField } from '../../schemas/wire.js';

/**
 * A field's label, hint and field_data. field_data is any JSON, checked to be a dict by
 * checkFieldDataParam; a list is refused there too, unless longer than the list limit
 * (then that limit's message, as before).
 */
const LABEL_AND_HINT = { name: Default(Str(), ''), hint: Default(Str(), ''), field_data: Opt(AnyJson()) };
type LabelArgs = { readonly name: string; readonly hint: string; readonly field_data: unknown };
/** Feature levels 146 and 244 (accepted at any level). */
const FLAGS = { display_in_profile_summary: Opt(Bool()), required: Opt(Bool()), editable_by_user: Opt(Bool({ description: 'Whether users may set their own value; true when not given (feature level 296)' })) };

/** Zulip strips the label; the hint stays as given. */
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
    handler: async (r) => ({ custom_fields: await realmProfileFields(r.ctx.store.db, r.realm.id, r.ctx.config.featureLevel) }),
  }),
  route({
    method: 'POST', path: '/realm/profile_fields', auth: 'user', summary: 'Create a custom profile field', requires: 'admin',
    params: { ...LABEL_AND_HINT, field_type: Int(), ...FLAGS },
    answer: Type.Object({ id: Type.Integer() }),
    handler: async (r) => {
      const { name, hint, data } = labelAndHint(r.args);
      const type = r.args.field_type;
      const req = { name, hint, type, data, displayInSummary: r.args.display_in_profile_summary ?? false, required: r.args.required ?? false, editableByUser: r.args.editable_by_user ?? true };
      return { id: await transact(r.ctx, (tx) => doCreateProfileField(tx, r.realm, req, r.ctx.config.featureLevel)) };
    },
  }),
  route({
    method: 'PATCH', path: '/realm/profile_fields', auth: 'user', summary: 'Reorder custom profile fields', requires: 'admin',
    params: { order: IntList(LIST_LIMITS.other) },
    answer: NoAnswer,
    handler: async (r) => {
      const order = r.args.order;
      return done(transact(r.ctx, (tx) => doReorderProfileFields(tx, r.realm, order, r.ctx.config.featureLevel)));
    },
  }),
  route({
    method: 'PATCH', path: '/realm/profile_fields/:field_id', auth: 'user', summary: 'Update a custom profile field', requires: 'admin',
    // Every parameter optional (feature level 252): what is left out keeps its value.
    params: { name: Opt(Str()), hint: Opt(Str()), field_data: Opt(AnyJson()), ...FLAGS },
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'field_id');
      const { name, hint, field_data: fieldData, display_in_profile_summary: displayInSummary, required } = r.args;
      const level = r.ctx.config.featureLevel;
      // Below level 252 (the spec's contract) a missing label, hint or field_data is the empty one, as in Zulip 5.
      const old = level < 252;
      const change = {
        name: old ? (name ?? '').trim() : name?.trim(), hint: old ? hint ?? '' : hint,
        data: fieldData === undefined && !old ? undefined : checkFieldDataParam(capList('field_data', fieldData, LIST_LIMITS.other)),
        displayInSummary, required, editableByUser: r.args.editable_by_user,
      };
      return done(transact(r.ctx, async (tx) => doUpdateProfileField(tx, r.realm, await accessProfileField(tx, r.realm.id, id), change, level)));
    },
  }),
  route({
    method: 'DELETE', path: '/realm/profile_fields/:field_id', auth: 'user', summary: 'Delete a custom profile field', requires: 'admin', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'field_id');
      return done(transact(r.ctx, async (tx) => doDeleteProfileField(tx, r.realm, await accessProfileField(tx, r.realm.id, id), r.ctx.config.featureLevel)));
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
      // Level 296: a field not editable by users is the administrators' to set.
      return done(transact(r.ctx, (tx) => doUpdateProfileData(tx, r.user, items, !isAdminRole(r.user.role))));
    },
  }),
  route({
    method: 'DELETE', path: '/users/me/profile_data', auth: 'user', summary: 'Remove your custom profile data', params: { data: IntList(LIST_LIMITS.other) },
    answer: NoAnswer,
    handler: async (r) => {
      requireHuman(r);
      const ids = r.args.data;
      return done(transact(r.ctx, (tx) => doRemoveProfileData(tx, r.user, ids, !isAdminRole(r.user.role))));
    },
  }),
];
