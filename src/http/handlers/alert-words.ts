import type { AuthedRequest, Route } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { badRequest } from '../../errors.js';
import { doAddAlertWords, doRemoveAlertWords } from '../../actions/alert-words.js';
import { LIST_LIMITS, MAX_ALERT_WORD_LENGTH } from '../../lib/limits.js';
import { alertWordsOf } from '../../reads/alert-words.js';

function wordList(r: AuthedRequest): string[] {
  const words = r.params.jsonList('alert_words', LIST_LIMITS.alertWords);
  if (!Array.isArray(words) || !words.every((w) => typeof w === 'string')) throw badRequest('alert_words is not a list');
  for (const [i, w] of words.entries()) {
    if (w.length > MAX_ALERT_WORD_LENGTH) throw badRequest(`alert_words[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`);
  }
  return words as string[];
}

export const alertWordRoutes: Route[] = [
  {
    method: 'GET', path: '/users/me/alert_words', auth: 'user',
    handler: async (r) => ({ alert_words: await alertWordsOf(r.ctx.store.db, r.user.id) }),
  },
  {
    method: 'POST', path: '/users/me/alert_words', auth: 'user',
    handler: async (r) => {
      const words = wordList(r);
      return { alert_words: await transact(r.ctx, (tx) => doAddAlertWords(tx, r.user, words)) };
    },
  },
  {
    method: 'DELETE', path: '/users/me/alert_words', auth: 'user',
    handler: async (r) => {
      const words = wordList(r);
      return { alert_words: await transact(r.ctx, (tx) => doRemoveAlertWords(tx, r.user, words)) };
    },
  },
];
