import { done, NoAnswer, pathInt, route, type AuthedRequest, type Route } from '../route.js';
import { IntList, Opt, Str, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { doAddLinkifier, doRemoveLinkifier, doReorderLinkifiers, doUpdateLinkifier, type LinkifierUrl } from '../../actions/linkifiers.js';
import { legacyRealmFilters, presentLinkifiers, realmLinkifiers } from '../../reads/linkifiers.js';
import { WireLinkifier } from '../../schemas/wire.js';
import { missingArgument } from '../../errors.js';
import { LIST_LIMITS } from '../../lib/limits.js';

/** Level 176 replaced url_format_string by url_template; a level-122 client still sends the former. */
const LINKIFIER_TEMPLATE_LEVEL = 176;

const params = {
  pattern: Str(),
  url_template: Opt(Str({ description: 'The RFC 6570 URL template (feature level 176)' })),
  url_format_string: Opt(Str({ description: 'The URL format string, with %(name)s for named groups (before feature level 176)' })),
};

function urlOf(r: AuthedRequest<{ url_template: string | undefined; url_format_string: string | undefined }>): LinkifierUrl {
  const template = r.args.url_template;
  if (template !== undefined) return { template };
  const format = r.args.url_format_string;
  if (format !== undefined) return { format };
  throw missingArgument(r.ctx.config.featureLevel >= LINKIFIER_TEMPLATE_LEVEL ? 'url_template' : 'url_format_string');
}

// Zulip checks the role (require_realm_admin) before it reads any parameter.
export const linkifierRoutes: Route[] = [
  route({
    method: 'GET', path: '/realm/linkifiers', auth: 'user', summary: 'Get linkifiers', answer: Type.Object({ linkifiers: Type.Array(WireLinkifier) }),
    handler: async (r) => ({
      linkifiers: presentLinkifiers(await realmLinkifiers(r.ctx.store.db, r.realm.id), r.ctx.config.featureLevel >= LINKIFIER_TEMPLATE_LEVEL),
    }),
  }),
  route({
    method: 'PATCH', path: '/realm/linkifiers', auth: 'user', summary: 'Reorder linkifiers', requires: 'admin',
    params: { ordered_linkifier_ids: IntList(LIST_LIMITS.other, { description: 'Every linkifier\'s id, in the order they should apply (feature level 202)' }) },
    answer: NoAnswer,
    handler: async (r) => {
      const ids = r.args.ordered_linkifier_ids;
      return done(transact(r.ctx, (tx) => doReorderLinkifiers(tx, r.realm, ids)));
    },
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
      const url = urlOf(r);
      return { id: await transact(r.ctx, (tx) => doAddLinkifier(tx, r.realm, pattern, url)) };
    },
  }),
  route({
    method: 'PATCH', path: '/realm/filters/:filter_id', auth: 'user', summary: 'Update a linkifier', requires: 'admin',
    params,
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'filter_id');
      const pattern = r.args.pattern;
      const url = urlOf(r);
      return done(transact(r.ctx, (tx) => doUpdateLinkifier(tx, r.realm, id, pattern, url)));
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
