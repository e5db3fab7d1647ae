import type { Q } from '../rows.js';
import { rowsWritten } from '../changes.js';

export const mutedUsers = {
  /** Whom the user muted, and when, in the order they were muted. */
  listOfUser: (q: Q, userId: number): Promise<Array<{ muted_user_id: number; date_muted: number }>> =>
    q.selectFrom('muted_user').select(['muted_user_id', 'date_muted']).where('user_id', '=', userId).orderBy('id').execute(),

  exists: async (q: Q, userId: number, mutedUserId: number): Promise<boolean> =>
    (await q.selectFrom('muted_user').select('id').where('user_id', '=', userId).where('muted_user_id', '=', mutedUserId).executeTakeFirst()) !== undefined,

  /** Every mute of the realm: muted user id -> the users who muted them. */
  mutersOfRealm: async (q: Q, realmId: number): Promise<Map<number, Set<number>>> => {
    const out = new Map<number, Set<number>>();
    const rows = await q.selectFrom('muted_user').select(['user_id', 'muted_user_id']).where('realm_id', '=', realmId).execute();
    for (const r of rows) {
      let set = out.get(r.muted_user_id);
      if (!set) out.set(r.muted_user_id, (set = new Set()));
      set.add(r.user_id);
    }
    return out;
  },

  /** Everyone the user muted and everyone who muted the user. */
  partnersOf: async (q: Q, userId: number): Promise<Set<number>> => {
    const rows = await q.selectFrom('muted_user').select(['user_id', 'muted_user_id'])
      .where((eb) => eb.or([eb('user_id', '=', userId), eb('muted_user_id', '=', userId)])).execute();
    return new Set(rows.map((r) => (r.user_id === userId ? r.muted_user_id : r.user_id)));
  },

  /** False when the pair was already there (a concurrent identical mute included). */
  insert: async (q: Q, row: { user_id: number; muted_user_id: number; realm_id: number; date_muted: number }): Promise<boolean> => {
    const r = await q.insertInto('muted_user').values(row).onConflict((oc) => oc.columns(['user_id', 'muted_user_id']).doNothing()).executeTakeFirst();
    const inserted = Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    if (inserted) rowsWritten(q, 'muted_users');
    return inserted;
  },

  /** False when there was no such mute. */
  delete: async (q: Q, userId: number, mutedUserId: number): Promise<boolean> => {
    const r = await q.deleteFrom('muted_user').where('user_id', '=', userId).where('muted_user_id', '=', mutedUserId).executeTakeFirst();
    const deleted = Number(r.numDeletedRows) > 0;
    if (deleted) rowsWritten(q, 'muted_users');
    return deleted;
  },
};
