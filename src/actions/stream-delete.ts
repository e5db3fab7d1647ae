import type { Tx } from './transaction.js';
import type { StreamRow } from '../store/rows.js';
import { badRequest } from '../errors.js';
import { streams } from '../store/repos/streams.js';
import { presentStream } from '../presenters/stream.js';
import { streamAudienceIds } from '../reads/stream-audience.js';
import { doRemoveDefaultStream } from './default-streams.js';
import { messages } from '../store/repos/messages.js';

/**
 * Archives a stream: it leaves every lookup but the archived-aware ones (level 315), its subscriptions stay, it stops being a
 * default stream (with the default_streams event), and its name becomes free again
 * (Zulip renames archived streams). Messages stay in the database, read by everyone: as
 * in Zulip (since 4.0), an archived stream's messages no longer count as unread anywhere,
 * and no event says so (clients drop the stream's unreads with the stream).
 */
export async function doDeactivateStream(tx: Tx, stream: StreamRow): Promise<void> {
  if (stream.deactivated === 1) throw badRequest('Channel is already deactivated');
  const audience = await streamAudienceIds(tx.db, stream, tx.featureLevel);
  await doRemoveDefaultStream(tx, stream);
  // Subscriptions stay (Zulip 10, level 315): an archived stream keeps its subscribers, whom
  // archived_channels clients are shown it with is_archived.
  if (stream.recipient_id !== null) await messages.markRecipientRead(tx.db, stream.recipient_id);
  await streams.update(tx.db, stream.id, { deactivated: 1, name_lower: `!deactivated:${stream.id}:${stream.name_lower}` });
  tx.notify({ type: 'stream', op: 'delete', streams: [presentStream(stream, tx.featureLevel)], stream_ids: [stream.id] }, audience, stream.realm_id);
}
