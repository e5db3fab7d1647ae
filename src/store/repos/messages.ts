import { sql, type Kysely, type SqlBool } from 'kysely';
import { prepared } from '../prepared.js';
import type { DB } from '../schema.js';
import type { MessageRow, Q } from '../rows.js';
import { FLAG_BITS } from '../../lib/message-flags.js';

const FLAG_READ = FLAG_BITS.read;

/**
 * The user-keyed partial indexes of user_message on SQLite (migrations 009 and 001), by
 * their conditions, written as literals so that the planner always matches them. Every
 * row is in `unread` or `read`.
 */
export const OWN_INDEXES = {
  unread: '(flags & 1) = 0',
  read: '(flags & 1) <> 0',
  starred: '(flags & 2) <> 0',
  // MENTION_BITS (src/lib/message-flags.ts): mentioned, stream and topic wildcards; the partial index of migration 043.
  mentioned: '(flags & 56) <> 0',
  private: '(flags & 2048) <> 0',
} as const;
export type OwnIndex = keyof typeof OWN_INDEXES;

// Each bound comes from one end of one partial index (every row is in the read or the
// unread one), so none of them walks a user's rows. Four parameters, all the user id.
const bounds = prepared((db, a: number, b: number, c: number, d: number) => db.selectNoFrom((eb) => [
  eb.selectFrom('user_message').select((e) => e.fn.min('message_id').as('v')).where('user_id', '=', a).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.unread)}`).as('first_unread'),
  eb.selectFrom('user_message').select((e) => e.fn.min('message_id').as('v')).where('user_id', '=', b).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.read)}`).as('first_read'),
  eb.selectFrom('user_message').select((e) => e.fn.max('message_id').as('v')).where('user_id', '=', c).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.unread)}`).as('last_unread'),
  eb.selectFrom('user_message').select((e) => e.fn.max('message_id').as('v')).where('user_id', '=', d).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.read)}`).as('last_read'),
]), [0, 0, 0, 0]);

// Every access check makes these two (accessMessage); compiled once.
const byId = prepared((db, id: number) => db.selectFrom('message').selectAll().where('id', '=', id), [0]);
const flagsOfOne = prepared((db, userId: number, messageId: number) =>
  db.selectFrom('user_message').select('flags').where('user_id', '=', userId).where('message_id', '=', messageId), [0, 0]);

/** The id range of a user's messages (null when they have none), and their oldest unread one. */
export interface UserMessageBounds { first: number | null; last: number | null; firstUnread: number | null }

export const messages = {
  /**
   * On SQLite recipient rows are keyed by message (migration 009), so a reader that walks
   * messages by id needs these bounds not to walk past a user's first or last message.
   * SQLite only: on PostgreSQL, with no partial index of read rows, the read half would
   * filter all of the user's rows.
   */
  userBounds: async (q: Q, userId: number): Promise<UserMessageBounds> => {
    const [r] = await bounds(q as Kysely<DB>, userId, userId, userId, userId);
    const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    const pick = (f: (...x: number[]) => number, a: number | null, b: number | null) => (a === null ? b : b === null ? a : f(a, b));
    return {
      first: pick(Math.min, n(r?.first_unread), n(r?.first_read)),
      last: pick(Math.max, n(r?.last_unread), n(r?.last_read)),
      firstUnread: n(r?.first_unread),
    };
  },

  /** Marks every recipient's copy of a stream's messages read (an archived stream's, as Zulip does). */
  markRecipientRead: (q: Q, recipientId: number) =>
    q.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', FLAG_READ) }))
      .where((eb) => eb(eb.parens(eb('flags', '&', FLAG_READ)), '=', 0))
      .where('message_id', 'in', (eb) => eb.selectFrom('message').select('id').where('recipient_id', '=', recipientId))
      .execute(),

  listByIds: (q: Q, ids: number[]): Promise<MessageRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('message').selectAll().where('id', 'in', ids).execute(),

  findById: async (q: Q, id: number): Promise<MessageRow | undefined> => (await byId(q as Kysely<DB>, id))[0],
  /** Whether any message went from one of the senders to its recipient (the direct message initiator check, level 270). */
  anySentTo: async (q: Q, pairs: ReadonlyArray<{ senderId: number; recipientId: number }>): Promise<boolean> => {
    if (pairs.length === 0) return false;
    const row = await q.selectFrom('message').select('id')
      .where((eb) => eb.or(pairs.map((p) => eb.and([eb('sender_id', '=', p.senderId), eb('recipient_id', '=', p.recipientId)])))).limit(1).executeTakeFirst();
    return row !== undefined;
  },
  /** Whether the conversation of that recipient has any message. */
  anyTo: async (q: Q, recipientId: number): Promise<boolean> =>
    (await q.selectFrom('message').select('id').where('recipient_id', '=', recipientId).limit(1).executeTakeFirst()) !== undefined,

  flagsOf: async (q: Q, userId: number, messageId: number): Promise<{ flags: number } | undefined> =>
    (await flagsOfOne(q as Kysely<DB>, userId, messageId))[0],

  /** Private-message recipients: personal recipients are users; huddles list their members. */
  huddleMembers: async (q: Q, recipientIds: number[]): Promise<Map<number, number[]>> => {
    const out = new Map<number, number[]>();
    if (recipientIds.length === 0) return out;
    const rows = await q.selectFrom('huddle').select(['recipient_id', 'huddle_hash']).where('recipient_id', 'in', recipientIds).execute();
    for (const r of rows) out.set(r.recipient_id!, r.huddle_hash.split(',').map(Number));
    return out;
  },

  /** The newest message id of each topic of a stream; only messages `userId` received unless null. */
  topicMaxIds: async (q: Q, streamId: number, userId: number | null): Promise<Array<{ max_id: number }>> => {
    let query = q.selectFrom('message').select(['message.topic_lower', (eb) => eb.fn.max('message.id').as('max_id')])
      .where('message.stream_id', '=', streamId);
    if (userId !== null) {
      query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
        .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', userId)));
    }
    return (await query.groupBy('message.topic_lower').execute()).map((g) => ({ max_id: Number(g.max_id) }));
  },

  /** The topic of each message, by id, in chunks that keep under every engine's parameter limit. */
  topicsOfIds: async (q: Q, ids: number[]): Promise<Map<number, string>> => {
    const names = new Map<number, string>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await q.selectFrom('message').select(['id', 'topic']).where('id', 'in', ids.slice(i, i + 500)).execute();
      for (const row of rows) names.set(row.id, row.topic);
    }
    return names;
  },

  /** Deletes the message rows (their recipient rows and reactions first: see the repos of those); answers how many were there. */
  deleteByIds: async (q: Q, ids: number[]): Promise<number> =>
    ids.length === 0 ? 0 : Number((await q.deleteFrom('message').where('id', 'in', ids).executeTakeFirst()).numDeletedRows),

  /**
   * A topic's messages (ids and topic as written), oldest first; with `receivedBy`, only
   * those that user holds a row for (a stream without shared history).
   */
  /** The newest `limit` messages of a topic (newest first); only those `receivedBy` got, when given. */
  listNewestInTopic: async (q: Q, streamId: number, topicLower: string, limit: number, receivedBy?: number): Promise<Array<{ id: number; topic: string }>> => {
    let query = q.selectFrom('message').select(['message.id', 'message.topic'])
      .where('message.stream_id', '=', streamId).where('message.topic_lower', '=', topicLower);
    if (receivedBy !== undefined) {
      query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
        .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', receivedBy)));
    }
    return query.orderBy('message.id', 'desc').limit(limit).execute();
  },

  /**
   * Whether the topic has a message other than `exceptId`; with `receivedBy`, only among those
   * that user holds a row for (Zulip's old_accessible_messages_in_topic).
   */
  anotherInTopic: async (q: Q, streamId: number, topicLower: string, exceptId: number, receivedBy?: number): Promise<boolean> => {
    let query = q.selectFrom('message').select('message.id')
      .where('message.stream_id', '=', streamId).where('message.topic_lower', '=', topicLower).where('message.id', '<>', exceptId);
    if (receivedBy !== undefined) {
      query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
        .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', receivedBy)));
    }
    return (await query.limit(1).executeTakeFirst()) !== undefined;
  },

  /**
   * Zulip's participants_for_topic: who sent a message to the topic or reacted to one
   * (a topic wildcard mention notifies them).
   */
  topicParticipants: async (q: Q, streamId: number, topicLower: string): Promise<Set<number>> => {
    const senders = await q.selectFrom('message').select('sender_id').distinct()
      .where('stream_id', '=', streamId).where('topic_lower', '=', topicLower).execute();
    const reactors = await q.selectFrom('reaction').innerJoin('message', 'message.id', 'reaction.message_id')
      .select('reaction.user_id').distinct()
      .where('message.stream_id', '=', streamId).where('message.topic_lower', '=', topicLower).execute();
    return new Set([...senders.map((r) => r.sender_id), ...reactors.map((r) => r.user_id)]);
  },

  /** The newest ids (newest first, at most `limit`) of the streams' messages sent after `since`: a new user's history. */
  listRecentIdsInStreams: async (q: Q, streamIds: number[], since: number, limit: number): Promise<number[]> =>
    streamIds.length === 0 ? [] : (await q.selectFrom('message').select('id').where('stream_id', 'in', streamIds)
      .where('date_sent', '>', since).orderBy('id', 'desc').limit(limit).execute()).map((r) => r.id),

  /** The oldest message left in a stream, or null: its first_message_id. */
  firstIdInStream: async (q: Q, streamId: number): Promise<number | null> =>
    (await q.selectFrom('message').select('id').where('stream_id', '=', streamId).orderBy('id').limit(1).executeTakeFirst())?.id ?? null,

  reactionsFor: (q: Q, ids: number[]) =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('reaction').selectAll().where('message_id', 'in', ids).orderBy('id').execute(),
};
