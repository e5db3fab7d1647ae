import { pathInt, route, type Route } from '../route.js';
import { WireAttachment } from '../../schemas/wire.js';
import { Bool, Default, Int, Opt, Str, Type } from '../../schemas/params.js';
import { badRequest } from '../../errors.js';
import { PROPAGATE_MODES, updateMessage, type PropagateMode } from '../../actions/message-edit.js';
import { messageHistory } from '../../reads/message-history.js';
import { allowsEmptyTopic } from '../../lib/empty-topic.js';

export const messageEditRoutes: Route[] = [
  route({
    method: 'PATCH', path: '/messages/:message_id', auth: 'user', summary: 'Edit a message',
    params: {
      propagate_mode: Opt(Str({ description: 'change_one (the default), change_later or change_all' })),
      topic: Opt(Str({ aliases: ['subject'] })),
      stream_id: Opt(Int({ description: 'Move the message (and others, by propagate_mode) to this stream' })),
      content: Opt(Str()),
      send_notification_to_old_thread: Opt(Bool({ description: 'Default true, false from feature level 152' })),
      send_notification_to_new_thread: Default(Bool(), true),
    },
    answer: Type.Object({
      detached_uploads: Type.Optional(Type.Array(WireAttachment, { description: "From feature level 285: the editor's uploads the edit unlinked that no message links any more." })),
    }),
    handler: async (r) => {
      const id = pathInt(r, 'message_id');
      const mode = r.args.propagate_mode ?? 'change_one';
      if (!PROPAGATE_MODES.includes(mode as PropagateMode)) throw badRequest('Invalid propagate_mode');
      const topic = r.args.topic;
      const streamId = r.args.stream_id;
      if (streamId !== undefined && streamId < 0) throw badRequest('Invalid stream_id');
      const detached = await updateMessage(r.ctx, r.realm, r.user, id, {
        content: r.args.content,
        topic,
        streamId,
        propagateMode: mode as PropagateMode,
        // Feature level 152 changed the default from true to false.
        notifyOldThread: r.args.send_notification_to_old_thread ?? r.ctx.config.featureLevel < 152,
        notifyNewThread: r.args.send_notification_to_new_thread,
      });
      return r.ctx.config.featureLevel >= 285 ? { detached_uploads: detached } : {};
    },
  }),
  route({
    method: 'GET', path: '/messages/:message_id/history', auth: 'user', summary: 'Get a message\'s edit history',
    params: { allow_empty_topic_name: Default(Bool({ description: 'The empty topic as "" rather than its display name (feature level 334)' }), false) },
    answer: Type.Object({ message_history: Type.Array(Type.Object({ timestamp: Type.Integer(), user_id: Type.Union([Type.Integer(), Type.Null()]) }, { additionalProperties: true })) }),
    handler: async (r) => ({ message_history: await messageHistory(r.ctx.store.db, r.realm, r.user, pathInt(r, 'message_id'),
      allowsEmptyTopic(r.args.allow_empty_topic_name, r.ctx.config.featureLevel), r.ctx.config.featureLevel) }),
  }),
];
