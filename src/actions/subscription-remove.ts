import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { presentStreamRef } from '../presenters/stream.js';
import { streamAudienceIds, streamAudiences } from '../reads/stream-audience.js';
import type { SubPair } from './subscription-add.js';

/**
 * Unsubscribes users from streams. The row stays (inactive) so that color and
 * settings come back on resubscription. `subscription remove` goes to each user,
 * `peer_remove` to everyone who still sees the stream's members.
 */
export async function doRemoveSubscriptions(tx: Tx, streamList: StreamRow[], users: UserRow[]): Promise<{ removed: SubPair[]; notSubscribed: SubPair[] }> {
  const removed: SubPair[] = [];
  const notSubscribed: SubPair[] = [];
  // Two statements per user whatever the number of streams (see subscribeRequest's batches).
  for (const user of users) {
    const active = await subscriptions.mapActiveOfUser(tx.db, user.id, streamList.map((s) => s.id));
    const ids: number[] = [];
    for (const stream of streamList) {
      const sub = active.get(stream.id);
      if (!sub) {
        notSubscribed.push({ user, stream });
        continue;
      }
      ids.push(sub.id);
      removed.push({ user, stream });
    }
    await subscriptions.deactivateMany(tx.db, ids);
  }
  if (removed.length === 0) return { removed, notSubscribed };
  const realmId = removed[0]!.stream.realm_id;
  const byUser = new Map<number, StreamRow[]>();
  const byStream = new Map<number, { stream: StreamRow; userIds: number[] }>();
  for (const p of removed) {
    byUser.set(p.user.id, [...(byUser.get(p.user.id) ?? []), p.stream]);
    const s = byStream.get(p.stream.id) ?? { stream: p.stream, userIds: [] };
    s.userIds.push(p.user.id);
    byStream.set(p.stream.id, s);
  }
  for (const [userId, list] of byUser) {
    tx.notify({ type: 'subscription', op: 'remove', subscriptions: list.map(presentStreamRef) }, [userId], realmId);
  }
  const audiences = await streamAudiences(tx.db, [...byStream.values()].map((s) => s.stream), undefined, tx.featureLevel);
  for (const { stream, userIds } of byStream.values()) {
    const gone = new Set(userIds);
    const peers = audiences.get(stream.id)!.filter((id) => !gone.has(id));
    tx.notify({ type: 'subscription', op: 'peer_remove', stream_ids: [stream.id], user_ids: [...gone].sort((a, b) => a - b) }, peers, realmId);
  }
  return { removed, notSubscribed };
}

/**
 * Part of deactivating a user: a deactivated user keeps their subscription rows (they
 * return on reactivation) but leaves every subscriber list, so peers hear peer_remove.
 */
export async function notifyPeersOfDeactivatedUser(tx: Tx, user: UserRow): Promise<void> {
  for (const { stream } of await subscriptions.listActiveSubscriptionsOfUser(tx.db, user.id)) {
    const peers = (await streamAudienceIds(tx.db, stream, tx.featureLevel)).filter((id) => id !== user.id);
    tx.notify({ type: 'subscription', op: 'peer_remove', stream_ids: [stream.id], user_ids: [user.id] }, peers, stream.realm_id);
  }
}
