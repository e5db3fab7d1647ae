import type { Q } from '../rows.js';
import { rowsWritten } from '../changes.js';

export const alertWords = {
  listOfUser: async (q: Q, userId: number): Promise<string[]> =>
    (await q.selectFrom('alert_word').select('word').where('user_id', '=', userId).orderBy('id').execute()).map((r) => r.word),

  listRowsOfUser: (q: Q, userId: number) =>
    q.selectFrom('alert_word').select(['id', 'word']).where('user_id', '=', userId).execute(),

  /** Every alert word in the realm, by user (most users have none). */
  mapOfRealm: async (q: Q, realmId: number): Promise<Map<number, string[]>> => {
    const out = new Map<number, string[]>();
    const rows = await q.selectFrom('alert_word').select(['user_id', 'word']).where('realm_id', '=', realmId).orderBy('id').execute();
    for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r.word]);
    return out;
  },

  insert: async (q: Q, row: { user_id: number; realm_id: number; word: string }): Promise<void> => {
    await q.insertInto('alert_word').values(row).execute();
    rowsWritten(q, 'alert_words');
  },

  deleteByIds: async (q: Q, ids: number[]): Promise<void> => {
    if (ids.length === 0) return;
    await q.deleteFrom('alert_word').where('id', 'in', ids).execute();
    rowsWritten(q, 'alert_words');
  },
};
