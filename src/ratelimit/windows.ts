import type { RateLimitResult } from './limiter.js';
import type { RateLimitRule } from './rules.js';

/**
 * The contract of @fastify/rate-limit's stores (LocalStore in memory, RedisStore shared):
 * fixed windows, `incr` counts a use, `read` looks without counting. Both limiters count
 * through it, so that they answer alike.
 */
export interface StoreEntry { current: number; ttl: number }
export interface WindowStore {
  incr(key: string, cb: (err: Error | null, res: StoreEntry) => void, timeWindowMs: number, max: number): void;
  read(key: string, cb: (err: Error | null, res: StoreEntry) => void, timeWindowMs: number, max: number): void;
}
export type StoreOp = 'incr' | 'read';

/** A key's counter for one rule: the key alone when the domain has one rule, else per window. */
export function windowKey(rules: readonly RateLimitRule[], rule: RateLimitRule, key: string): string {
  return rules.length === 1 ? key : `${rule.windowSecs}:${key}`;
}

/** What the counters of every rule of a domain (in the rules' order) say about one use. */
export function resultOf(rules: readonly RateLimitRule[], entries: readonly StoreEntry[], op: StoreOp): RateLimitResult {
  let limited = false;
  let limitedFor = 0;
  let longest: { rule: RateLimitRule; entry: StoreEntry } | undefined;
  rules.forEach((rule, i) => {
    const entry = entries[i]!;
    // incr counts this use; read reports the uses so far, so the next one is what is asked about.
    const used = op === 'incr' ? entry.current : entry.current + 1;
    if (used > rule.max) {
      limited = true;
      limitedFor = Math.max(limitedFor, entry.ttl / 1000);
    }
    if (!longest || rule.windowSecs >= longest.rule.windowSecs) longest = { rule, entry };
  });
  const { rule, entry } = longest!;
  return {
    limited,
    limit: rule.max,
    remaining: Math.max(0, rule.max - entry.current),
    secsToFreedom: limited ? limitedFor : Math.max(0, entry.ttl / 1000),
  };
}
