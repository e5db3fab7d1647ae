import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Opt, Str, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { doAddRealmPlayground, doRemoveRealmPlayground } from '../../actions/realm-playgrounds.js';
import { PLAYGROUND_TEMPLATE_LEVEL, prefixToTemplate } from '../../lib/playground-rules.js';
import { isValidUrl } from '../../lib/linkifier-rules.js';
import { badRequest, missingArgument } from '../../errors.js';

// Zulip's require_realm_admin: the role is checked before any parameter is read.
export const realmPlaygroundRoutes: Route[] = [
  route({
    method: 'POST', path: '/realm/playgrounds', auth: 'user', summary: 'Add a code playground', requires: 'admin',
    params: {
      name: Str({ description: 'The name shown for the playground' }),
      pygments_language: Str({ description: 'The Pygments language of the code blocks it opens' }),
      url_template: Opt(Str({ description: 'RFC 6570 template with the one variable `code` (feature level 196)' })),
      url_prefix: Opt(Str({ description: 'The URL the code is appended to (before feature level 196)' })),
    },
    answer: Type.Object({ id: Type.Integer() }),
    handler: async (r) => {
      const templateLevel = r.ctx.config.featureLevel >= PLAYGROUND_TEMPLATE_LEVEL;
      let urlTemplate: string;
      if (templateLevel) {
        if (r.args.url_template === undefined) throw missingArgument('url_template');
        urlTemplate = r.args.url_template;
      } else {
        const prefix = r.args.url_prefix;
        if (prefix === undefined) throw missingArgument('url_prefix');
        // The view's check_url, before the model sees it.
        if (!isValidUrl(prefix.trim())) throw badRequest('url_prefix is not a URL');
        urlTemplate = prefixToTemplate(prefix.trim());
      }
      const input = { name: r.args.name, pygmentsLanguage: r.args.pygments_language, urlTemplate, templateLevel };
      return { id: await transact(r.ctx, (tx) => doAddRealmPlayground(tx, r.realm, input)) };
    },
  }),
  route({
    method: 'DELETE', path: '/realm/playgrounds/:playground_id', auth: 'user', summary: 'Remove a code playground', requires: 'admin', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'playground_id');
      return done(transact(r.ctx, (tx) => doRemoveRealmPlayground(tx, r.realm, id, r.ctx.config.featureLevel >= PLAYGROUND_TEMPLATE_LEVEL)));
    },
  }),
];
