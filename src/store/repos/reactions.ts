import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { prepared } from '../prepared.js';
import type { DB, ReactionTable } from '../schema.js';
import type { Q } from '../rows.js';

export type ReactionRow = Selectable<ReactionTable>;

// Every reaction request makes these; compiled once.
const one = prepared((db, messageId: number, userId: number, reactionType: string, emojiCode: string) => db.selectFrom('reaction').selectAll()
  .where('message_id', '=', messageId).where('user_id', '=', userId).where('reaction_type', '=', reactionType).where('emoji_code', '=', emojiCode), [0, 0, '', '']);
const byEmoji = prepared((db, messageId: number, reactionType: string, emojiCode: string) => db.selectFrom('reaction').selectAll()
  .where('message_id', '=', messageId).where('reaction_type', '=', reactionType).where('emoji_code', '=', emojiCode).orderBy('id'), [0, '', '']);

/**
 * Queries on the reaction table. A reaction is identified by (message, user, namespace,
 * code), the unique index of migration 001, which also serves every per-message lookup
 * (message_id is its first column). The name is what the reacting client saw.
 */
export const reactions = {
  /** The user's reaction to the message with this emoji. */
  findOne: async (q: Q, messageId: number, userId: number, emojiCode: string, reactionType: string): Promise<ReactionRow | undefined> =>
    (await one(q as Kysely<DB>, messageId, userId, reactionType, emojiCode))[0],

  /** Everyone's reactions to the message with this emoji, earliest first. */
  listByEmoji: (q: Q, messageId: number, emojiCode: string, reactionType: string): Promise<ReactionRow[]> =>
    byEmoji(q as Kysely<DB>, messageId, reactionType, emojiCode),

  /**
   * Inserts the reaction unless the same user already has this emoji on the message, or the
   * message is gone (a deletion may have committed since the caller looked); answers
   * whether it did.
   */
  insertIfMessageExists: async (q: Q, row: Insertable<ReactionTable>): Promise<boolean> => {
    const r = await q.insertInto('reaction').columns(['message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type'])
      .expression((eb) => eb.selectFrom('message').select([
        'message.id as message_id',
        sql<number>`cast(${row.user_id} as integer)`.as('user_id'),
        sql<string>`cast(${row.emoji_name} as text)`.as('emoji_name'),
        sql<string>`cast(${row.emoji_code} as text)`.as('emoji_code'),
        sql<string>`cast(${row.reaction_type} as text)`.as('reaction_type'),
      ]).where('message.id', '=', row.message_id))
      .onConflict((oc) => oc.columns(['message_id', 'user_id', 'reaction_type', 'emoji_code']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  /** Deletes one reaction; answers whether it was still there. */
  deleteById: async (q: Q, id: number): Promise<boolean> =>
    Number((await q.deleteFrom('reaction').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0,

  deleteByMessageIds: (q: Q, messageIds: number[]) =>
    messageIds.length === 0 ? Promise.resolve([]) : q.deleteFrom('reaction').where('message_id', 'in', messageIds).execute(),
};
