import type { AppContext } from '../context.js';
import { writeAlone } from './transaction.js';
import type { RealmRow, StreamRow } from '../store/rows.js';
import { archive, ArchiveType, OLDEST } from '../store/repos/archive.js';
import { realms } from '../store/repos/realms.js';
import { streams } from '../store/repos/streams.js';
import { notifyFirstMessageId } from './message-delete.js';
import { queueRemovePushesOfDeleted } from '../notifications/push.js';
import { queueArchiveEvents, retireMessagesOnCommit } from './retention-events.js';
import { BatchSizer, pauseAfterBatch } from './retention-pace.js';
import { realmSettings } from '../lib/realm-settings.js';
import { nowSeconds } from '../lib/time.js';

/** Zulip's MESSAGE_BATCH_SIZE: the most messages per archiving transaction (fewer when that would hold the writer long: retention-pace.ts). */
export const ARCHIVE_BATCH_SIZE = 1000;
const DAY = 86_400;
/** message_retention_days' "keep forever" (the API's `unlimited`). */
const UNLIMITED = -1;

export interface ArchiveOptions {
  /** One organization; every one when absent. */
  realmId?: number;
  /** A fixed number of messages per batch (each one short transaction); by default sized to the time batches take, up to ARCHIVE_BATCH_SIZE. */
  batchSize?: number;
  /** The time a batch should hold the writer, ms (TARGET_HOLD_MS by default), when batchSize is not given. */
  holdMs?: number;
  /** The pause after a batch, as a multiple of the time the batch held the writer (retention-pace.ts). */
  pauseFactor?: number;
  /** "Now", UNIX seconds. */
  now?: number;
  onProgress?: (p: { realmId: number; archived: number }) => void;
  /** Stops between batches (the scheduler's stop at shutdown); the next run goes on from there. */
  signal?: AbortSignal;
}

export interface ArchiveSummary { messages: number; batches: number }

/**
 * The days a stream's messages are kept: its own message_retention_days, or the
 * organization's when it has none (null: `realm_default`); -1 is `unlimited`.
 */
export function streamRetentionDays(stream: StreamRow, realmDays: number): number {
  return stream.message_retention_days ?? realmDays;
}

/**
 * Zulip's archive_messages: in every organization, stream messages older than their
 * stream's retention and private messages older than the organization's go to the
 * archive, a batch per transaction, oldest first, with a pause between batches so that
 * sends keep the writer. Clients hear `delete_message` as for a deletion by hand.
 */
export async function archiveExpiredMessages(ctx: AppContext, opts: ArchiveOptions = {}): Promise<ArchiveSummary> {
  const summary: ArchiveSummary = { messages: 0, batches: 0 };
  const all = await realms.list(ctx.store.db);
  for (const realm of all.filter((r) => opts.realmId === undefined || r.id === opts.realmId)) {
    const realmDays = realmSettings(realm.settings).message_retention_days;
    const inRealm = [...await streams.listByRealm(ctx.store.db, realm.id), ...await streams.listArchivedByRealm(ctx.store.db, realm.id)];
    for (const stream of inRealm) {
      if (opts.signal?.aborted) break;
      const days = streamRetentionDays(stream, realmDays);
      if (days !== UNLIMITED && days > 0) await archiveRuns(ctx, realm, stream, days, opts, summary);
    }
    if (realmDays !== UNLIMITED && realmDays > 0) await archiveRuns(ctx, realm, undefined, realmDays, opts, summary);
  }
  return summary;
}

/** One stream's expired messages (or, without a stream, the organization's private ones), batch by batch. */
async function archiveRuns(ctx: AppContext, realm: RealmRow, stream: StreamRow | undefined, days: number, opts: ArchiveOptions,
  summary: ArchiveSummary): Promise<void> {
  const sizer = new BatchSizer(Math.max(1, opts.batchSize ?? ARCHIVE_BATCH_SIZE), opts.batchSize !== undefined, opts.holdMs);
  const cutoff = (opts.now ?? nowSeconds()) - days * DAY;
  let after = OLDEST;
  for (;;) {
    const size = sizer.next;
    // Found on a reader, outside the write transaction: the walk never holds the writer.
    const found = stream
      ? await archive.expiredStreamMessages(ctx.store.db, stream.id, cutoff, after, size)
      : await archive.expiredPrivateMessages(ctx.store.db, realm.id, cutoff, after, size);
    if (found.length === 0) return;
    after = found[found.length - 1]!;
    const ids = found.map((m) => m.id).sort((a, b) => a - b);
    const moved = await archiveBatch(ctx, realm, stream?.id, ids, cutoff, opts.now ?? nowSeconds());
    sizer.record(moved.messages, moved.heldMs);
    if (moved.messages > 0) {
      summary.messages += moved.messages;
      summary.batches += 1;
      opts.onProgress?.({ realmId: realm.id, archived: summary.messages });
    }
    if (found.length < size || opts.signal?.aborted) return;
    await pauseAfterBatch(moved.heldMs, opts.pauseFactor);
  }
}

/**
 * One batch: the messages of `ids` still there and still expired are copied to the
 * archive under a new archive_transaction and deleted, with their recipient rows,
 * reactions and file links, as one transaction the store runs as a script (off the
 * request thread on SQLite: archive.moveExpired). Then, as after a manual deletion,
 * delete_message to whoever could see them, the stream's new first_message_id, cached
 * copies retired and phones' pushes removed. How many moved, and how long the writer was held.
 */
export async function archiveBatch(ctx: AppContext, realm: RealmRow, streamId: number | undefined, ids: number[],
  cutoff: number, now: number): Promise<{ messages: number; heldMs: number }> {
  const before = streamId === undefined ? undefined : await streams.findInRealmAny(ctx.store.db, realm.id, streamId);
  // The stream's first message is the oldest: only a batch at or before it may take it.
  const firstMayMove = before?.first_message_id != null && before.first_message_id <= ids[ids.length - 1]!;
  // One statement's worth of commit (the script): its events leave after it, as writeAlone's do.
  return writeAlone(ctx, async (tx) => {
    const moved = await archive.moveExpired(ctx.store, {
      type: ArchiveType.RETENTION_POLICY, realmId: realm.id, streamId: streamId ?? null, ids, cutoff, now, firstMayMove,
    });
    if (moved.rows.length === 0) return { messages: 0, heldMs: moved.heldMs };
    const movedIds = moved.rows.map((r) => r.id);
    const stream = streamId === undefined ? undefined : await streams.findInRealmAny(tx.db, realm.id, streamId);
    await queueArchiveEvents(tx, realm.id, moved.rows, moved.holders, stream);
    const first = moved.firstMessageId;
    if (stream && first && first.before !== first.after) await notifyFirstMessageId(tx, stream, first.after);
    tx.later((c) => queueRemovePushesOfDeleted(c, movedIds));
    retireMessagesOnCommit(ctx, tx, movedIds);
    return { messages: movedIds.length, heldMs: moved.heldMs };
  });
}

export interface PurgeOptions {
  /** Days an archived batch is kept; the configured PARLEY_ARCHIVE_KEEP_DAYS by default. */
  keepDays?: number;
  now?: number;
  pauseFactor?: number;
  onProgress?: (p: { purged: number }) => void;
  signal?: AbortSignal;
}

/** Zulip's TRANSACTION_DELETION_BATCH_SIZE: batches listed at a time by the purge. */
const PURGE_LIST_SIZE = 100;

/**
 * Zulip's clean_archived_data: archived batches made more than keep-days ago are deleted
 * for good, restored ones' records included, one batch per store script. The files they
 * linked become unclaimed with it; the storage sweep collects those.
 */
export async function purgeArchive(ctx: AppContext, opts: PurgeOptions = {}): Promise<ArchiveSummary> {
  const keepDays = opts.keepDays ?? ctx.config.archiveKeepDays;
  const before = (opts.now ?? nowSeconds()) - keepDays * DAY;
  const summary: ArchiveSummary = { messages: 0, batches: 0 };
  for (;;) {
    const ids = await archive.listPurgeable(ctx.store.db, before, PURGE_LIST_SIZE);
    for (const id of ids) {
      const purged = await archive.purgeBatch(ctx.store, id);
      summary.messages += purged.messages;
      summary.batches += 1;
      opts.onProgress?.({ purged: summary.messages });
      if (opts.signal?.aborted) return summary;
      await pauseAfterBatch(purged.heldMs, opts.pauseFactor);
    }
    if (ids.length < PURGE_LIST_SIZE) return summary;
  }
}

export interface RetentionSummary { archived: ArchiveSummary; purged: ArchiveSummary }

/** What the hourly job runs (and `parley retention run`): archive what expired, then purge what was archived long ago. */
export async function runRetention(ctx: AppContext, opts: ArchiveOptions & { keepDays?: number } = {}): Promise<RetentionSummary> {
  const archived = await archiveExpiredMessages(ctx, opts);
  const purged = await purgeArchive(ctx, {
    ...(opts.keepDays !== undefined ? { keepDays: opts.keepDays } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(opts.pauseFactor !== undefined ? { pauseFactor: opts.pauseFactor } : {}),
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
  });
  return { archived, purged };
}
