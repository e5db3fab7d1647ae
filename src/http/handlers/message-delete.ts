import { pathInt, type Route } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { doDeleteMessage } from '../../actions/message-delete.js';

export const messageDeleteRoutes: Route[] = [
  {
    method: 'DELETE', path: '/messages/:message_id', auth: 'user',
    handler: async (r) => {
      const messageId = pathInt(r, 'message_id');
      await transact(r.ctx, (tx) => doDeleteMessage(tx, r.realm, r.user, messageId));
      return {};
    },
  },
];
