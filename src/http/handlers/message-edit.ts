import { pathInt, type Route } from '../route.js';
import { badRequest } from '../../errors.js';
import { PROPAGATE_MODES, updateMessage, type PropagateMode } from '../../actions/message-edit.js';
import { messageHistory } from '../../reads/message-history.js';

export const messageEditRoutes: Route[] = [
  {
    method: 'PATCH', path: '/messages/:message_id', auth: 'user',
    handler: async (r) => {
      const id = pathInt(r, 'message_id');
      const mode = r.params.optStr('propagate_mode') ?? 'change_one';
      if (!PROPAGATE_MODES.includes(mode as PropagateMode)) throw badRequest('Invalid propagate_mode');
      const topicParam = r.params.pick('topic', 'subject');
      const streamId = r.params.optInt('stream_id');
      if (streamId !== undefined && streamId < 0) throw badRequest('Invalid stream_id');
      await updateMessage(r.ctx, r.realm, r.user, id, {
        content: r.params.optStr('content'),
        topic: topicParam === undefined ? undefined : r.params.str(topicParam),
        streamId,
        propagateMode: mode as PropagateMode,
        notifyOldThread: r.params.bool('send_notification_to_old_thread', true),
        notifyNewThread: r.params.bool('send_notification_to_new_thread', true),
      });
      return {};
    },
  },
  {
    method: 'GET', path: '/messages/:message_id/history', auth: 'user',
    handler: async (r) => ({ message_history: await messageHistory(r.ctx.store.db, r.realm, r.user, pathInt(r, 'message_id')) }),
  },
];
