import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import { archive, type ArchiveBatchRow } from '../store/repos/archive.js';
import { messages } from '../store/repos/messages.js';
import { streams } from '../store/repos/streams.js';
import { streamAudienceIds } from '../reads/stream-audience.js';
import { retireMessagesOnCommit } from './retention-events.js';

export interface RestoreSummary { messages: number; batches: number }

/**
 * Zulip's restore_data_from_archive, for an organization's batches archived at or after
 * `since` (UNIX seconds) and not yet restored or purged: messages, their recipient rows
 * with their flags (read, starred...), reactions, edit history (in the message row) and
 * links to files that still exist come back under their old ids, a batch per transaction,
 * and the batch is marked restored.
 *
 * Like Zulip, no message events: a client hears of the messages when it next fetches
 * (a reload, a narrow), for an event stream cannot insert old messages into history.
 * What is sent: a stream whose first_message_id moves back is told, as a send tells it;
 * and cached message data is retired here and on a cluster's nodes.
 */
export async function restoreArchive(ctx: AppContext, opts: { realmId: number; since: number; onProgress?: (p: { restored: number }) => void }): Promise<RestoreSummary> {
  const summary: RestoreSummary = { messages: 0, batches: 0 };
  for (const batch of await archive.listRestorable(ctx.store.db, opts.realmId, opts.since)) {
    summary.messages += await transact(ctx, (tx) => doRestoreBatch(tx, ctx, batch));
    summary.batches += 1;
    opts.onProgress?.({ restored: summary.messages });
  }
  return summary;
}

export async function doRestoreBatch(tx: Tx, ctx: AppContext, batch: ArchiveBatchRow): Promise<number> {
  const restored = await archive.restoreBatch(tx.db, batch.id);
  const streamIds = new Set(restored.flatMap((r) => (r.stream_id === null ? [] : [r.stream_id])));
  for (const streamId of streamIds) {
    const stream = await streams.findInRealmAny(tx.db, batch.realm_id ?? 0, streamId);
    if (!stream) continue;
    const first = await messages.firstIdInStream(tx.db, stream.id);
    if (first === stream.first_message_id) continue;
    await streams.update(tx.db, stream.id, { first_message_id: first });
    tx.notify({ type: 'stream', op: 'update', property: 'first_message_id', value: first, stream_id: stream.id, name: stream.name },
      await streamAudienceIds(tx.db, stream, tx.featureLevel), stream.realm_id);
  }
  retireMessagesOnCommit(ctx, tx, restored.map((r) => r.id));
  return restored.length;
}
