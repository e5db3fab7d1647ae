import type { Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { writeAlone } from '../../actions/transaction.js';
import { badRequest } from '../../errors.js';
import { messageKind } from '../../lib/message-type.js';
import { doSendTyping } from '../../actions/typing.js';

export const typingRoutes: Route[] = [
  {
    method: 'POST', path: '/typing', auth: 'user',
    handler: async (r) => {
      // Zulip validates the parameters in this order, so the first problem is the one reported.
      const kind = messageKind(r.params.optStr('type') ?? 'private');
      if (!kind) throw badRequest('Invalid type');
      const op = r.params.str('op');
      if (op !== 'start' && op !== 'stop') throw badRequest('Invalid op');
      // Newer clients name the stream with `stream_id` (Zulip 8.0) instead of a one-element `to`.
      const streamId = kind === 'stream' ? r.params.optInt('stream_id') : undefined;
      const to = streamId !== undefined ? [streamId] : r.params.intList('to', LIST_LIMITS.recipients);
      if (to.length === 0) throw badRequest("Empty 'to' list");
      let topic: string | undefined;
      if (kind === 'stream') {
        if (to.length > 1) throw badRequest('Cannot send to multiple streams');
        topic = r.params.optStr('topic');
        if (topic === undefined) throw badRequest('Missing topic');
      }
      // Nothing is stored: the reads need no transaction, and the writer is not held.
      await writeAlone(r.ctx, (tx) => doSendTyping(tx, r.realm, r.user, { kind, op, to, topic }));
      return {};
    },
  },
];
