import { sql, type Kysely, type SqlBool } from 'kysely';
import { prepared } from '../prepared.js';
import type { DB } from '../schema.js';
import type { Q } from '../rows.js';
import { FLAG_BITS } from '../../lib/message-flags.js';
import { OWN_INDEXES } from './messages.js';
import { dialectOf } from '../db.js';

const CHUNK = 500;
const unread = () => sql<SqlBool>`${sql.raw(OWN_INDEXES.unread)}`;

// Flag tests are written as literals: on SQLite they must match the partial indexes'
// conditions (migration 009), which are the only per-user way into user_message.

const holders = prepared((db, messageId: number) => db.selectFrom('user_message')
  .select('user_message.user_id').where('user_message.message_id', '=', messageId), [0]);

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

  /** Recipient rows for messages the user does not hold yet (a new user's history); answers how many were added. */
  insertMissing: async (q: Q, userId: number, rows: Array<{ message_id: number; flags: number }>): Promise<number> => {
    let added = 0;
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const have = new Set((await q.selectFrom('user_message').select('message_id').where('user_id', '=', userId)
        .where('message_id', 'in', chunk.map((r) => r.message_id)).execute()).map((r) => r.message_id));
      const missing = chunk.filter((r) => !have.has(r.message_id));
      if (missing.length === 0) continue;
      await q.insertInto('user_message').values(missing.map((r) => ({ user_id: userId, message_id: r.message_id, flags: r.flags }))).execute();
      added += missing.length;
    }
    return added;
  },

  /** The user's rows among `messageIds`: flags by message id (ids without a row are absent). */
  flagsByMessageIds: async (q: Q, userId: number, messageIds: number[]): Promise<Map<number, number>> => {
    const out = new Map<number, number>();
    for (let i = 0; i < messageIds.length; i += CHUNK) {
      const rows = await q.selectFrom('user_message').select(['message_id', 'flags']).where('user_id', '=', userId)
        .where('message_id', 'in', messageIds.slice(i, i + CHUNK)).execute();
      for (const r of rows) out.set(r.message_id, r.flags);
    }
    return out;
  },

  /** Sets (or clears) one flag bit on the user's rows of `messageIds`. */
  updateFlagBit: async (q: Q, userId: number, messageIds: number[], bit: number, set: boolean): Promise<void> => {
    for (let i = 0; i < messageIds.length; i += CHUNK) {
      await q.updateTable('user_message')
        .set((eb) => ({ flags: set ? eb('flags', '|', sql.lit(bit)) : eb('flags', '&', sql.lit(~bit)) }))
        .where('user_id', '=', userId).where('message_id', 'in', messageIds.slice(i, i + CHUNK)).execute();
    }
  },

  /**
   * Marks every unread row of the user read in one statement: on SQLite the literal
   * condition walks the partial index of unread rows, so the cost is the unread count,
   * never the user's history. How many rows changed.
   */
  /** Marks at most `limit` of the user's unread rows read (UPDATE has no LIMIT: a subquery picks them). How many changed. */
  /** Whether the user has any unread message (one probe of the unread index). */
  hasUnread: async (q: Q, userId: number): Promise<boolean> =>
    (await q.selectFrom('user_message').select('message_id').where('user_id', '=', userId).where(unread).limit(1).execute()).length > 0,

  markAllRead: async (q: Q, userId: number, limit: number): Promise<number> => {
    if (dialectOf(q).name === 'postgres') {
      // The batch's rows by their physical address (a TID scan): joined back through the
      // primary key instead, each row cost an index descent and half again the buffers.
      const r = await sql`UPDATE user_message SET flags = flags | ${sql.lit(FLAG_BITS.read)}
        WHERE ctid = ANY(ARRAY(SELECT ctid FROM user_message WHERE user_id = ${userId} AND ${unread()} LIMIT ${limit}))`.execute(q);
      return Number(r.numAffectedRows ?? 0);
    }
    return Number((await q.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', sql.lit(FLAG_BITS.read)) }))
      .where('user_id', '=', userId)
      .where('message_id', 'in', (eb) => eb.selectFrom('user_message').select('message_id').where('user_id', '=', userId).where(unread).limit(limit))
      .executeTakeFirst()).numUpdatedRows);
  },

  /**
   * Marks the user's unread messages of a stream (of one topic, matched case-insensitively,
   * when `topicLower` is given) read; their ids, ascending. Walks the user's unread rows and
   * looks each message up by id, so a long stream history costs nothing.
   */
  markStreamRead: async (q: Q, userId: number, streamId: number, topicLower?: string): Promise<number[]> => {
    const rows = await q.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', sql.lit(FLAG_BITS.read)) }))
      .where('user_id', '=', userId).where(unread)
      .where((eb) => eb.exists(eb.selectFrom('message').select('message.id').whereRef('message.id', '=', 'user_message.message_id')
        .where('message.stream_id', '=', streamId).$if(topicLower !== undefined, (qb) => qb.where('message.topic_lower', '=', topicLower!))))
      .returning('user_message.message_id').execute();
    return rows.map((r) => r.message_id).sort((a, b) => a - b);
  },

  /** Marks the user's unread messages from `senderId` read (muting a user); their ids, ascending. */
  markSenderRead: async (q: Q, userId: number, senderId: number): Promise<number[]> => {
    const rows = await q.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', sql.lit(FLAG_BITS.read)) }))
      .where('user_id', '=', userId).where(unread)
      .where((eb) => eb.exists(eb.selectFrom('message').select('message.id').whereRef('message.id', '=', 'user_message.message_id')
        .where('message.sender_id', '=', senderId)))
      .returning('user_message.message_id').execute();
    return rows.map((r) => r.message_id).sort((a, b) => a - b);
  },

  /** Whether the user received any message of the topic (Zulip's user_message_exists_for_topic). */
  existsInTopic: async (q: Q, userId: number, streamId: number, topicLower: string): Promise<boolean> =>
    (await q.selectFrom('message').innerJoin('user_message', 'user_message.message_id', 'message.id').select('message.id')
      .where('message.stream_id', '=', streamId).where('message.topic_lower', '=', topicLower)
      .where('user_message.user_id', '=', userId).limit(1).executeTakeFirst()) !== undefined,

  /** Those of `messageIds` that are unread for the user, with what register's unread_msgs groups them by. */
  listUnreadByIds: async (q: Q, userId: number, messageIds: number[]) => {
    const out = [];
    for (let i = 0; i < messageIds.length; i += CHUNK) {
      out.push(...await q.selectFrom('user_message').innerJoin('message', 'message.id', 'user_message.message_id')
        .select(['message.id', 'message.stream_id', 'message.topic', 'message.sender_id', 'message.recipient_id', 'user_message.flags'])
        .where('user_message.user_id', '=', userId).where('user_message.message_id', 'in', messageIds.slice(i, i + CHUNK))
        .where((eb) => eb(eb.parens(eb('user_message.flags', '&', sql.lit(FLAG_BITS.read))), '=', sql.lit(0))).execute());
    }
    return out.sort((a, b) => a.id - b.id);
  },

  /** Who holds a row for the message (events about the message go to holders). */
  listHolderIds: async (q: Q, messageId: number): Promise<number[]> => (await holders(q as Kysely<DB>, messageId)).map((r) => r.user_id),

  /**
   * Active users other than `exceptUserId` who hold the message with its read flag, with
   * their settings (read receipts are per-user settings, kept in the JSON).
   */
  listActiveReaders: (q: Q, messageId: number, exceptUserId: number): Promise<Array<{ user_id: number; settings: string }>> =>
    q.selectFrom('user_message').innerJoin('users', 'users.id', 'user_message.user_id')
      .select(['user_message.user_id', 'users.settings'])
      .where('user_message.message_id', '=', messageId).where('users.is_active', '=', 1).where('user_message.user_id', '<>', exceptUserId)
      .where((eb) => eb(eb.parens(eb('user_message.flags', '&', sql.lit(FLAG_BITS.read))), '<>', sql.lit(0)))
      .orderBy('user_message.user_id').execute(),

  /** Who holds which of the messages. */
  listByMessageIds: (q: Q, messageIds: number[]): Promise<Array<{ user_id: number; message_id: number }>> =>
    messageIds.length === 0 ? Promise.resolve([]) : q.selectFrom('user_message').select(['user_id', 'message_id']).where('message_id', 'in', messageIds).execute(),

  deleteByMessageIds: (q: Q, messageIds: number[]) =>
    messageIds.length === 0 ? Promise.resolve([]) : q.deleteFrom('user_message').where('message_id', 'in', messageIds).execute(),

  /** Huddle member lists (`1,2,3`) by recipient id. */
  huddleHashes: async (q: Q, recipientIds: number[]): Promise<Map<number, string>> => {
    if (recipientIds.length === 0) return new Map();
    const rows = await q.selectFrom('huddle').select(['recipient_id', 'huddle_hash']).where('recipient_id', 'in', recipientIds).execute();
    return new Map(rows.map((h) => [h.recipient_id!, h.huddle_hash]));
  },
};
