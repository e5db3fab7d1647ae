import { pathInt, route, type Route } from '../route.js';
import { Type } from '../../schemas/params.js';
import { readReceipts } from '../../reads/read-receipts.js';

export const readReceiptRoutes: Route[] = [
  route({
    method: 'GET', path: '/messages/:message_id/read_receipts', auth: 'user', summary: 'Get a message\'s read receipts',
    params: {},
    answer: Type.Object({ user_ids: Type.Array(Type.Integer(), { description: 'Who has read the message, as far as each lets others know' }) }),
    handler: async (r) => ({ user_ids: await readReceipts(r.ctx.store.db, r.realm, r.user, pathInt(r, 'message_id'), r.ctx.config.featureLevel) }),
  }),
];
