import type { Q } from '../rows.js';

/** Huddles (group private conversations), keyed by their members' ids sorted and joined by ','. */
export const huddles = {
  findByHash: (q: Q, hash: string): Promise<{ id: number; recipient_id: number | null } | undefined> =>
    q.selectFrom('huddle').select(['id', 'recipient_id']).where('huddle_hash', '=', hash).executeTakeFirst(),

  /** A huddle without its recipient yet (set by setRecipient once that row exists); answers its id. */
  insert: async (q: Q, hash: string): Promise<number> =>
    (await q.insertInto('huddle').values({ huddle_hash: hash, recipient_id: null }).returning('id').executeTakeFirstOrThrow()).id,

  setRecipient: async (q: Q, id: number, recipientId: number): Promise<void> => {
    await q.updateTable('huddle').set({ recipient_id: recipientId }).where('id', '=', id).execute();
  },
};
