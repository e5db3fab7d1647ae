import { PreSerialized, type AuthedRequest, type Route } from '../route.js';
import { badRequest } from '../../errors.js';
import { fetchMessages, searchWords, type FetchParams } from '../../narrow/fetch.js';
import { parseNarrow } from '../../narrow/parse.js';
import { resolveNarrow } from '../../narrow/resolve.js';
import { loadPmLookups, narrowQuery } from '../../narrow/sql.js';
import { highlightHtml, highlightTopic } from '../../narrow/highlight.js';

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
    handler: async (r) => new PreSerialized(await fetchMessages(r.ctx, r.user, r.realm, {
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
      const ids = r.params.intList('msg_ids');
      const db = r.ctx.store.db;
      const narrow = await resolveNarrow(db, r.user, parseNarrow(r.params.json('narrow')));
      const pm = await loadPmLookups(db, narrow.terms, r.user);
      const valid = ids.filter((id) => id >= 1 && id <= 2_147_483_647);
      const rows = valid.length === 0 ? [] : await narrowQuery(db, r.ctx.store.dialect, r.user, narrow, pm)
        .where('message.id', 'in', valid).select(['message.rendered_content', 'message.topic']).execute();
      const words = searchWords(narrow.terms);
      const messages: Record<string, { match_content: string; match_subject: string }> = {};
      for (const row of rows) {
        messages[String(row.id)] = { match_content: highlightHtml(row.rendered_content, words), match_subject: highlightTopic(row.topic, words) };
      }
      return { messages };
    },
  },
];
