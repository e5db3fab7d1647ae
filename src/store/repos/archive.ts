import { sql } from 'kysely';
import type { MessageRow, Q } from '../rows.js';

/** The message columns the archive keeps: all but PostgreSQL's search column, which the row rebuilds. */
const MESSAGE_COLUMNS = ['id', 'realm_id', 'sender_id', 'recipient_id', 'stream_id', 'topic', 'topic_lower', 'content', 'rendered_content',
  'rendered_content_version', 'date_sent', 'client', 'last_edit_time', 'edit_history', 'is_me_message', 'has_link', 'has_image',
  'has_attachment'] as const;
const REACTION_COLUMNS = ['id', 'message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type'] as const;

/** Zulip's ArchiveTransaction.type. */
export const ArchiveType = { RETENTION_POLICY: 1, MANUAL: 2 } as const;

export interface ArchiveBatchRow { id: number; timestamp: number; type: number; realm_id: number | null; restored: number }

// A batch id as an SQL literal in INSERT ... SELECT: PostgreSQL cannot type a bare parameter in a select list.
const batchLiteral = (id: number) => sql.lit(Math.trunc(id)).as('archive_transaction_id');

export const archive = {
  /**
   * The next `limit` messages of a stream sent before `cutoff`, after id `afterId`, oldest
   * first. Walks the (stream_id, id) index: expired messages are the oldest, so the walk
   * stops soon after the last of them.
   */
  expiredStreamIds: async (q: Q, streamId: number, cutoff: number, afterId: number, limit: number): Promise<number[]> =>
    (await q.selectFrom('message').select('id').where('stream_id', '=', streamId).where('id', '>', afterId)
      .where('date_sent', '<', cutoff).orderBy('id').limit(limit).execute()).map((r) => r.id),

  /** The same for an organization's private messages (one-to-one and group), along (realm_id, id). */
  expiredPrivateIds: async (q: Q, realmId: number, cutoff: number, afterId: number, limit: number): Promise<number[]> =>
    (await q.selectFrom('message').select('id').where('realm_id', '=', realmId).where('stream_id', 'is', null).where('id', '>', afterId)
      .where('date_sent', '<', cutoff).orderBy('id').limit(limit).execute()).map((r) => r.id),

  /**
   * Those of `ids` still there, still older than `cutoff` and still where they were found
   * (in stream `streamId`, or private when null: a message moved meanwhile goes by its new
   * stream's retention), re-read in the archiving transaction.
   */
  listExpired: (q: Q, ids: number[], cutoff: number, streamId: number | null): Promise<MessageRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('message').selectAll().where('id', 'in', ids).where('date_sent', '<', cutoff)
      .where('stream_id', streamId === null ? 'is' : '=', streamId).orderBy('id').execute(),

  createBatch: async (q: Q, type: number, realmId: number | null, timestamp: number): Promise<number> =>
    (await q.insertInto('archive_transaction').values({ type, realm_id: realmId, timestamp }).returning('id').executeTakeFirstOrThrow()).id,

  /** Copies the messages and everything hanging off them into the archive, under batch `batchId`. */
  copyToArchive: async (q: Q, batchId: number, ids: number[]): Promise<void> => {
    if (ids.length === 0) return;
    await q.insertInto('archived_message').columns([...MESSAGE_COLUMNS, 'archive_transaction_id'])
      .expression(q.selectFrom('message').select([...MESSAGE_COLUMNS, batchLiteral(batchId)]).where('id', 'in', ids)).execute();
    await q.insertInto('archived_user_message').columns(['user_id', 'message_id', 'flags', 'archive_transaction_id'])
      .expression(q.selectFrom('user_message').select(['user_id', 'message_id', 'flags', batchLiteral(batchId)]).where('message_id', 'in', ids)).execute();
    await q.insertInto('archived_reaction').columns([...REACTION_COLUMNS, 'archive_transaction_id'])
      .expression(q.selectFrom('reaction').select([...REACTION_COLUMNS, batchLiteral(batchId)]).where('message_id', 'in', ids)).execute();
    await q.insertInto('archived_attachment_message').columns(['attachment_id', 'message_id', 'archive_transaction_id'])
      .expression(q.selectFrom('attachment_message').select(['attachment_id', 'message_id', batchLiteral(batchId)]).where('message_id', 'in', ids)).execute();
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

  /** How many messages a batch holds (for the purge's count). */
  countMessages: async (q: Q, batchId: number): Promise<number> =>
    Number((await q.selectFrom('archived_message').select((eb) => eb.fn.countAll<number>().as('n')).where('archive_transaction_id', '=', batchId).executeTakeFirst())?.n ?? 0),

  /** Deletes a batch's archived rows, children first (no reliance on the cascade's cost). */
  emptyBatch: async (q: Q, batchId: number): Promise<void> => {
    await q.deleteFrom('archived_attachment_message').where('archive_transaction_id', '=', batchId).execute();
    await q.deleteFrom('archived_reaction').where('archive_transaction_id', '=', batchId).execute();
    await q.deleteFrom('archived_user_message').where('archive_transaction_id', '=', batchId).execute();
    await q.deleteFrom('archived_message').where('archive_transaction_id', '=', batchId).execute();
  },

  deleteBatch: async (q: Q, batchId: number): Promise<void> => {
    await archive.emptyBatch(q, batchId);
    await q.deleteFrom('archive_transaction').where('id', '=', batchId).execute();
  },
};
