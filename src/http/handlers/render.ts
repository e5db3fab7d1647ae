import { route, type Route } from '../route.js';
import { Str, Type } from '../../schemas/params.js';
import { renderPreview } from '../../reads/render-preview.js';

export const renderRoutes: Route[] = [
  route({
    method: 'POST', path: '/messages/render', auth: 'user', summary: 'Render a message', params: { content: Str() }, answer: Type.Object({ rendered: Type.String() }),
    handler: async (r) => ({ rendered: await renderPreview(r.ctx.store.db, r.realm, r.user, r.args.content, r.ctx.config.featureLevel) }),
  }),
];
