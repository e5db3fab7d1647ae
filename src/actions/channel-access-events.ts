import type { Tx } from './transaction.js';
import type { StreamRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { presentStream } from '../presenters/stream.js';
import { streamAudiences } from '../reads/stream-audience.js';
import { METADATA_ACCESS_VIA_GROUPS_LEVEL } from '../access/channel-access.js';

/**
 * Level 349: a change of group membership (members, subgroups, a group's deactivation or
 * deletion) can give or take metadata access to private channels through their
 * can_administer_channel_group / can_add_subscribers_group / can_subscribe_group. As Zulip 10
 * (send_stream_events_for_role_update's pattern) the users who gain sight of channels hear one
 * `stream create` with them (and their subscribers, as `peer_add`), those who lose it one
 * `stream delete`. The audiences before and after are compared, so a user who sees a channel
 * otherwise (subscribed, administrator) hears nothing.
 */
export async function withChannelAccessEvents<T>(tx: Tx, realmId: number, change: () => Promise<T>): Promise<T> {
  if (tx.featureLevel < METADATA_ACCESS_VIA_GROUPS_LEVEL) return change();
  const priv = (await streams.listByRealm(tx.db, realmId)).filter((s) => s.invite_only === 1 && s.is_web_public === 0);
  if (priv.length === 0) return change();
  const before = await streamAudiences(tx.db, priv, undefined, tx.featureLevel);
  const result = await change();
  const after = await streamAudiences(tx.db, priv, undefined, tx.featureLevel);
  const gained = new Map<number, StreamRow[]>();
  const lost = new Map<number, StreamRow[]>();
  const gainedByStream = new Map<number, number[]>();
  const push = (m: Map<number, StreamRow[]>, userId: number, s: StreamRow) => { const l = m.get(userId); if (l) l.push(s); else m.set(userId, [s]); };
  for (const s of priv) {
    const was = new Set(before.get(s.id) ?? []);
    const is = new Set(after.get(s.id) ?? []);
    const now = [...is].filter((id) => !was.has(id));
    for (const id of now) push(gained, id, s);
    for (const id of was) if (!is.has(id)) push(lost, id, s);
    if (now.length > 0) gainedByStream.set(s.id, now);
  }
  for (const [userId, list] of lost) {
    tx.notify({ type: 'stream', op: 'delete', streams: list.map((s) => presentStream(s, tx.featureLevel)), stream_ids: list.map((s) => s.id) }, [userId], realmId);
  }
  for (const [userId, list] of gained) {
    tx.notify({ type: 'stream', op: 'create', streams: list.map((s) => presentStream(s, tx.featureLevel)) }, [userId], realmId);
  }
  if (gainedByStream.size > 0) {
    const members = await subscriptions.mapSubscriberIds(tx.db, [...gainedByStream.keys()]);
    for (const [streamId, userIds] of gainedByStream) {
      const subs = members.get(streamId) ?? [];
      if (subs.length > 0) tx.notify({ type: 'subscription', op: 'peer_add', stream_ids: [streamId], user_ids: subs }, userIds, realmId);
    }
  }
  return result;
}
