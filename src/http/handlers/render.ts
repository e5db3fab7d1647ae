import type { Route } from '../route.js';
import { renderMarkdown } from '../../markdown/index.js';
import { renderContextFor } from '../../reads/render-context.js';

export const renderRoutes: Route[] = [
  {
    method: 'POST', path: '/messages/render', auth: 'user',
    handler: async (r) => {
      const content = r.params.str('content');
      const rctx = await renderContextFor(r.ctx.store.db, r.realm, r.user, content);
      return { rendered: renderMarkdown(content, rctx).html };
    },
  },
];
