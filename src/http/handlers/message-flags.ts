import { generalChatToEmpty } from '../../lib/empty-topic.js';
import { CompleteAnswer, done, NoAnswer, route, type Route } from '../route.js';
import { AnyJson, Bool, Default, Int, IntList, Str, Type } from '../../schemas/params.js';
import { anchorOf, NARROW } from './message-read.js';
import { fetchMessageWindow, MAX_MESSAGES_PER_FETCH } from '../../reads/messages.js';
import { badRequest } from '../../errors.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { completeAnswer } from '../../lib/batch-budget.js';
import { transact } from '../../actions/transaction.js';
import { doUpdateMessageFlags } from '../../actions/message-flags.js';
import { markAllAsRead, doMarkStreamAsRead } from '../../actions/mark-read.js';

const IGNORED = Type.Optional(Type.Array(Type.Integer(), {
  description: 'Feature level 355, removing `read` only: the streams whose messages were left read because the user is not subscribed to them',
}));

/** Level 355: marking unread names the streams it skipped (Zulip keeps every unread message in a subscribed stream). */
function ignoredAnswer(level: number, ignored: number[] | undefined): { ignored_because_not_subscribed_channels?: number[] } {
  return level >= 355 && ignored !== undefined ? { ignored_because_not_subscribed_channels: ignored } : {};
}

export const messageFlagRoutes: Route[] = [
  route({
    method: 'POST', path: '/messages/flags', auth: 'user', summary: 'Add or remove a flag on messages',
    // Declared (and so read) in Zulip's order, so that the first missing parameter is the one named.
    params: { messages: IntList(LIST_LIMITS.messageIds), op: Str({ description: 'add or remove' }), flag: Str({ description: 'read, starred, collapsed, ...' }) },
    answer: Type.Object({ messages: Type.Array(Type.Integer()), ignored_because_not_subscribed_channels: IGNORED }),
    handler: async (r) => {
      const { messages, op, flag } = r.args;
      const { ignoredStreamIds } = await transact(r.ctx, (tx) => doUpdateMessageFlags(tx, r.user, op, flag, messages));
      // Zulip echoes the ids asked for, whether or not each one's flag changed.
      return { messages, ...ignoredAnswer(r.ctx.config.featureLevel, ignoredStreamIds) };
    },
  }),
  route({
    method: 'POST', path: '/messages/flags/narrow', auth: 'user', summary: 'Add or remove a flag on the messages of a range of a narrow (feature level 155)',
    params: {
      anchor: Str({ description: 'A message id, or newest, oldest or first_unread' }),
      include_anchor: Default(Bool(), true),
      num_before: Int(), num_after: Int(),
      narrow: AnyJson({ description: NARROW }),
      op: Str({ description: 'add or remove' }), flag: Str({ description: 'read, starred, collapsed, ...' }),
    },
    answer: Type.Object({
      processed_count: Type.Integer(), updated_count: Type.Integer(),
      first_processed_id: Type.Union([Type.Integer(), Type.Null()]), last_processed_id: Type.Union([Type.Integer(), Type.Null()]),
      found_oldest: Type.Boolean(), found_newest: Type.Boolean(), ignored_because_not_subscribed_channels: IGNORED,
    }),
    handler: async (r) => {
      // Zulip's update_message_flags_for_narrow, in its order.
      const anchor = anchorOf(false, r.args.anchor);
      const includeAnchor = r.args.include_anchor;
      let numBefore = r.args.num_before;
      let numAfter = r.args.num_after;
      if (numBefore < 0) throw badRequest('num_before is too small');
      if (numAfter < 0) throw badRequest('num_after is too small');
      if (numBefore > 0 && numAfter > 0 && !includeAnchor) throw badRequest('The anchor can only be excluded at an end of the range');
      // Clamped, not refused: a client walks a long narrow in ranges of at most this many.
      numBefore = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_FETCH - numAfter, MAX_MESSAGES_PER_FETCH / 2));
      numAfter = Math.min(numAfter, MAX_MESSAGES_PER_FETCH - numBefore);
      const narrow = r.args.narrow;
      const { op, flag } = r.args;
      const { rows, meta } = await fetchMessageWindow(r.ctx.store.db, r.user, { anchor, includeAnchor, numBefore, numAfter, narrow: narrow ?? [], featureLevel: r.ctx.config.featureLevel });
      const ids = rows.map((m) => m.id);
      const { count: updated, ignoredStreamIds } = await transact(r.ctx, (tx) => doUpdateMessageFlags(tx, r.user, op, flag, ids));
      return {
        processed_count: ids.length, updated_count: updated,
        first_processed_id: ids[0] ?? null, last_processed_id: ids.at(-1) ?? null,
        found_oldest: meta.found_oldest, found_newest: meta.found_newest,
        ...ignoredAnswer(r.ctx.config.featureLevel, ignoredStreamIds),
      };
    },
  }),
  route({
    method: 'POST', path: '/mark_all_as_read', auth: 'user', summary: 'Mark all messages as read', answer: CompleteAnswer,
    handler: async (r) => completeAnswer(r.ctx.config.featureLevel, await markAllAsRead(r.ctx, r.user)),
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
      // Level 334: the empty topic's display name names it.
      const { stream_id: streamId, topic_name: named } = r.args;
      const topic = generalChatToEmpty(named, r.ctx.config.featureLevel);
      return done(transact(r.ctx, (tx) => doMarkStreamAsRead(tx, r.user, streamId, topic)));
    },
  }),
];
