import type { Q } from '../rows.js';

export const EMAIL_CHANGE = { PENDING: 0, CONFIRMED: 1, REPLACED: 2 } as const;

export const emailChanges = {
  insert: async (q: Q, row: { user_id: number; realm_id: number; old_email: string; new_email: string; token: string; date_created: number }): Promise<void> => {
    await q.insertInto('email_change').values({ ...row, status: EMAIL_CHANGE.PENDING }).execute();
  },

  /** A newer request replaces the user's pending ones, as Zulip deactivates earlier links. */
  replacePending: async (q: Q, userId: number): Promise<void> => {
    await q.updateTable('email_change').set({ status: EMAIL_CHANGE.REPLACED }).where('user_id', '=', userId).where('status', '=', EMAIL_CHANGE.PENDING).execute();
  },

  findByToken: (q: Q, token: string) =>
    q.selectFrom('email_change').selectAll().where('token', '=', token).executeTakeFirst(),

  /** Marks a pending change confirmed; false when it was no longer pending. */
  confirm: async (q: Q, id: number): Promise<boolean> =>
    Number((await q.updateTable('email_change').set({ status: EMAIL_CHANGE.CONFIRMED }).where('id', '=', id)
      .where('status', '=', EMAIL_CHANGE.PENDING).executeTakeFirst()).numUpdatedRows) === 1,
};
