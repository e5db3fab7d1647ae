import type { Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { doUpdateMessageFlags } from '../../actions/message-flags.js';
import { doMarkAllAsRead, doMarkStreamAsRead } from '../../actions/mark-read.js';

export const messageFlagRoutes: Route[] = [
  {
    method: 'POST', path: '/messages/flags', auth: 'user',
    handler: async (r) => {
      // Read in Zulip's order, so that the first missing parameter is the one named.
      const messages = r.params.intList('messages', LIST_LIMITS.messageIds);
      const op = r.params.str('op');
      const flag = r.params.str('flag');
      await transact(r.ctx, (tx) => doUpdateMessageFlags(tx, r.user, op, flag, messages));
      // Zulip echoes the ids asked for, whether or not each one's flag changed.
      return { messages };
    },
  },
  {
    method: 'POST', path: '/mark_all_as_read', auth: 'user',
    handler: async (r) => {
      await transact(r.ctx, (tx) => doMarkAllAsRead(tx, r.user));
      return {};
    },
  },
  {
    method: 'POST', path: '/mark_stream_as_read', auth: 'user',
    handler: async (r) => {
      const streamId = r.params.int('stream_id');
      await transact(r.ctx, (tx) => doMarkStreamAsRead(tx, r.user, streamId));
      return {};
    },
  },
  {
    method: 'POST', path: '/mark_topic_as_read', auth: 'user',
    handler: async (r) => {
      const streamId = r.params.int('stream_id');
      const topic = r.params.str('topic_name');
      await transact(r.ctx, (tx) => doMarkStreamAsRead(tx, r.user, streamId, topic));
      return {};
    },
  },
];
