import { sql } from 'kysely';
import type { MessageRow, Q } from '../rows.js';
import type { Store } from '../db.js';

/** The message columns the archive keeps: all but PostgreSQL's search column, which the row rebuilds. */
const MESSAGE_COLUMNS = ['id', 'realm_id', 'sender_id', 'recipient_id', 'stream_id', 'topic', 'topic_lower', 'content', 'rendered_content',
  'rendered_content_version', 'date_sent', 'client', 'last_edit_time', 'edit_history', 'is_me_message', 'has_link', 'has_image',
  'has_attachment'] as const;
const REACTION_COLUMNS = ['id', 'message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type'] as const;

/** Zulip's ArchiveTransaction.type. */
export const ArchiveType = { RETENTION_POLICY: 1, MANUAL: 2 } as const;

export interface ArchiveBatchRow { id: number; timestamp: number; type: number; realm_id: number | null; restored: number }


/** A message's place in a walk by age. */
export interface AgeKey { date_sent: number; id: number }
/** Before every message. */
export const OLDEST: AgeKey = { date_sent: -1, id: 0 };
const ageKey = (r: { id: number; date_sent: number }): AgeKey => ({ date_sent: Number(r.date_sent), id: r.id });

export const archive = {
  /**
   * The next `limit` messages of a stream sent before `cutoff`, after id `afterId`, oldest
   * first. Walks the (stream_id, id) index: expired messages are the oldest, so the walk
   * stops soon after the last of them.
   */
  /**
   * Up to `limit` of a stream's messages older than `cutoff`, oldest first, after `after` in
   * (date_sent, id) order: along message_stream_age, so a walk reads the expired messages
   * and stops at the first younger one (ids do not follow age: imports add old messages late).
   */
  expiredStreamMessages: async (q: Q, streamId: number, cutoff: number, after: AgeKey, limit: number): Promise<AgeKey[]> =>
    (await q.selectFrom('message').select(['id', 'date_sent']).where('stream_id', '=', streamId).where('date_sent', '<', cutoff)
      .where((eb) => eb.or([eb('date_sent', '>', after.date_sent), eb.and([eb('date_sent', '=', after.date_sent), eb('id', '>', after.id)])]))
      .orderBy('date_sent').orderBy('id').limit(limit).execute()).map(ageKey),

  /** The same for an organization's private messages (one-to-one and group), along message_private_age. */
  expiredPrivateMessages: async (q: Q, realmId: number, cutoff: number, after: AgeKey, limit: number): Promise<AgeKey[]> =>
    (await q.selectFrom('message').select(['id', 'date_sent']).where('realm_id', '=', realmId).where('stream_id', 'is', null).where('date_sent', '<', cutoff)
      .where((eb) => eb.or([eb('date_sent', '>', after.date_sent), eb.and([eb('date_sent', '=', after.date_sent), eb('id', '>', after.id)])]))
      .orderBy('date_sent').orderBy('id').limit(limit).execute()).map(ageKey),

  /**
   * Moves those of `ids` still there, still older than `cutoff` and still where they were
   * found (in stream `streamId`, or private when null: a message moved meanwhile goes by
   * its new stream's retention) into a new archive batch, with their recipient rows,
   * reactions and file links, and deletes them (file links by the cascade). One transaction
   * run by the store as a script (Store.script: on SQLite by the writer thread, never
   * blocking requests). Answers what moved, who held each, and, when the stream's first
   * message moved (pass `firstMayMove` when it may: a statement on a stream row counts as a
   * change to PostgreSQL's cache triggers even when it changes nothing), its new one.
   */
  moveExpired: async (store: Store, m: { type: number; realmId: number; streamId: number | null; ids: number[]; cutoff: number; now: number; firstMayMove: boolean }):
    Promise<{ rows: MessageRow[]; holders: Array<{ user_id: number; message_id: number }>; heldMs: number; firstMessageId?: { before: number | null; after: number | null } }> => {
    if (m.ids.length === 0) return { rows: [], holders: [], heldMs: 0 };
    const db = store.db;
    // The unary + keeps these two off message_stream_age and message_private_age: SQLite has
    // no statistics and, given them, planned this statement along an age index, scanning every
    // expired message of the stream per batch instead of looking up the batch's ids.
    const moving = db.selectFrom('message').where('id', 'in', m.ids).where(sql<number>`+message.date_sent`, '<', m.cutoff)
      .where(sql<number | null>`+message.stream_id`, m.streamId === null ? 'is' : '=', m.streamId);
    const movingIds = moving.select('id');
    const batchId = store.dialect.lastInsertedId('archive_transaction').as('archive_transaction_id');
    const first = m.streamId !== null && m.firstMayMove ? m.streamId : null;
    const firstOf = (id: number) => db.selectFrom('stream').select('first_message_id').where('id', '=', id).compile();
    const steps = [
      moving.selectAll().orderBy('id').compile(),
      db.selectFrom('user_message').select(['user_id', 'message_id']).where('message_id', 'in', movingIds).compile(),
      ...(first === null ? [] : [firstOf(first)]),
      // No batch when nothing is left to move; the copies below then copy nothing.
      db.insertInto('archive_transaction').columns(['type', 'realm_id', 'timestamp'])
        .expression(db.selectFrom('realm').select([sql.lit(Math.trunc(m.type)).as('type'), 'id', sql.lit(Math.trunc(m.now)).as('timestamp')])
          .where('id', '=', m.realmId).where((eb) => eb.exists(movingIds))).compile(),
      db.insertInto('archived_message').columns([...MESSAGE_COLUMNS, 'archive_transaction_id']).expression(moving.select([...MESSAGE_COLUMNS, batchId])).compile(),
      db.insertInto('archived_user_message').columns(['user_id', 'message_id', 'flags', 'archive_transaction_id'])
        .expression(db.selectFrom('user_message').select(['user_id', 'message_id', 'flags', batchId]).where('message_id', 'in', movingIds)).compile(),
      db.insertInto('archived_reaction').columns([...REACTION_COLUMNS, 'archive_transaction_id'])
        .expression(db.selectFrom('reaction').select([...REACTION_COLUMNS, batchId]).where('message_id', 'in', movingIds)).compile(),
      db.insertInto('archived_attachment_message').columns(['attachment_id', 'message_id', 'archive_transaction_id'])
        .expression(db.selectFrom('attachment_message').select(['attachment_id', 'message_id', batchId]).where('message_id', 'in', movingIds)).compile(),
      db.deleteFrom('reaction').where('message_id', 'in', movingIds).compile(),
      db.deleteFrom('user_message').where('message_id', 'in', movingIds).compile(),
      db.deleteFrom('message').where('id', 'in', movingIds).compile(),
      ...(first === null ? [] : [
        // The oldest message left, when the first one has gone.
        db.updateTable('stream').set((eb) => ({ first_message_id: eb.selectFrom('message').select('id').where('stream_id', '=', first).orderBy('id').limit(1) }))
          .where('id', '=', first).where('first_message_id', 'is not', null)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('message').select('id').whereRef('message.id', '=', 'stream.first_message_id')))).compile(),
        firstOf(first),
      ]),
    ];
    const { results, heldMs } = await store.script(steps);
    const rows = results[0]!.rows as MessageRow[];
    const holders = results[1]!.rows as Array<{ user_id: number; message_id: number }>;
    if (first === null) return { rows, holders, heldMs };
    const firstMessage = (r: { rows: unknown[] }) => (r.rows[0] as { first_message_id: number | null } | undefined)?.first_message_id ?? null;
    return { rows, holders, heldMs, firstMessageId: { before: firstMessage(results[2]!), after: firstMessage(results[results.length - 1]!) } };
  },

  /** Batches of an organization made at or after `since`, not yet restored, oldest first. */
  listRestorable: (q: Q, realmId: number, since: number): Promise<ArchiveBatchRow[]> =>
    q.selectFrom('archive_transaction').selectAll().where('realm_id', '=', realmId).where('timestamp', '>=', since)
      .where('restored', '=', 0).orderBy('id').execute(),

  /**
   * Puts a batch's rows back where they were and empties it, keeping the batch row marked
   * restored (until the purge) as the record of what happened. File links come back only
   * for files that still exist: the storage sweep may have collected one meanwhile. The
   * messages restored, with their streams.
   */
  restoreBatch: async (q: Q, batchId: number): Promise<Array<{ id: number; stream_id: number | null }>> => {
    const restored = await q.selectFrom('archived_message').select(['id', 'stream_id']).where('archive_transaction_id', '=', batchId).orderBy('id').execute();
    if (restored.length > 0) {
      await q.insertInto('message').columns([...MESSAGE_COLUMNS])
        .expression(q.selectFrom('archived_message').select([...MESSAGE_COLUMNS]).where('archive_transaction_id', '=', batchId)).execute();
      await q.insertInto('user_message').columns(['user_id', 'message_id', 'flags'])
        .expression(q.selectFrom('archived_user_message').select(['user_id', 'message_id', 'flags']).where('archive_transaction_id', '=', batchId)).execute();
      await q.insertInto('reaction').columns([...REACTION_COLUMNS])
        .expression(q.selectFrom('archived_reaction').select([...REACTION_COLUMNS]).where('archive_transaction_id', '=', batchId)).execute();
      await q.insertInto('attachment_message').columns(['attachment_id', 'message_id'])
        .expression(q.selectFrom('archived_attachment_message').innerJoin('attachment', 'attachment.id', 'archived_attachment_message.attachment_id')
          .select(['archived_attachment_message.attachment_id', 'archived_attachment_message.message_id'])
          .where('archived_attachment_message.archive_transaction_id', '=', batchId)).execute();
    }
    await archive.emptyBatch(q, batchId);
    await q.updateTable('archive_transaction').set({ restored: 1 }).where('id', '=', batchId).execute();
    return restored;
  },

  /** Ids of batches made before `before`, oldest first (the purge's). */
  listPurgeable: async (q: Q, before: number, limit: number): Promise<number[]> =>
    (await q.selectFrom('archive_transaction').select('id').where('timestamp', '<', before).orderBy('id').limit(limit).execute()).map((r) => r.id),

  /** Deletes a batch's archived rows, children first (no reliance on the cascade's cost). */
  emptyBatch: async (q: Q, batchId: number): Promise<void> => {
    await q.deleteFrom('archived_attachment_message').where('archive_transaction_id', '=', batchId).execute();
    await q.deleteFrom('archived_reaction').where('archive_transaction_id', '=', batchId).execute();
    await q.deleteFrom('archived_user_message').where('archive_transaction_id', '=', batchId).execute();
    await q.deleteFrom('archived_message').where('archive_transaction_id', '=', batchId).execute();
  },

  /**
   * Deletes a batch for good, its archived rows first (no reliance on the cascade's cost),
   * as one store script (Store.script: on SQLite run by the writer thread, never blocking
   * requests). How many messages it held, and how long the writer was held.
   */
  purgeBatch: async (store: Store, batchId: number): Promise<{ messages: number; heldMs: number }> => {
    const db = store.db;
    const { results, heldMs } = await store.script([
      db.selectFrom('archived_message').select((eb) => eb.fn.countAll<number>().as('n')).where('archive_transaction_id', '=', batchId).compile(),
      db.deleteFrom('archived_attachment_message').where('archive_transaction_id', '=', batchId).compile(),
      db.deleteFrom('archived_reaction').where('archive_transaction_id', '=', batchId).compile(),
      db.deleteFrom('archived_user_message').where('archive_transaction_id', '=', batchId).compile(),
      db.deleteFrom('archived_message').where('archive_transaction_id', '=', batchId).compile(),
      db.deleteFrom('archive_transaction').where('id', '=', batchId).compile(),
    ]);
    return { messages: Number((results[0]!.rows[0] as { n: number | string } | undefined)?.n ?? 0), heldMs };
  },
};
