import { PreSerialized, pathInt, type AuthedRequest, type Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { badRequest } from '../../errors.js';
import { accessMessage } from '../../access/message.js';
import { fetchMessages, matchesNarrow, messageById, type FetchParams } from '../../reads/messages.js';

function anchorOf(r: AuthedRequest): FetchParams['anchor'] {
  if (r.params.bool('use_first_unread_anchor', false)) return 'first_unread';
  const raw = r.params.optStr('anchor');
  if (raw === undefined) throw badRequest("Missing 'anchor' argument.");
  if (raw === 'newest' || raw === 'oldest' || raw === 'first_unread') return raw;
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest('Invalid anchor');
  return Math.max(0, Number(raw.trim()));
}

export const messageReadRoutes: Route[] = [
  {
    method: 'GET', path: '/messages', auth: 'user',
    handler: async (r) => new PreSerialized(await fetchMessages(r.ctx.store.db, r.user, r.realm, {
      anchor: anchorOf(r),
      numBefore: r.params.int('num_before'),
      numAfter: r.params.int('num_after'),
      includeAnchor: r.params.bool('include_anchor', true),
      narrow: r.params.optJson('narrow') ?? [],
      applyMarkdown: r.params.bool('apply_markdown', true),
      clientGravatar: r.params.bool('client_gravatar', true),
    })),
  },
  {
    method: 'GET', path: '/messages/matches_narrow', auth: 'user',
    handler: async (r) => {
      const ids = r.params.intList('msg_ids', LIST_LIMITS.messageIds);
      return { messages: await matchesNarrow(r.ctx.store.db, r.user, ids, r.params.json('narrow')) };
    },
  },
  {
    method: 'GET', path: '/messages/:message_id', auth: 'user',
    handler: async (r) => {
      const { message, flags } = await accessMessage(r.ctx.store.db, r.user, pathInt(r, 'message_id'));
      return messageById(r.ctx.store.db, r.realm, message, flags, {
        applyMarkdown: r.params.bool('apply_markdown', true), clientGravatar: r.params.bool('client_gravatar', true),
      });
    },
  },
];
