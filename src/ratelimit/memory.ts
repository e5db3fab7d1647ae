import { createRequire } from 'node:module';
import { LocalPending, type Pending, type RateLimiter, type RateLimitResult } from './limiter.js';
import type { RateLimitDomain, RateLimitRule, RateLimitRules } from './rules.js';
import { resultOf, windowKey, type StoreEntry, type StoreOp, type WindowStore } from './windows.js';

/**
 * @fastify/rate-limit's in-process store (an LRU of fixed windows). Its route hooks run
 * before Parley authenticates (inside the route wrapper) and never see GET /events
 * (answered beside Fastify), and its headers are not Zulip's (a relative reset, whole
 * seconds), so the store is used directly: the same counting, under our own checks. Its
 * RedisStore has the same contract for the cluster.
 */
type LocalStoreCtor = new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => WindowStore;
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as LocalStoreCtor;

export class InMemoryRateLimiter implements RateLimiter {
  readonly enabled = true;
  /**
   * One store per domain, so that the keys of one cannot push another's out: many busy
   * users must not make the server forget an address's failed sign-ins.
   */
  private readonly stores = new Map<RateLimitDomain, WindowStore>();
  private readonly pending = new LocalPending();

  /**
   * `entries`: how many keys (per rule) each domain remembers; past that the least recently
   * used is forgotten, which only ever lets a request through, never refuses one.
   */
  constructor(private readonly rules: RateLimitRules, private readonly entries = 100_000) {}

  hit(domain: RateLimitDomain, key: string): RateLimitResult | undefined {
    return this.check(domain, key, 'incr');
  }

  peek(domain: RateLimitDomain, key: string): RateLimitResult | undefined {
    return this.check(domain, key, 'read');
  }

  begin(domain: RateLimitDomain, key: string): Pending {
    return this.pending.begin(domain, key);
  }

  private check(domain: RateLimitDomain, key: string, op: StoreOp): RateLimitResult | undefined {
    const rules = this.rules[domain];
    if (rules.length === 0) return undefined;
    const store = this.storeOf(domain);
    return resultOf(rules, rules.map((rule) => this.entry(store, op, windowKey(rules, rule, key), rule)), op);
  }

  private storeOf(domain: RateLimitDomain): WindowStore {
    let store = this.stores.get(domain);
    if (!store) this.stores.set(domain, (store = new LocalStore(false, false, this.entries)));
    return store;
  }

  private entry(store: WindowStore, op: StoreOp, storeKey: string, rule: RateLimitRule): StoreEntry {
    let out: StoreEntry | undefined;
    // LocalStore answers synchronously; the callback is its contract with RedisStore.
    store[op](storeKey, (err, res) => {
      if (err) throw err;
      out = res;
    }, rule.windowSecs * 1000, rule.max);
    return out!;
  }
}
