import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Bool, Int, Opt, Str, Type } from '../../schemas/params.js';
import { WireScheduledMessage } from '../../schemas/wire.js';
import { badRequest } from '../../errors.js';
import { messageKind } from '../../lib/message-type.js';
import { clientName } from '../../lib/client-name.js';
import { nowSeconds } from '../../lib/time.js';
import { sentNoTopicToEmpty } from '../../lib/empty-topic.js';
import { transact } from '../../actions/transaction.js';
import {
  deliveryTimeNotInFuture, doDeleteScheduledMessage, editScheduledMessage, scheduleMessage, scheduledTo,
} from '../../actions/scheduled-messages.js';
import { scheduledMessagesOf } from '../../reads/scheduled-messages.js';

/** Zulip's check_string_in(Message.API_RECIPIENT_TYPES): `direct` (7.0) and `channel` (9.0) name the two kinds too. */
function kindOf(type: string): 'stream' | 'private' {
  const kind = messageKind(type);
  if (!kind) throw badRequest('Invalid type');
  return kind;
}

const TYPE_DOC = 'stream or private (also channel and direct)';

/** Feature level 181 added `failed`: below it, answers leave it out (events keep one shape). */
const FailedOptional = Type.Array(Type.Union(WireScheduledMessage.anyOf.map((s) => Type.Omit(s, ['failed']))));

export const scheduledMessageRoutes: Route[] = [
  route({
    method: 'GET', path: '/scheduled_messages', auth: 'user', summary: 'Get scheduled messages',
    answer: Type.Object({ scheduled_messages: Type.Union([Type.Array(WireScheduledMessage), FailedOptional]) }),
    handler: async (r) => {
      const list = await scheduledMessagesOf(r.ctx.store.db, r.user.id);
      return { scheduled_messages: r.ctx.config.featureLevel >= 181 ? list : list.map(({ failed: _failed, ...rest }) => rest) };
    },
  }),
  route({
    method: 'POST', path: '/scheduled_messages', auth: 'user', summary: 'Create a scheduled message',
    params: {
      type: Str({ description: TYPE_DOC }),
      to: Str({ description: 'A stream: its id. People: a JSON list of user ids' }),
      topic: Opt(Str({ aliases: ['subject'], description: 'The topic of a stream message' })),
      content: Str(),
      scheduled_delivery_timestamp: Int({ description: 'UNIX seconds when it is to be sent; must be in the future' }),
      read_by_sender: Opt(Bool({ description: 'Whether the sender\'s copy is marked read when sent (feature level 236)' })),
    },
    answer: Type.Object({ scheduled_message_id: Type.Integer() }),
    handler: async (r) => {
      const kind = kindOf(r.args.type);
      const toRaw = r.args.to;
      const topic = sentNoTopicToEmpty(r.args.topic, r.ctx.config.featureLevel);
      const content = r.args.content;
      const deliverAt = r.args.scheduled_delivery_timestamp;
      const readBySender = r.args.read_by_sender;
      const now = nowSeconds();
      if (deliverAt <= now) throw deliveryTimeNotInFuture();
      const to = scheduledTo(kind, toRaw);
      const id = await scheduleMessage(r.ctx, r.realm, r.user, {
        type: kind, to, topic, content, client: clientName(undefined, r.req.headers['user-agent']), deliverAt, readBySender,
      }, now);
      return { scheduled_message_id: id };
    },
  }),
  route({
    method: 'PATCH', path: '/scheduled_messages/:scheduled_message_id', auth: 'user', summary: 'Edit a scheduled message',
    params: {
      type: Opt(Str({ description: TYPE_DOC })),
      to: Opt(Str({ description: 'A stream: its id. People: a JSON list of user ids. Required with type' })),
      topic: Opt(Str({ aliases: ['subject'], description: 'Required when type becomes stream' })),
      content: Opt(Str()),
      scheduled_delivery_timestamp: Opt(Int({ description: 'UNIX seconds; must be in the future, and is required to retry a failed one' })),
    },
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'scheduled_message_id');
      const typeRaw = r.args.type;
      const type = typeRaw === undefined ? undefined : kindOf(typeRaw);
      const toRaw = r.args.to;
      const topic = sentNoTopicToEmpty(r.args.topic, r.ctx.config.featureLevel);
      const content = r.args.content;
      const deliverAt = r.args.scheduled_delivery_timestamp;
      if (type === undefined && toRaw === undefined && topic === undefined && content === undefined && deliverAt === undefined) {
        throw badRequest('Nothing to change');
      }
      // Zulip tests `if req_type:`: an empty type is no change of type.
      if (typeRaw && toRaw === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
      if (type === 'stream' && topic === undefined) throw badRequest('Topic required when updating scheduled message type to stream.');
      if (deliverAt !== undefined && deliverAt <= nowSeconds()) throw deliveryTimeNotInFuture();
      return done(editScheduledMessage(r.ctx, r.realm, r.user, id, {
        type, toRaw, topic, content, deliverAt, client: clientName(undefined, r.req.headers['user-agent']),
      }));
    },
  }),
  route({
    method: 'DELETE', path: '/scheduled_messages/:scheduled_message_id', auth: 'user', summary: 'Delete a scheduled message', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'scheduled_message_id');
      return done(transact(r.ctx, (tx) => doDeleteScheduledMessage(tx, r.user, id)));
    },
  }),
];
