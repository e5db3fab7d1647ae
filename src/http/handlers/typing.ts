import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Int, IntList, Opt, Str } from '../../schemas/params.js';
import type { AppContext } from '../../context.js';
import type { RealmRow, UserRow } from '../../rows.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { writeAlone } from '../../actions/transaction.js';
import { badRequest, missingArgument } from '../../errors.js';
import { messageKind } from '../../lib/message-type.js';
import { doSendEditTyping, doSendTyping, type TypingOp } from '../../actions/typing.js';
import { TYPING_NO_TOPIC_AS_EMPTY_LEVEL, generalChatToEmpty, noTopicToEmpty } from '../../lib/empty-topic.js';

export const typingRoutes: Route[] = [
  route({
    method: 'POST', path: '/typing', auth: 'user', summary: 'Set typing status',
    // Declared, and so read, in the order Zulip validates them: the first problem is the one reported.
    params: {
      type: Opt(Str({ description: 'private (the default) or stream' })),
      op: Str({ description: 'start or stop' }),
      stream_id: Opt(Int({ description: 'The stream, for type stream (Zulip 8.0); or `to` with its id' })),
      to: Opt(IntList(LIST_LIMITS.recipients, { description: 'The recipients\' user ids, or a stream\'s id in a list' })),
      topic: Opt(Str({ description: 'For type stream' })),
    },
    answer: NoAnswer,
    handler: async (r) => {
      const kind = messageKind(r.args.type ?? 'private');
      if (!kind) throw badRequest('Invalid type');
      const op = r.args.op;
      if (op !== 'start' && op !== 'stop') throw badRequest('Invalid op');
      // Newer clients name the stream with `stream_id` (Zulip 8.0) instead of a one-element `to`.
      const streamId = kind === 'stream' ? r.args.stream_id : undefined;
      const to = streamId !== undefined ? [streamId] : r.args.to;
      if (to === undefined) throw missingArgument('to');
      if (to.length === 0) throw badRequest("Empty 'to' list");
      let topic: string | undefined;
      if (kind === 'stream') {
        if (to.length > 1) throw badRequest('Cannot send to multiple streams');
        if (r.args.topic === undefined) throw badRequest('Missing topic');
        // The empty topic by its display name (level 334) or, from level 372, as "(no topic)".
        const level = r.ctx.config.featureLevel;
        topic = noTopicToEmpty(generalChatToEmpty(r.args.topic, level), level, TYPING_NO_TOPIC_AS_EMPTY_LEVEL);
      }
      // Nothing is stored: the reads need no transaction, and the writer is not held.
      return done(writeAlone(r.ctx, (tx) => doSendTyping(tx, r.realm, r.user, { kind, op, to, topic })));
    },
  }),
  // Level 351's endpoint, with the message in the body; level 361 moved it under the message. Both stay.
  route({
    method: 'POST', path: '/message_edit_typing', auth: 'user', summary: 'Set typing status for a message edit',
    params: { op: Str({ description: 'start or stop' }), message_id: Int({ description: 'The message being edited' }) },
    answer: NoAnswer,
    handler: async (r) => editTyping(r.ctx, r.realm, r.user, r.args.message_id, r.args.op),
  }),
  route({
    method: 'POST', path: '/messages/:message_id/typing', auth: 'user', summary: 'Set typing status for a message edit',
    params: { op: Str({ description: 'start or stop' }) },
    answer: NoAnswer,
    handler: async (r) => editTyping(r.ctx, r.realm, r.user, pathInt(r, 'message_id'), r.args.op),
  }),
];

function editTyping(ctx: AppContext, realm: RealmRow, user: UserRow, messageId: number, op: string) {
  if (op !== 'start' && op !== 'stop') throw badRequest('Invalid op');
  const typed: TypingOp = op;
  // Nothing is stored: as POST /typing.
  return done(writeAlone(ctx, (tx) => doSendEditTyping(tx, realm, user, messageId, typed)));
}
