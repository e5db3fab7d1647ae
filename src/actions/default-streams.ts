import type { Tx } from './transaction.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { badRequest } from '../errors.js';
import { DEFAULT_STREAM_IDS_LEVEL, presentStream } from '../presenters/stream.js';
import { nonGuestUserIds } from '../reads/stream-audience.js';
import { doAddSubscriptions } from './subscription-add.js';

async function notifyDefaultStreams(tx: Tx, realmId: number): Promise<void> {
  const list = await streams.listDefaults(tx.db, realmId);
  // Level 330: the channels' ids only.
  const defaults = tx.featureLevel >= DEFAULT_STREAM_IDS_LEVEL ? list.map((s) => s.id) : list.map((s) => presentStream(s, tx.featureLevel));
  tx.notify({ type: 'default_streams', default_streams: defaults }, await nonGuestUserIds(tx.db, realmId), realmId);
}

export async function doAddDefaultStream(tx: Tx, stream: StreamRow): Promise<void> {
  if (stream.invite_only === 1) throw badRequest('Private streams cannot be made default.');
  const ids = await streams.listDefaultIds(tx.db, stream.realm_id);
  if (ids.includes(stream.id)) return;
  await streams.addDefault(tx.db, stream.realm_id, stream.id);
  await notifyDefaultStreams(tx, stream.realm_id);
}

export async function doRemoveDefaultStream(tx: Tx, stream: StreamRow): Promise<void> {
  const ids = await streams.listDefaultIds(tx.db, stream.realm_id);
  if (!ids.includes(stream.id)) return;
  await streams.removeDefault(tx.db, stream.realm_id, stream.id);
  await notifyDefaultStreams(tx, stream.realm_id);
}

/** Part of creating a user: new humans join the organization's default streams. */
export async function subscribeToDefaultStreams(tx: Tx, realm: RealmRow, user: UserRow): Promise<void> {
  if (user.is_bot === 1) return;
  const defaults = await streams.listDefaults(tx.db, realm.id);
  if (defaults.length > 0) await doAddSubscriptions(tx, defaults, [user]);
}
