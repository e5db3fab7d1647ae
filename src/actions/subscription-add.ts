import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { presentStream, presentSubscription } from '../presenters/stream.js';
import { canSeeStreamMetadata } from '../access/stream.js';
import { metadataGroupsFor } from '../access/channel-access.js';
import { streamAudiences } from '../reads/stream-audience.js';

/** Zulip's stream color palette, handed out in order of what the user does not use yet. */
export const STREAM_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

export function pickColor(used: Iterable<string>): string {
  const taken = new Set(used);
  return STREAM_COLORS.find((c) => !taken.has(c)) ?? STREAM_COLORS[taken.size % STREAM_COLORS.length]!;
}

export interface SubPair {
  user: UserRow;
  stream: StreamRow;
}

/**
 * Subscribes every user to every stream (permissions are the caller's business).
 * Events, as Zulip orders them: `stream create` to new subscribers who could not see
 * the stream before, `subscription add` to each new subscriber, `peer_add` to everyone
 * else who may see the stream's members.
 */
export async function doAddSubscriptions(tx: Tx, streamList: StreamRow[], users: UserRow[]): Promise<{ subscribed: SubPair[]; alreadySubscribed: SubPair[] }> {
  const subscribed: SubPair[] = [];
  const alreadySubscribed: SubPair[] = [];
  const streamIds = streamList.map((s) => s.id);
  // A few statements per user whatever the number of streams: the writer is held for
  // those only (this runs in a transaction; see subscribeRequest for the batches).
  for (const user of users) {
    const colors = await subscriptions.listColorsOfUser(tx.db, user.id);
    const rows = await subscriptions.mapOfUserInStreams(tx.db, user.id, streamIds);
    const reactivate: number[] = [];
    const inserts: Parameters<typeof subscriptions.insertMany>[1] = [];
    for (const stream of streamList) {
      const existing = rows.get(stream.id);
      if (existing?.active === 1) {
        alreadySubscribed.push({ user, stream });
        continue;
      }
      if (existing) {
        reactivate.push(existing.id);
      } else {
        const color = pickColor(colors);
        colors.push(color);
        inserts.push({
          user_id: user.id, stream_id: stream.id, active: 1, is_muted: 0, color, pin_to_top: 0,
          desktop_notifications: null, audible_notifications: null, push_notifications: null,
          email_notifications: null, wildcard_mentions_notify: null,
        });
      }
      subscribed.push({ user, stream });
    }
    await subscriptions.activateMany(tx.db, reactivate);
    await subscriptions.insertMany(tx.db, inserts);
  }
  if (subscribed.length > 0) await notifySubscribed(tx, subscribed);
  return { subscribed, alreadySubscribed };
}

async function notifySubscribed(tx: Tx, added: SubPair[]): Promise<void> {
  const realmId = added[0]!.stream.realm_id;
  const byUser = new Map<number, SubPair[]>();
  const byStream = new Map<number, { stream: StreamRow; userIds: number[] }>();
  for (const p of added) {
    byUser.set(p.user.id, [...(byUser.get(p.user.id) ?? []), p]);
    const s = byStream.get(p.stream.id) ?? { stream: p.stream, userIds: [] };
    s.userIds.push(p.user.id);
    byStream.set(p.stream.id, s);
  }
  const subscriberMap = await subscriptions.mapSubscriberIds(tx.db, [...byStream.keys()]);
  for (const [userId, pairs] of byUser) {
    const user = pairs[0]!.user;
    // An archived public stream (level 362) is no news to its new subscriber.
    // Those who saw the stream already (through groups too, from level 349) were told of it then.
    let hidden = pairs.filter((p) => !canSeeStreamMetadata(user, p.stream, null, p.stream.deactivated === 1));
    if (hidden.length > 0) {
      const groups = await metadataGroupsFor(tx.db, user, tx.featureLevel);
      if (groups !== undefined) hidden = hidden.filter((p) => !canSeeStreamMetadata(user, p.stream, null, p.stream.deactivated === 1, groups));
    }
    if (hidden.length > 0) tx.notify({ type: 'stream', op: 'create', streams: hidden.map((p) => presentStream(p.stream, tx.featureLevel)) }, [userId], realmId);
    const rows = await subscriptions.mapActiveOfUser(tx.db, userId, pairs.map((p) => p.stream.id));
    const subs = pairs.map((p) => presentSubscription(p.stream, rows.get(p.stream.id)!, subscriberMap.get(p.stream.id) ?? [], undefined, tx.featureLevel));
    tx.notify({ type: 'subscription', op: 'add', subscriptions: subs }, [userId], realmId);
  }
  const audiences = await streamAudiences(tx.db, [...byStream.values()].map((s) => s.stream), subscriberMap, tx.featureLevel);
  for (const { stream, userIds } of byStream.values()) {
    const newIds = new Set(userIds);
    const peers = audiences.get(stream.id)!.filter((id) => !newIds.has(id));
    tx.notify({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: [...newIds].sort((a, b) => a - b) }, peers, realmId);
  }
}
