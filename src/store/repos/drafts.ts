import type { Insertable, Selectable } from 'kysely';
import type { DraftTable } from '../schema.js';
import type { Q } from '../rows.js';

export type DraftRecord = Selectable<DraftTable>;
type NewDraft = Omit<Insertable<DraftTable>, 'id'>;

export const drafts = {
  /**
   * A user's drafts by last edit, ties by id: oldest first for GET /drafts, newest first
   * (and at most `limit`) for register, as Zulip orders them.
   */
  listOfUser: (q: Q, userId: number, order: 'asc' | 'desc', limit?: number): Promise<DraftRecord[]> => {
    let query = q.selectFrom('draft').selectAll().where('user_id', '=', userId)
      .orderBy('last_edit_time', order).orderBy('id', order);
    if (limit !== undefined) query = query.limit(limit);
    return query.execute();
  },

  /** The draft only if it is this user's: another's is as missing as one that never was. */
  findOfUser: (q: Q, userId: number, id: number): Promise<DraftRecord | undefined> =>
    q.selectFrom('draft').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst(),

  insert: async (q: Q, row: NewDraft): Promise<DraftRecord> => {
    const r = await q.insertInto('draft').values(row).returning('id').executeTakeFirstOrThrow();
    return { ...row, id: r.id };
  },

  update: async (q: Q, id: number, fields: Omit<NewDraft, 'user_id'>): Promise<void> => {
    await q.updateTable('draft').set(fields).where('id', '=', id).execute();
  },

  deleteById: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('draft').where('id', '=', id).execute();
  },

  deleteAllOfUser: async (q: Q, userId: number): Promise<number> =>
    Number((await q.deleteFrom('draft').where('user_id', '=', userId).executeTakeFirst()).numDeletedRows),
};
