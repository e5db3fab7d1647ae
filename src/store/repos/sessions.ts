import type { Q, SessionRow } from '../rows.js';

export const sessions = {
  insert: async (q: Q, row: SessionRow): Promise<void> => {
    await q.insertInto('session').values(row).execute();
  },

  findByIdHash: (q: Q, idHash: string): Promise<SessionRow | undefined> =>
    q.selectFrom('session').selectAll().where('id_hash', '=', idHash).executeTakeFirst(),

  deleteByIdHash: async (q: Q, idHash: string): Promise<void> => {
    await q.deleteFrom('session').where('id_hash', '=', idHash).execute();
  },

  deleteByUserId: async (q: Q, userId: number): Promise<void> => {
    await q.deleteFrom('session').where('user_id', '=', userId).execute();
  },

  /** Removes sessions that ended before `now`; answers how many. */
  deleteExpired: async (q: Q, now: number): Promise<number> =>
    Number((await q.deleteFrom('session').where('expires', '<', now).executeTakeFirst()).numDeletedRows),

  updateLastSeen: async (q: Q, idHash: string, lastSeen: number): Promise<void> => {
    await q.updateTable('session').set({ last_seen: lastSeen }).where('id_hash', '=', idHash).execute();
  },
};
