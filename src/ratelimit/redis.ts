import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Pending, RateLimiter, RateLimitResult } from './limiter.js';
import type { RateLimitDomain, RateLimitRule, RateLimitRules } from './rules.js';
import { InMemoryRateLimiter } from './memory.js';
import { resultOf, windowKey, type StoreEntry, type StoreOp, type WindowStore } from './windows.js';

type RedisStoreCtor = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key: string) => WindowStore;
// @fastify/rate-limit's RedisStore: the same fixed windows as the in-memory LocalStore, one
// atomic script per count (INCR, and PEXPIRE on the first use of a window).
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreCtor;

/**
 * A pending mark outlives a node that died while deciding its use by this long at most; a
 * password check takes well under a second.
 */
const PENDING_TTL_MS = 10_000;
/**
 * Drops one pending mark, and the key with the last: one atomic step, so that a mark
 * another node adds meanwhile is never deleted with it (RedisStore has no such verb).
 */
const RELEASE_PENDING_LUA = `
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n`;
type PendingClient = Redis & { parleyReleasePending(key: string): Promise<number> };

export interface RedisRateLimiterOptions {
  url: string;
  log: Logger;
  /** Before every key; several servers (or tests) may share one Redis under different prefixes. */
  keyPrefix?: string;
  /** How long one count may take before this node counts by itself instead. */
  commandTimeoutMs?: number;
  /** After a count timed out, how long Redis is left alone before it is asked again. */
  pauseAfterFailureMs?: number;
  /** How long the first counts wait for the first connection before this node counts by itself. */
  firstConnectWaitMs?: number;
}

/**
 * Budgets shared by every node of a cluster, in Redis: the same domains, rules, windows
 * and answers as InMemoryRateLimiter, so a user's budget and an address's failed sign-ins
 * are one however many nodes their requests reach.
 *
 * When Redis cannot answer (down, restarting, slower than commandTimeoutMs), each node
 * counts in its own memory until it can again: never a 500 (Zulip's RedisRateLimiterBackend
 * lets the Redis error through and answers 500), and never a server without limits, which
 * would leave sign-ins open to guessing exactly while Redis is away. The cost: during an
 * outage a budget holds per node (N nodes allow up to N times it), and the counts of the
 * outage stay on the nodes that made them.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly enabled = true;
  private readonly client: Redis;
  private readonly stores = new Map<RateLimitDomain, WindowStore>();
  private readonly local: InMemoryRateLimiter;
  private readonly log: Logger;
  private readonly pauseAfterFailureMs: number;
  private readonly firstConnectWaitMs: number;
  /** The first connection, made on the first count: the admin CLI opens a context and never counts. */
  private firstConnect: Promise<void> | undefined;
  private firstConnectDone = false;
  private pausedUntil = 0;
  /** Counting in this node's memory now (logged once when it starts, once when it ends). */
  private degraded = false;

  constructor(private readonly rules: RateLimitRules, opts: RedisRateLimiterOptions) {
    this.log = opts.log;
    this.pauseAfterFailureMs = opts.pauseAfterFailureMs ?? 2_000;
    this.firstConnectWaitMs = opts.firstConnectWaitMs ?? 1_000;
    this.local = new InMemoryRateLimiter(rules);
    this.client = new Redis(opts.url, {
      keyPrefix: opts.keyPrefix ?? 'parley:rl:',
      lazyConnect: true,
      connectionName: 'parley-ratelimit',
      // Counts of concurrent requests go out in one write and come back in one read.
      enableAutoPipelining: true,
      // A count waits for no reconnection: while Redis is away this node counts by itself.
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    this.client.defineCommand('parleyReleasePending', { numberOfKeys: 1, lua: RELEASE_PENDING_LUA });
    this.client.on('error', (err: Error) => this.failed(err));
    this.client.on('ready', () => this.recovered());
  }

  hit(domain: RateLimitDomain, key: string): Promise<RateLimitResult | undefined> {
    return this.check(domain, key, 'incr');
  }

  peek(domain: RateLimitDomain, key: string): Promise<RateLimitResult | undefined> {
    return this.check(domain, key, 'read');
  }

  async begin(domain: RateLimitDomain, key: string): Promise<Pending> {
    if (this.rules[domain].length === 0 || !(await this.usable())) return this.local.begin(domain, key);
    const k = `pending:${domain}:${key}`;
    try {
      const replies = await this.client.multi().incr(k).pexpire(k, PENDING_TTL_MS).exec();
      const [err, count] = replies?.[0] ?? [new Error('transaction discarded'), 0];
      if (err) throw err;
      this.recovered();
      let released = false;
      return {
        count: Number(count),
        release: () => {
          if (released) return;
          released = true;
          // Lost with Redis: the mark expires by itself.
          (this.client as PendingClient).parleyReleasePending(k).catch(() => {});
        },
      };
    } catch (err) {
      this.failed(err as Error);
      this.pausedUntil = Date.now() + this.pauseAfterFailureMs;
      return this.local.begin(domain, key);
    }
  }

  /** Whether counts go to Redis now (rather than to this node's memory). */
  get shared(): boolean {
    return this.client.status === 'ready' && Date.now() >= this.pausedUntil;
  }

  /** Closes the connection (shutdown); later counts are this node's own. */
  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        /* closing anyway */
      }
    }
    this.client.disconnect();
  }

  private async check(domain: RateLimitDomain, key: string, op: StoreOp): Promise<RateLimitResult | undefined> {
    const rules = this.rules[domain];
    if (rules.length === 0) return undefined;
    if (!(await this.usable())) return this.fallback(domain, key, op);
    const store = this.storeOf(domain);
    try {
      const entries = await Promise.all(rules.map((rule) => entry(store, op, windowKey(rules, rule, key), rule)));
      this.recovered();
      return resultOf(rules, entries, op);
    } catch (err) {
      this.failed(err as Error);
      this.pausedUntil = Date.now() + this.pauseAfterFailureMs;
      return this.fallback(domain, key, op);
    }
  }

  private async usable(): Promise<boolean> {
    if (!this.firstConnectDone) {
      // Requests wait for the first connection only so long: a Redis that accepts and
      // never answers would otherwise hold them for seconds.
      this.firstConnect ??= Promise.race([
        this.client.connect().catch((err: Error) => this.failed(err)),
        new Promise<void>((resolve) => setTimeout(resolve, this.firstConnectWaitMs).unref()),
      ]).finally(() => { this.firstConnectDone = true; });
      await this.firstConnect;
    }
    return this.shared;
  }

  private fallback(domain: RateLimitDomain, key: string, op: StoreOp): RateLimitResult | undefined {
    return op === 'incr' ? this.local.hit(domain, key) : this.local.peek(domain, key);
  }

  private failed(err: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.log.warn({ err: err.message }, 'rate limiter: Redis does not answer; this node counts budgets by itself until it does');
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.log.info('rate limiter: Redis answers again; budgets are shared by the nodes again');
  }

  private storeOf(domain: RateLimitDomain): WindowStore {
    let store = this.stores.get(domain);
    if (!store) this.stores.set(domain, (store = new RedisStore(false, false, this.client, `${domain}:`)));
    return store;
  }
}

function entry(store: WindowStore, op: StoreOp, storeKey: string, rule: RateLimitRule): Promise<StoreEntry> {
  return new Promise((resolve, reject) => {
    store[op](storeKey, (err, res) => (err ? reject(err) : resolve(res)), rule.windowSecs * 1000, rule.max);
  });
}
