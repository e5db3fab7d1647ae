import { sql } from 'kysely';
import type { Q } from '../rows.js';

// Chunks keep every statement under SQLite's and PostgreSQL's bound-parameter limits.
const CHUNK = 500;

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

/**
 * An edit history with one more entry first. A history is a JSON array written by Parley,
 * never empty, so prepending is text concatenation, done in the statement itself so that
 * two edits at once both keep their entries.
 */
const prepend = (entryJson: string) =>
  sql<string>`CASE WHEN edit_history IS NULL THEN ${`[${entryJson}]`} ELSE ${`[${entryJson},`} || substr(edit_history, 2) END`;

/** Writes of message edits and moves: the message rows and their recipients' rows. */
export const messageEdits = {
  /** Every recipient row of one message. */
  listRecipientRows: (q: Q, messageId: number) =>
    q.selectFrom('user_message').select(['user_id', 'flags']).where('message_id', '=', messageId).execute(),

  /**
   * Sets the bits of `mask` to `bits` on the rows of `userIds` for one message, leaving
   * the others (read, starred: the user's own) as they are at the time of writing.
   */
  setFlagBits: async (q: Q, messageId: number, userIds: number[], mask: number, bits: number): Promise<void> => {
    for (const part of chunks(userIds)) {
      await q.updateTable('user_message').set({ flags: sql<number>`(flags & ${~mask}) | ${bits}` })
        .where('message_id', '=', messageId).where('user_id', 'in', part).execute();
    }
  },

  /** Changes one message and puts `entryJson` first in its edit history (see moveMessages). */
  updateMessage: (q: Q, id: number, entryJson: string, patch: {
    content?: string; rendered_content?: string; rendered_content_version?: number; is_me_message?: number;
    has_link?: number; has_image?: number; has_attachment?: number; topic?: string; topic_lower?: string;
    stream_id?: number; recipient_id?: number; last_edit_time: number;
  }) => q.updateTable('message').set({ ...patch, edit_history: prepend(entryJson) }).where('id', '=', id).execute(),

  /**
   * The ids of a stream's topic, oldest first: after `afterId` only when given, and only
   * those `receivedBy` has a row for when given (a stream without shared history).
   */
  /** A topic's messages with when they were sent, oldest first; only those `receivedBy` got, when given. */
  listTopicMessageDates: async (q: Q, streamId: number, topic: string, receivedBy?: number): Promise<Array<{ id: number; date_sent: number }>> => {
    let query = q.selectFrom('message').select(['message.id', 'message.date_sent'])
      .where('message.stream_id', '=', streamId).where('message.topic_lower', '=', topic.toLowerCase());
    if (receivedBy !== undefined) {
      query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
        .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', receivedBy)));
    }
    return query.orderBy('message.id').execute();
  },

  listTopicMessageIds: async (q: Q, streamId: number, topic: string, opts: { afterId?: number; receivedBy?: number }): Promise<number[]> => {
    let query = q.selectFrom('message').select('message.id')
      .where('message.stream_id', '=', streamId).where('message.topic_lower', '=', topic.toLowerCase());
    if (opts.afterId !== undefined) query = query.where('message.id', '>', opts.afterId);
    if (opts.receivedBy !== undefined) {
      const userId = opts.receivedBy;
      query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
        .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', userId)));
    }
    return (await query.orderBy('message.id').execute()).map((r) => r.id);
  },

  /**
   * Moves messages to a topic and/or stream and puts `entryJson` (one edit-history entry)
   * first in each one's history, in a statement per chunk: a history is a JSON array
   * written by Parley, never empty, so prepending is text concatenation.
   */
  moveMessages: async (q: Q, ids: number[], to: { topic: string; streamId: number; recipientId: number }, editTime: number, entryJson: string): Promise<void> => {
    for (const part of chunks(ids)) {
      await q.updateTable('message').set({
        topic: to.topic, topic_lower: to.topic.toLowerCase(), stream_id: to.streamId, recipient_id: to.recipientId,
        last_edit_time: editTime, edit_history: prepend(entryJson),
      }).where('id', 'in', part).execute();
    }
  },

  /** Drops the rows of users who lose a moved message (they can no longer see where it went). */
  deleteRecipientRows: async (q: Q, userIds: number[], messageIds: number[]): Promise<void> => {
    if (userIds.length === 0) return;
    for (const users of chunks(userIds)) {
      for (const part of chunks(messageIds)) {
        await q.deleteFrom('user_message').where('user_id', 'in', users).where('message_id', 'in', part).execute();
      }
    }
  },

  /** Gives each of `userIds` a row, flagged `flags`, for each message they lack one for. */
  insertRecipientRows: async (q: Q, userIds: number[], messageIds: number[], flags: number): Promise<void> => {
    if (userIds.length === 0) return;
    for (const part of chunks(messageIds)) {
      const have = new Set((await q.selectFrom('user_message').select(['user_id', 'message_id']).where('message_id', 'in', part)
        .where('user_id', 'in', userIds).execute()).map((r) => `${r.user_id}:${r.message_id}`));
      const rows = part.flatMap((m) => userIds.filter((u) => !have.has(`${u}:${m}`)).map((u) => ({ user_id: u, message_id: m, flags })));
      for (let i = 0; i < rows.length; i += 300) await q.insertInto('user_message').values(rows.slice(i, i + 300)).execute();
    }
  },

  /** Users with a policy for a topic (muted, unmuted, followed): a whole-topic move carries it along. */
  listTopicMuters: async (q: Q, streamId: number, topic: string): Promise<number[]> =>
    (await q.selectFrom('user_topic').select('user_id').where('stream_id', '=', streamId).where('topic_lower', '=', topic.toLowerCase()).execute())
      .map((r) => r.user_id),

  /** Those who sent or reacted to these messages: who a resolve notice stays unread for. */
  listParticipants: async (q: Q, ids: number[]): Promise<Set<number>> => {
    const out = new Set<number>();
    for (const part of chunks(ids)) {
      for (const r of await q.selectFrom('message').select('sender_id').where('id', 'in', part).execute()) out.add(r.sender_id);
      for (const r of await q.selectFrom('reaction').select('user_id').where('message_id', 'in', part).execute()) out.add(r.user_id);
    }
    return out;
  },
};
