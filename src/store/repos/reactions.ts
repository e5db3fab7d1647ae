import type { Insertable, Selectable } from 'kysely';
import type { ReactionTable } from '../schema.js';
import type { Q } from '../rows.js';

export type ReactionRow = Selectable<ReactionTable>;

/**
 * Queries on the reaction table. A reaction is identified by (message, user, namespace,
 * code), the unique index of migration 001, which also serves every per-message lookup
 * (message_id is its first column). The name is what the reacting client saw.
 */
export const reactions = {
  /** The user's reaction to the message with this emoji. */
  findOne: (q: Q, messageId: number, userId: number, emojiCode: string, reactionType: string): Promise<ReactionRow | undefined> =>
    q.selectFrom('reaction').selectAll().where('message_id', '=', messageId).where('user_id', '=', userId)
      .where('reaction_type', '=', reactionType).where('emoji_code', '=', emojiCode).executeTakeFirst(),

  /** Anyone's reaction to the message with this emoji (the earliest): a new one votes for it. */
  findByEmoji: (q: Q, messageId: number, emojiCode: string, reactionType: string): Promise<ReactionRow | undefined> =>
    q.selectFrom('reaction').selectAll().where('message_id', '=', messageId)
      .where('reaction_type', '=', reactionType).where('emoji_code', '=', emojiCode).orderBy('id').limit(1).executeTakeFirst(),

  /** Inserts unless the same user already has this emoji on the message; answers whether it did. */
  insert: async (q: Q, row: Insertable<ReactionTable>): Promise<boolean> => {
    const r = await q.insertInto('reaction').values(row)
      .onConflict((oc) => oc.columns(['message_id', 'user_id', 'reaction_type', 'emoji_code']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  /** Deletes one reaction; answers whether it was still there. */
  deleteById: async (q: Q, id: number): Promise<boolean> =>
    Number((await q.deleteFrom('reaction').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0,

  deleteByMessageIds: (q: Q, messageIds: number[]) =>
    messageIds.length === 0 ? Promise.resolve([]) : q.deleteFrom('reaction').where('message_id', 'in', messageIds).execute(),
};
