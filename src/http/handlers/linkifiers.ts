import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Str, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { doAddLinkifier, doRemoveLinkifier, doUpdateLinkifier } from '../../actions/linkifiers.js';
import { legacyRealmFilters, realmLinkifiers } from '../../reads/linkifiers.js';
import { WireLinkifier } from '../../schemas/wire.js';

const params = { pattern: Str(), url_format_string: Str() };

// Zulip checks the role (require_realm_admin) before it reads any parameter.
export const linkifierRoutes: Route[] = [
  route({
    method: 'GET', path: '/realm/linkifiers', auth: 'user', summary: 'Get linkifiers', answer: Type.Object({ linkifiers: Type.Array(WireLinkifier) }),
    handler: async (r) => ({ linkifiers: await realmLinkifiers(r.ctx.store.db, r.realm.id) }),
  }),
  route({
    // Removed from Zulip at feature level 54, and still what zulip-js's filters.retrieve calls.
    method: 'GET', path: '/realm/filters', auth: 'user', summary: 'Get linkifiers (legacy form)',
    answer: Type.Object({ filters: Type.Array(Type.Tuple([Type.String(), Type.String(), Type.Integer()])) }),
    handler: async (r) => ({ filters: legacyRealmFilters(await realmLinkifiers(r.ctx.store.db, r.realm.id)) }),
  }),
  route({
    method: 'POST', path: '/realm/filters', auth: 'user', summary: 'Add a linkifier', requires: 'admin',
    params,
    answer: Type.Object({ id: Type.Integer() }),
    handler: async (r) => {
      const pattern = r.args.pattern;
      const urlFormat = r.args.url_format_string;
      return { id: await transact(r.ctx, (tx) => doAddLinkifier(tx, r.realm, pattern, urlFormat)) };
    },
  }),
  route({
    method: 'PATCH', path: '/realm/filters/:filter_id', auth: 'user', summary: 'Update a linkifier', requires: 'admin',
    params,
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'filter_id');
      const pattern = r.args.pattern;
      const urlFormat = r.args.url_format_string;
      return done(transact(r.ctx, (tx) => doUpdateLinkifier(tx, r.realm, id, pattern, urlFormat)));
    },
  }),
  route({
    method: 'DELETE', path: '/realm/filters/:filter_id', auth: 'user', summary: 'Remove a linkifier', requires: 'admin', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'filter_id');
      return done(transact(r.ctx, (tx) => doRemoveLinkifier(tx, r.realm, id)));
    },
  }),
];
