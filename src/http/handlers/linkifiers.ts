import type { Route } from '../route.js';
import { pathInt } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { requireAdmin } from '../../access/user.js';
import { doAddLinkifier, doRemoveLinkifier, doUpdateLinkifier } from '../../actions/linkifiers.js';
import { legacyRealmFilters, realmLinkifiers } from '../../reads/linkifiers.js';

// Zulip checks the role (require_realm_admin) before it reads any parameter.
export const linkifierRoutes: Route[] = [
  {
    method: 'GET', path: '/realm/linkifiers', auth: 'user',
    handler: async (r) => ({ linkifiers: await realmLinkifiers(r.ctx.store.db, r.realm.id) }),
  },
  {
    // Removed from Zulip at feature level 54, and still what zulip-js's filters.retrieve calls.
    method: 'GET', path: '/realm/filters', auth: 'user',
    handler: async (r) => ({ filters: legacyRealmFilters(await realmLinkifiers(r.ctx.store.db, r.realm.id)) }),
  },
  {
    method: 'POST', path: '/realm/filters', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const pattern = r.params.str('pattern');
      const urlFormat = r.params.str('url_format_string');
      return { id: await transact(r.ctx, (tx) => doAddLinkifier(tx, r.realm, pattern, urlFormat)) };
    },
  },
  {
    method: 'PATCH', path: '/realm/filters/:filter_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'filter_id');
      const pattern = r.params.str('pattern');
      const urlFormat = r.params.str('url_format_string');
      await transact(r.ctx, (tx) => doUpdateLinkifier(tx, r.realm, id, pattern, urlFormat));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/realm/filters/:filter_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'filter_id');
      await transact(r.ctx, (tx) => doRemoveLinkifier(tx, r.realm, id));
      return {};
    },
  },
];
