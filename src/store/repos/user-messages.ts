import { sql, type Kysely } from 'kysely';
import { prepared } from '../prepared.js';
import type { DB } from '../schema.js';
import type { Q } from '../rows.js';
import { FLAG_BITS } from '../../lib/message-flags.js';

// Flag tests are written as literals: on SQLite they must match the partial indexes'
// conditions (migration 009), which are the only per-user way into user_message.

const holders = prepared((db, messageId: number) => db.selectFrom('user_message').innerJoin('users', 'users.id', 'user_message.user_id')
  .select(['user_message.user_id', 'users.role']).where('user_message.message_id', '=', messageId), [0]);

/** Reads of a user's own recipient rows, joined to their messages. */
export const userMessages = {
  /** The user's unread messages, oldest first, at most `limit`. */
  listUnread: (q: Q, userId: number, limit: number) =>
    q.selectFrom('user_message').innerJoin('message', 'message.id', 'user_message.message_id')
      .select(['message.id', 'message.stream_id', 'message.topic', 'message.sender_id', 'message.recipient_id', 'user_message.flags'])
      .where('user_message.user_id', '=', userId).where((eb) => eb(eb.parens(eb('user_message.flags', '&', sql.lit(FLAG_BITS.read))), '=', sql.lit(0)))
      .orderBy('message.id').limit(limit).execute(),

  /** The newest message of each (conversation, sender) of the user's private messages. */
  privateConversationMaxIds: (q: Q, userId: number) =>
    q.selectFrom('user_message').innerJoin('message', 'message.id', 'user_message.message_id')
      .select(['message.recipient_id', 'message.sender_id', (eb) => eb.fn.max('message.id').as('max_id')])
      .where('user_message.user_id', '=', userId).where((eb) => eb(eb.parens(eb('user_message.flags', '&', sql.lit(FLAG_BITS.is_private))), '<>', sql.lit(0)))
      .groupBy(['message.recipient_id', 'message.sender_id']).execute(),

  listStarredIds: async (q: Q, userId: number): Promise<number[]> =>
    (await q.selectFrom('user_message').select('message_id').where('user_id', '=', userId)
      .where((eb) => eb(eb.parens(eb('flags', '&', sql.lit(FLAG_BITS.starred))), '<>', sql.lit(0))).orderBy('message_id').execute()).map((r) => r.message_id),

  /**
   * Gives the user a recipient row for each of `messageIds` they lack, flagged read and
   * historical, as Zulip does when someone stars or reacts to a public-stream message
   * sent before they subscribed. Returns the ids that got one.
   */
  insertHistorical: async (q: Q, userId: number, messageIds: number[]): Promise<number[]> => {
    const added: number[] = [];
    for (let i = 0; i < messageIds.length; i += 500) {
      const chunk = messageIds.slice(i, i + 500);
      const have = new Set((await q.selectFrom('user_message').select('message_id').where('user_id', '=', userId)
        .where('message_id', 'in', chunk).execute()).map((r) => r.message_id));
      const missing = chunk.filter((id) => !have.has(id));
      if (missing.length === 0) continue;
      await q.insertInto('user_message').values(missing.map((id) => ({ user_id: userId, message_id: id, flags: FLAG_BITS.read | FLAG_BITS.historical }))).execute();
      added.push(...missing);
    }
    return added;
  },

  /** Who holds a row for the message, with their role (events about the message go to holders). */
  listHolders: (q: Q, messageId: number): Promise<Array<{ user_id: number; role: number }>> => holders(q as Kysely<DB>, messageId),

  deleteByMessageIds: (q: Q, messageIds: number[]) =>
    messageIds.length === 0 ? Promise.resolve([]) : q.deleteFrom('user_message').where('message_id', 'in', messageIds).execute(),

  /** Huddle member lists (`1,2,3`) by recipient id. */
  huddleHashes: async (q: Q, recipientIds: number[]): Promise<Map<number, string>> => {
    if (recipientIds.length === 0) return new Map();
    const rows = await q.selectFrom('huddle').select(['recipient_id', 'huddle_hash']).where('recipient_id', 'in', recipientIds).execute();
    return new Map(rows.map((h) => [h.recipient_id!, h.huddle_hash]));
  },
};
