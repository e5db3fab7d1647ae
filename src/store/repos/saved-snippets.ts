import type { Selectable } from 'kysely';
import type { SavedSnippetTable } from '../schema.js';
import type { Q } from '../rows.js';

export type SavedSnippetRecord = Selectable<SavedSnippetTable>;

export const savedSnippets = {
  /** The user's snippets in the order they were made. */
  listOfUser: (q: Q, userId: number): Promise<SavedSnippetRecord[]> =>
    q.selectFrom('saved_snippet').selectAll().where('user_id', '=', userId).orderBy('id').execute(),

  /** Only if it is this user's: another's is as missing as one that never was. */
  findOfUser: (q: Q, userId: number, id: number): Promise<SavedSnippetRecord | undefined> =>
    q.selectFrom('saved_snippet').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst(),

  insert: async (q: Q, row: Omit<SavedSnippetRecord, 'id'>): Promise<number> =>
    (await q.insertInto('saved_snippet').values(row).returning('id').executeTakeFirstOrThrow()).id,

  update: async (q: Q, id: number, fields: { title: string; content: string }): Promise<void> => {
    await q.updateTable('saved_snippet').set(fields).where('id', '=', id).execute();
  },

  deleteById: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('saved_snippet').where('id', '=', id).execute();
  },
};
