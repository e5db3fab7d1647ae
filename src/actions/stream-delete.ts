import type { Tx } from '../store/tx.js';
import type { StreamRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { presentStream } from '../presenters/stream.js';
import { streamAudienceIds } from './stream-notify.js';

/**
 * Archives a stream: it leaves every lookup, its subscriptions end, it stops being a
 * default stream, and its name becomes free again (Zulip renames archived streams).
 * Messages stay in the database.
 */
export async function doDeactivateStream(tx: Tx, stream: StreamRow): Promise<void> {
  const audience = await streamAudienceIds(tx.db, stream);
  await streams.removeDefault(tx.db, stream.realm_id, stream.id);
  await subscriptions.deactivateAllOfStream(tx.db, stream.id);
  await streams.update(tx.db, stream.id, { deactivated: 1, name_lower: `!deactivated:${stream.id}:${stream.name_lower}` });
  tx.notify({ type: 'stream', op: 'delete', streams: [presentStream(stream)], stream_ids: [stream.id] }, audience, stream.realm_id);
}
