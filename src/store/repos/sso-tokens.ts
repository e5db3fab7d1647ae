import type { Q } from '../rows.js';
import type { SsoTokenRow } from '../schema.js';

export const ssoTokens = {
  /** False when the id is taken (a secret used twice). */
  insertIfAbsent: async (q: Q, row: SsoTokenRow): Promise<boolean> => {
    const r = await q.insertInto('sso_token').values(row).onConflict((oc) => oc.column('id_hash').doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  /** Deletes the row and answers it: a secret works once, however many nodes are asked at once. */
  deleteReturning: (q: Q, idHash: string, purpose: string): Promise<SsoTokenRow | undefined> =>
    q.deleteFrom('sso_token').where('id_hash', '=', idHash).where('purpose', '=', purpose).returningAll().executeTakeFirst(),

  deleteExpired: async (q: Q, now: number): Promise<void> => {
    await q.deleteFrom('sso_token').where('expires', '<', now).execute();
  },
};
