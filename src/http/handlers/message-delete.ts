import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { doDeleteMessage } from '../../actions/message-delete.js';

export const messageDeleteRoutes: Route[] = [
  route({
    method: 'DELETE', path: '/messages/:message_id', auth: 'user', summary: 'Delete a message', answer: NoAnswer,
    handler: async (r) => {
      const messageId = pathInt(r, 'message_id');
      return done(transact(r.ctx, (tx) => doDeleteMessage(tx, r.realm, r.user, messageId)));
    },
  }),
];
