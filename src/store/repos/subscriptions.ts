import { sql, type Insertable, type Updateable } from 'kysely';
import { prepared } from '../prepared.js';
import type { SubscriptionTable } from '../schema.js';
import type { Q, StreamRow, SubscriptionRow } from '../rows.js';
import { rowsWritten } from '../changes.js';
import { softDeactivation } from './soft-deactivation.js';

export interface SubscriptionWithStream {
  sub: SubscriptionRow;
  stream: StreamRow;
}

// Every send and stream read makes these; compiled once.
const activeSub = prepared((db, userId: number, streamId: number) => db.selectFrom('subscription').selectAll()
  .where('user_id', '=', userId).where('stream_id', '=', streamId).where('active', '=', sql.lit(1)), [0, 0]);
const subscriberIds = prepared((db, streamId: number) => db.selectFrom('subscription').innerJoin('users', 'users.id', 'subscription.user_id')
  .select('subscription.user_id').where('subscription.stream_id', '=', streamId)
  .where('subscription.active', '=', sql.lit(1)).where('users.is_active', '=', sql.lit(1))
  .orderBy('subscription.user_id'), [0]);

/**
 * Soft-deactivated people's rows are only complete while their subscriptions are what they
 * were all along: made before any of theirs changes (src/actions/soft-deactivation.ts).
 */
async function catchUpHolders(q: Q, subscriptionIds: number[]): Promise<void> {
  const userIds = new Set<number>();
  for (let i = 0; i < subscriptionIds.length; i += 500) {
    for (const r of await q.selectFrom('subscription').select('user_id').where('id', 'in', subscriptionIds.slice(i, i + 500)).execute()) userIds.add(r.user_id);
  }
  await softDeactivation.catchUp(q, [...userIds]);
}

/**
 * Queries on the subscription table. A row with active = 0 is a past subscription
 * (Zulip's "unsubscribed"); it keeps the user's color and settings for a later return.
 * Deactivated users keep their rows but never count as subscribers.
 */
export const subscriptions = {
  /** The row whatever its state, for upserts. */
  find: (q: Q, userId: number, streamId: number): Promise<SubscriptionRow | undefined> =>
    q.selectFrom('subscription').selectAll().where('user_id', '=', userId).where('stream_id', '=', streamId).executeTakeFirst(),

  findActive: async (q: Q, userId: number, streamId: number): Promise<SubscriptionRow | undefined> =>
    (await activeSub(q, userId, streamId))[0],

  /** Streams the user is subscribed to and has muted. */
  listMutedStreamIds: async (q: Q, userId: number): Promise<number[]> =>
    (await q.selectFrom('subscription').select('stream_id').where('user_id', '=', userId).where('active', '=', 1).where('is_muted', '=', 1).execute())
      .map((r) => r.stream_id),

  isSubscribed: async (q: Q, userId: number, streamId: number): Promise<boolean> =>
    (await subscriptions.findActive(q, userId, streamId)) !== undefined,

  /** Active subscribers who are active users, ascending ids. */
  listSubscriberIds: async (q: Q, streamId: number): Promise<number[]> => (await subscriberIds(q, streamId)).map((r) => r.user_id),

  /** Subscriber ids of several streams at once (include_subscribers). */
  mapSubscriberIds: async (q: Q, streamIds: number[]): Promise<Map<number, number[]>> => {
    const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
    if (streamIds.length === 0) return out;
    const rows = await q.selectFrom('subscription').innerJoin('users', 'users.id', 'subscription.user_id')
      .select(['subscription.stream_id', 'subscription.user_id']).where('subscription.stream_id', 'in', streamIds)
      .where('subscription.active', '=', 1).where('users.is_active', '=', 1)
      .orderBy('subscription.user_id').execute();
    for (const r of rows) out.get(r.stream_id)?.push(r.user_id);
    return out;
  },

  /** The user's active subscriptions to live streams, with their streams, sorted by name as Zulip sorts them. */
  listActiveSubscriptionsOfUser: async (q: Q, userId: number, includeArchived = false): Promise<SubscriptionWithStream[]> => {
    const subs = await q.selectFrom('subscription').selectAll().where('user_id', '=', userId).where('active', '=', 1).execute();
    return joinStreams(q, subs, includeArchived);
  },

  /** Past subscriptions (Zulip's `unsubscribed` list in register). */
  listInactiveSubscriptionsOfUser: async (q: Q, userId: number): Promise<SubscriptionWithStream[]> => {
    const subs = await q.selectFrom('subscription').selectAll().where('user_id', '=', userId).where('active', '=', 0).execute();
    return joinStreams(q, subs);
  },

  listSubscribedStreamIds: async (q: Q, userId: number): Promise<number[]> =>
    (await q.selectFrom('subscription').innerJoin('stream', 'stream.id', 'subscription.stream_id')
      .select('subscription.stream_id').where('subscription.user_id', '=', userId)
      .where('subscription.active', '=', 1).where('stream.deactivated', '=', 0).execute()).map((r) => r.stream_id),

  /** The user's rows (any state) in these streams, by stream id. */
  mapOfUserInStreams: async (q: Q, userId: number, streamIds: number[]): Promise<Map<number, SubscriptionRow>> => {
    if (streamIds.length === 0) return new Map();
    const rows = await q.selectFrom('subscription').selectAll().where('user_id', '=', userId).where('stream_id', 'in', streamIds).execute();
    return new Map(rows.map((r) => [r.stream_id, r]));
  },

  /** The user's active rows in these streams, by stream id. */
  mapActiveOfUser: async (q: Q, userId: number, streamIds: number[]): Promise<Map<number, SubscriptionRow>> => {
    const all = await subscriptions.mapOfUserInStreams(q, userId, streamIds);
    return new Map([...all].filter(([, r]) => r.active === 1));
  },

  listColorsOfUser: async (q: Q, userId: number): Promise<string[]> =>
    (await q.selectFrom('subscription').select('color').where('user_id', '=', userId).execute()).map((r) => r.color),

  insert: async (q: Q, row: Insertable<SubscriptionTable>) => {
    if (row.active !== 0) await softDeactivation.catchUp(q, [row.user_id]);
    const r = await q.insertInto('subscription').values(row).execute();
    rowsWritten(q, 'subscriptions');
    return r;
  },

  /** Many rows in one statement per hundred (a statement's parameters stay few). */
  insertMany: async (q: Q, rows: Array<Insertable<SubscriptionTable>>) => {
    await softDeactivation.catchUp(q, [...new Set(rows.filter((r) => r.active !== 0).map((r) => r.user_id))]);
    for (let i = 0; i < rows.length; i += 100) await q.insertInto('subscription').values(rows.slice(i, i + 100)).execute();
    if (rows.length > 0) rowsWritten(q, 'subscriptions');
  },

  activateMany: async (q: Q, ids: number[]) => {
    if (ids.length === 0) return;
    await catchUpHolders(q, ids);
    await q.updateTable('subscription').set({ active: 1 }).where('id', 'in', ids).execute();
    rowsWritten(q, 'subscriptions');
  },

  deactivateMany: async (q: Q, ids: number[]) => {
    if (ids.length === 0) return;
    await catchUpHolders(q, ids);
    await q.updateTable('subscription').set({ active: 0 }).where('id', 'in', ids).execute();
    rowsWritten(q, 'subscriptions');
  },

  update: async (q: Q, id: number, patch: Updateable<SubscriptionTable>) => {
    if ('active' in patch) await catchUpHolders(q, [id]);
    const r = await q.updateTable('subscription').set(patch).where('id', '=', id).execute();
    rowsWritten(q, 'subscriptions');
    return r;
  },

  deactivateAllOfStream: async (q: Q, streamId: number) => {
    await softDeactivation.catchUp(q, (await q.selectFrom('subscription').select('user_id')
      .where('stream_id', '=', streamId).where('active', '=', 1).execute()).map((r) => r.user_id));
    const r = await q.updateTable('subscription').set({ active: 0 }).where('stream_id', '=', streamId).execute();
    rowsWritten(q, 'subscriptions');
    return r;
  },
};

async function joinStreams(q: Q, subs: SubscriptionRow[], includeArchived = false): Promise<SubscriptionWithStream[]> {
  if (subs.length === 0) return [];
  let query = q.selectFrom('stream').selectAll().where('id', 'in', subs.map((s) => s.stream_id));
  if (!includeArchived) query = query.where('deactivated', '=', 0);
  const rows = await query.execute();
  const byId = new Map(rows.map((s) => [s.id, s]));
  return subs.flatMap((sub) => {
    const stream = byId.get(sub.stream_id);
    return stream ? [{ sub, stream }] : [];
  }).sort((a, b) => (a.stream.name < b.stream.name ? -1 : a.stream.name > b.stream.name ? 1 : 0));
}
