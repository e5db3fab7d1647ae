import type { Q } from '../rows.js';

export const recipients = {
  listByIds: (q: Q, ids: number[]) =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('recipient').select(['id', 'type', 'type_id']).where('id', 'in', ids).execute(),

  /** Stream names by stream id. */
  streamNames: async (q: Q, streamIds: number[]): Promise<Map<number, string>> => {
    if (streamIds.length === 0) return new Map();
    const rows = await q.selectFrom('stream').select(['id', 'name']).where('id', 'in', streamIds).execute();
    return new Map(rows.map((s) => [s.id, s.name]));
  },

  /** The personal recipient of a user: what a one-to-one conversation with them is addressed to. */
  personalOf: async (q: Q, userId: number): Promise<number> =>
    (await q.selectFrom('recipient').select('id').where('type', '=', 1).where('type_id', '=', userId).executeTakeFirstOrThrow()).id,
};
