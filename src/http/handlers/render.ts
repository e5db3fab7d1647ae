import type { Route } from '../route.js';
import { renderPreview } from '../../reads/render-preview.js';

export const renderRoutes: Route[] = [
  {
    method: 'POST', path: '/messages/render', auth: 'user',
    handler: async (r) => ({ rendered: await renderPreview(r.ctx.store.db, r.realm, r.user, r.params.str('content')) }),
  },
];
