import type { Q, TusUploadRow } from '../rows.js';

export type { TusUploadRow };

/** Resumable uploads under way (/api/v1/tus, feature level 295). */
export const tusUploads = {
  insert: async (q: Q, row: Omit<TusUploadRow, 'received' | 'chunks' | 'path_id'>): Promise<void> => {
    await q.insertInto('tus_upload').values(row).execute();
  },

  /** The user's own upload: another user's id answers nothing, as a missing one. */
  findOwn: (q: Q, id: string, userId: number): Promise<TusUploadRow | undefined> =>
    q.selectFrom('tus_upload').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst(),

  /** Records a piece at `from`; false when another request got there first (the offset moved). */
  advance: async (q: Q, id: string, from: number, to: number, chunks: string): Promise<boolean> =>
    Number((await q.updateTable('tus_upload').set({ received: to, chunks }).where('id', '=', id).where('received', '=', from).executeTakeFirst()).numUpdatedRows) > 0,

  /** Marks the upload done, once: false when another request finished it. */
  finish: async (q: Q, id: string, pathId: string): Promise<boolean> =>
    Number((await q.updateTable('tus_upload').set({ path_id: pathId }).where('id', '=', id).where('path_id', 'is', null).executeTakeFirst()).numUpdatedRows) > 0,

  delete: async (q: Q, id: string): Promise<void> => {
    await q.deleteFrom('tus_upload').where('id', '=', id).execute();
  },
};
