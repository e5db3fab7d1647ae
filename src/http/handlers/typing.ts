import type { Route } from '../route.js';
import { transact } from '../../store/tx.js';
import { badRequest } from '../../errors.js';
import { accessStreamById, checkCanPostToStream } from '../../access/stream.js';
import { checkTypingAllowed, checkTypingRecipients, doSendPrivateTyping, doSendStreamTyping } from '../../actions/typing.js';

// `direct` and `channel` are the later names (Zulip 7.0 and 9.0); POST /messages takes them too.
const TYPES: Record<string, 'private' | 'stream'> = { private: 'private', direct: 'private', stream: 'stream', channel: 'stream' };

export const typingRoutes: Route[] = [
  {
    method: 'POST', path: '/typing', auth: 'user',
    handler: async (r) => {
      // Zulip validates the parameters in this order, so the first problem is the one reported.
      const type = r.params.optStr('type') ?? 'private';
      const kind = Object.hasOwn(TYPES, type) ? TYPES[type] : undefined;
      if (!kind) throw badRequest('Invalid type');
      const op = r.params.str('op');
      if (op !== 'start' && op !== 'stop') throw badRequest('Invalid op');
      // Newer clients name the stream with `stream_id` (Zulip 8.0) instead of a one-element `to`.
      const streamId = kind === 'stream' ? r.params.optInt('stream_id') : undefined;
      const to = streamId !== undefined ? [streamId] : r.params.intList('to');
      if (to.length === 0) throw badRequest("Empty 'to' list");
      if (kind === 'stream') {
        if (to.length > 1) throw badRequest('Cannot send to multiple streams');
        const topic = r.params.optStr('topic');
        if (topic === undefined) throw badRequest('Missing topic');
        checkTypingAllowed(r.user, 'stream');
        await transact(r.ctx, async (tx) => {
          // A stream the sender may not see is answered exactly like a missing one.
          const { stream, sub } = await accessStreamById(tx.db, r.user, to[0]!);
          checkCanPostToStream(r.user, stream, sub, r.realm);
          await doSendStreamTyping(tx, r.user, stream, topic, op);
        });
      } else {
        checkTypingAllowed(r.user, 'private');
        await transact(r.ctx, async (tx) => doSendPrivateTyping(tx, r.user, await checkTypingRecipients(tx.db, r.user, to), op));
      }
      return {};
    },
  },
];
