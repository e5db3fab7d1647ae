import { route, type Route } from '../route.js';
import { AnyJson, List, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { badRequest } from '../../errors.js';
import { doAddAlertWords, doRemoveAlertWords } from '../../actions/alert-words.js';
import { LIST_LIMITS, MAX_ALERT_WORD_LENGTH } from '../../lib/limits.js';
import { alertWordsOf } from '../../reads/alert-words.js';

// Items checked here, not by the declaration: a word that is not a string is refused as the
// whole list ("alert_words is not a list"), as before.
const params = { alert_words: List(AnyJson(), LIST_LIMITS.alertWords) };
const answer = Type.Object({ alert_words: Type.Array(Type.String()) });

function wordList(words: unknown[]): string[] {
  if (!words.every((w) => typeof w === 'string')) throw badRequest('alert_words is not a list');
  for (const [i, w] of words.entries()) {
    if (w.length > MAX_ALERT_WORD_LENGTH) throw badRequest(`alert_words[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`);
  }
  return words;
}

export const alertWordRoutes: Route[] = [
  route({
    method: 'GET', path: '/users/me/alert_words', auth: 'user', summary: 'Get all alert words',
    answer,
    handler: async (r) => ({ alert_words: await alertWordsOf(r.ctx.store.db, r.user.id) }),
  }),
  route({
    method: 'POST', path: '/users/me/alert_words', auth: 'user', summary: 'Add alert words', params, answer,
    handler: async (r) => {
      const words = wordList(r.args.alert_words);
      return { alert_words: await transact(r.ctx, (tx) => doAddAlertWords(tx, r.user, words)) };
    },
  }),
  route({
    method: 'DELETE', path: '/users/me/alert_words', auth: 'user', summary: 'Remove alert words', params, answer,
    handler: async (r) => {
      const words = wordList(r.args.alert_words);
      return { alert_words: await transact(r.ctx, (tx) => doRemoveAlertWords(tx, r.user, words)) };
    },
  }),
];
