import type { RealmRow, SessionRow, StreamRow, SubscriptionRow, UserRow } from '../store/rows.js';
import type { WireUserGroup, WireUserStatus } from '../schemas/wire.js';
import { VersionedCache } from './versioned-cache.js';
import { MessageJsonCache } from './message-json.js';
import { PresenceCache } from './presence.js';
import type { IdleRecipients } from './idle-recipients.js';

export interface Login { user: UserRow; realm: RealmRow }

/** A web session with the login behind it, as every /json request checks it. */
export interface SessionLogin extends Login { session: SessionRow }

/** A realm's users as mention rendering needs them. */
export interface RenderUser { id: number; full_name: string; email: string }
export interface RealmRenderUsers {
  byName: Map<string, RenderUser[]>;
  byId: Map<number, RenderUser>;
  /** The active outgoing-webhook bots: a mention of one calls it (loaded with the names, for free). */
  outgoingBotIds: Set<number>;
}

/** url_template: the template of one made from level 176, null for one made with a URL format string (url_format either way). */
export interface CachedLinkifier { id: number; pattern: string; url_format: string; url_template: string | null }

/** Register's user lists, presented once per change (shared: nothing may modify them). */
export interface RealmUserLists { active: Array<Record<string, unknown>>; inactive: Array<Record<string, unknown>> }

/**
 * Every in-process cache of one server, each with the scopes that retire it (signal.ts).
 * Why each exists, measured: see docs/performance.md and docs/design.md.
 */
export interface Caches {
  /** Authentication ran a query on every request and was most of a simple GET's cost. */
  realmsBySubdomain: VersionedCache<string, RealmRow | undefined>;
  loginsByEmail: VersionedCache<string, Login>;
  /** The exact Authorization header on the exact host, verified before: no decoding, no promise. */
  loginsByHeader: VersionedCache<string, Login>;
  /**
   * Web sessions by id hash: every /json request reads one. Retired with the user or realm
   * (deactivation); a sign-out drops its entry here and, through the epoch, everywhere.
   */
  sessions: VersionedCache<string, SessionLogin>;
  /**
   * What every send reads. On SQLite each of these queries found an empty page cache (a
   * reader's is dropped whenever the writer thread commits) and together they were a
   * third of a send's time on the request thread.
   */
  streamsByName: VersionedCache<string, StreamRow | undefined>;
  streamsById: VersionedCache<string, StreamRow | undefined>;
  /** Every active stream of a realm; shared: callers copy before sorting. */
  realmStreams: VersionedCache<number, readonly StreamRow[]>;
  activeSubscriptions: VersionedCache<string, SubscriptionRow | undefined>;
  /** Shared: callers must not change the arrays. */
  subscriberIds: VersionedCache<number, readonly number[]>;
  /**
   * Every active stream's subscribers in a realm, for register's include_subscribers
   * (zulip-terminal asks for it): at 2,000 users in 50 streams it read 20,000 rows, 22 ms
   * of the request thread, for each register. Shared, like subscriberIds.
   */
  realmSubscriberIds: VersionedCache<number, ReadonlyMap<number, readonly number[]>>;
  alertWords: VersionedCache<number, ReadonlyMap<number, string[]>>;
  /** A realm's mutes as sends read them: muted user id -> who muted them. */
  realmMuters: VersionedCache<number, ReadonlyMap<number, ReadonlySet<number>>>;
  /** A realm's soft-deactivated people as sends weigh them (reads/idle-users.ts). */
  idleRecipients: VersionedCache<number, IdleRecipients>;
  renderUsers: VersionedCache<number, RealmRenderUsers>;
  /** A realm's linkifiers, which every render and every topic_links reads; shared, never modified. */
  linkifiers: VersionedCache<number, readonly CachedLinkifier[]>;
  realmUserLists: VersionedCache<string, RealmUserLists>;
  /**
   * Register's organization-wide lists, by realm and variant; shared, never modified. At
   * 10,000 users the groups alone read 20,000 memberships per register (17 ms).
   */
  registerUserGroups: VersionedCache<string, readonly WireUserGroup[]>;
  registerUserStatuses: VersionedCache<string, Readonly<Record<string, WireUserStatus>>>;
  /** A realm's bots, system bots apart: found by a scan of its users (1.5 ms each at 10,000). */
  realmBots: VersionedCache<number, { bots: readonly UserRow[]; systemBots: readonly UserRow[] }>;
  /** GET /users/me, serialised: the cheapest authenticated call clients make at startup. */
  meAnswers: VersionedCache<number, string>;
  maxMessageIds: VersionedCache<number, number>;
  /** An organization's system groups, id to name: they never change once made (sending's can_send_message_group check). */
  systemGroupNames: VersionedCache<number, ReadonlyMap<number, string>>;
  messageJson: MessageJsonCache;
  /** Every organization's presence answer: read once, then patched by each write (presence.ts). */
  presence: PresenceCache;
}

function createCaches(): Caches {
  return {
    realmsBySubdomain: new VersionedCache(['realms'], 10_000),
    loginsByEmail: new VersionedCache(['users', 'realms'], 10_000),
    // Every polling client's header is looked up at each poll: with more polling logins than
    // entries the map starts over each time it fills, and every poller then goes to the
    // database once (10,000 was exactly full at issue 37's 10,000 users).
    loginsByHeader: new VersionedCache(['users', 'realms'], 50_000),
    sessions: new VersionedCache(['users', 'realms'], 10_000),
    streamsByName: new VersionedCache(['streams'], 20_000),
    streamsById: new VersionedCache(['streams'], 20_000),
    realmStreams: new VersionedCache(['streams'], 1_000),
    activeSubscriptions: new VersionedCache(['streams', 'subscriptions', 'users'], 20_000),
    subscriberIds: new VersionedCache(['streams', 'subscriptions', 'users'], 20_000),
    realmSubscriberIds: new VersionedCache(['streams', 'subscriptions', 'users'], 1_000),
    alertWords: new VersionedCache(['alert_words', 'users'], 1_000),
    realmMuters: new VersionedCache(['muted_users'], 1_000),
    idleRecipients: new VersionedCache(['users', 'subscriptions'], 1_000),
    renderUsers: new VersionedCache(['users'], 1_000),
    linkifiers: new VersionedCache(['realms'], 1_000),
    realmUserLists: new VersionedCache(['users', 'realms'], 1_000),
    registerUserGroups: new VersionedCache(['users', 'user_groups'], 1_000),
    registerUserStatuses: new VersionedCache(['users', 'user_status'], 1_000),
    realmBots: new VersionedCache(['users'], 1_000),
    meAnswers: new VersionedCache(['users', 'realms', 'messages'], 100_000),
    maxMessageIds: new VersionedCache(['messages'], 100_000),
    systemGroupNames: new VersionedCache(['realms'], 1_000),
    messageJson: new MessageJsonCache(),
    presence: new PresenceCache(),
  };
}

// Keyed by the store's root handle: tests run several servers in one process.
const byStore = new WeakMap<object, Caches>();

/** The caches of the server whose store handle is `db` (made on first use). */
export function cachesOf(db: object): Caches {
  let c = byStore.get(db);
  if (!c) byStore.set(db, (c = createCaches()));
  return c;
}

/** At shutdown: stops listening to the signal and drops everything held. */
export function releaseCaches(db: object): void {
  const c = byStore.get(db);
  if (!c) return;
  byStore.delete(db);
  c.messageJson.close();
}

/**
 * Through `cache` for the root handle; inside a transaction, straight to `load`, which
 * reads the transaction's own view and must not be cached.
 */
export function cachedRead<K, V>(q: { isTransaction: boolean }, pick: (c: Caches) => VersionedCache<K, V>, key: K, load: () => Promise<V>): Promise<V> {
  return q.isTransaction ? load() : pick(cachesOf(q)).load(key, load);
}
