import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Q, StreamRow, SubscriptionRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { alertWordsOfRealm } from './alert-words.js';
import { identityVersion, membershipChanged, membershipVersion } from '../store/versions.js';
import type { EventBus } from '../events/bus.js';

/**
 * What every send reads, kept between sends: the stream, the sender's subscription, the
 * subscriber list and the realm's alert words. On SQLite each of these queries found an
 * empty page cache (a reader's cache is dropped whenever the writer thread has committed,
 * which during a burst of sends is every batch) and together they were a third of a
 * send's time on the request thread.
 *
 * An entry is used only while nothing it depends on has changed in this process
 * (identityVersion: users; membershipVersion: streams, subscriptions, alert words), nor
 * been announced on the event bus (which, with several nodes, carries every node's
 * events). A change another process makes without an event (the CLI) moves the store's
 * epoch, which retires every entry within a second (store/epoch.ts).
 */
const MAX_ENTRIES = 20_000;

interface Entry { identity: number; membership: number; value: unknown }
const cachesByDb = new WeakMap<Kysely<DB>, Map<string, Entry>>();

async function remembered<T>(db: Kysely<DB>, key: string, load: () => Promise<T>): Promise<T> {
  let cache = cachesByDb.get(db);
  if (!cache) cachesByDb.set(db, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && hit.identity === identityVersion() && hit.membership === membershipVersion()) return hit.value as T;
  // Versions as of before the read: a change committed while it runs retires the entry.
  const identity = identityVersion();
  const membership = membershipVersion();
  const value = await load();
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, { identity, membership, value });
  return value;
}

// The events that follow a change to what the cache holds.
const MEMBERSHIP_EVENTS = new Set(['subscription', 'stream', 'realm_user', 'realm_bot', 'alert_words', 'realm']);

export function watchMembershipEvents(bus: EventBus): () => void {
  return bus.subscribe((e) => {
    if (MEMBERSHIP_EVENTS.has(e.event.type)) membershipChanged();
  });
}

/** Lookups outside a transaction go through the cache; inside one they read the transaction's own view. */
const cacheable = (q: Q): q is Kysely<DB> => !q.isTransaction;

export const sendLookups = {
  streamByName: (q: Q, realmId: number, name: string): Promise<StreamRow | undefined> =>
    cacheable(q) ? remembered(q, `sn:${realmId}:${name.toLowerCase()}`, () => streams.findByName(q, realmId, name)) : streams.findByName(q, realmId, name),

  streamInRealm: (q: Q, realmId: number, id: number): Promise<StreamRow | undefined> =>
    cacheable(q) ? remembered(q, `si:${realmId}:${id}`, () => streams.findInRealm(q, realmId, id)) : streams.findInRealm(q, realmId, id),

  activeSubscription: (q: Q, userId: number, streamId: number): Promise<SubscriptionRow | undefined> =>
    cacheable(q) ? remembered(q, `sub:${userId}:${streamId}`, () => subscriptions.findActive(q, userId, streamId)) : subscriptions.findActive(q, userId, streamId),

  /** Shared between sends: callers must not change the array. */
  subscriberIds: (q: Q, streamId: number): Promise<readonly number[]> =>
    cacheable(q) ? remembered(q, `subs:${streamId}`, () => subscriptions.listSubscriberIds(q, streamId)) : subscriptions.listSubscriberIds(q, streamId),

  /**
   * Every active stream of the realm, by id. Shared: callers must copy before sorting or
   * changing it. Register reads it twice and GET /streams once; 200 rows took 0.8 ms.
   */
  realmStreams: (q: Q, realmId: number): Promise<readonly StreamRow[]> =>
    cacheable(q) ? remembered(q, `rs:${realmId}`, () => streams.listByRealm(q, realmId)) : streams.listByRealm(q, realmId),

  /** Every alert word of the realm by user (most users have none). */
  alertWords: (q: Q, realmId: number): Promise<ReadonlyMap<number, string[]>> =>
    cacheable(q) ? remembered(q, `aw:${realmId}`, () => alertWordsOfRealm(q, realmId)) : alertWordsOfRealm(q, realmId),
};
