import { done, NoAnswer, route, type Route } from '../route.js';
import { Int, IntList, Str, Type } from '../../schemas/params.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { doUpdateMessageFlags } from '../../actions/message-flags.js';
import { doMarkAllAsRead, doMarkStreamAsRead } from '../../actions/mark-read.js';

export const messageFlagRoutes: Route[] = [
  route({
    method: 'POST', path: '/messages/flags', auth: 'user', summary: 'Add or remove a flag on messages',
    // Declared (and so read) in Zulip's order, so that the first missing parameter is the one named.
    params: { messages: IntList(LIST_LIMITS.messageIds), op: Str({ description: 'add or remove' }), flag: Str({ description: 'read, starred, collapsed, ...' }) },
    answer: Type.Object({ messages: Type.Array(Type.Integer()) }),
    handler: async (r) => {
      const { messages, op, flag } = r.args;
      await transact(r.ctx, (tx) => doUpdateMessageFlags(tx, r.user, op, flag, messages));
      // Zulip echoes the ids asked for, whether or not each one's flag changed.
      return { messages };
    },
  }),
  route({
    method: 'POST', path: '/mark_all_as_read', auth: 'user', summary: 'Mark all messages as read', answer: NoAnswer,
    handler: async (r) => done(transact(r.ctx, (tx) => doMarkAllAsRead(tx, r.user))),
  }),
  route({
    method: 'POST', path: '/mark_stream_as_read', auth: 'user', summary: 'Mark a stream as read', params: { stream_id: Int() }, answer: NoAnswer,
    handler: async (r) => {
      const streamId = r.args.stream_id;
      return done(transact(r.ctx, (tx) => doMarkStreamAsRead(tx, r.user, streamId)));
    },
  }),
  route({
    method: 'POST', path: '/mark_topic_as_read', auth: 'user', summary: 'Mark a topic as read', params: { stream_id: Int(), topic_name: Str() }, answer: NoAnswer,
    handler: async (r) => {
      const { stream_id: streamId, topic_name: topic } = r.args;
      return done(transact(r.ctx, (tx) => doMarkStreamAsRead(tx, r.user, streamId, topic)));
    },
  }),
];
