import type { RateLimitDomain } from './rules.js';

/** What one check found, in the terms of Zulip's RateLimitResult and X-RateLimit-* headers. */
export interface RateLimitResult {
  limited: boolean;
  /** Most uses in the domain's longest window (X-RateLimit-Limit). */
  limit: number;
  /** Uses left in that window (X-RateLimit-Remaining). */
  remaining: number;
  /** Limited: seconds until a use is accepted again (Retry-After). Otherwise: until the window resets. */
  secsToFreedom: number;
}

/** In-process stores answer at once; a shared one (Redis) answers with a promise. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * The one seam for request budgets: in memory in one process today (memory.ts); the
 * cluster backs it with a store every node shares. Keys are the caller's (a user id, an
 * address, an email); the domain picks the rules (rules.ts). `undefined`: the domain is
 * not limited (no rules, or limits turned off), so nothing was counted and no headers go out.
 */
export interface RateLimiter {
  readonly enabled: boolean;
  /** Counts one use by `key` and says whether it is over the domain's budget. */
  hit(domain: RateLimitDomain, key: string): MaybePromise<RateLimitResult | undefined>;
  /** The budget's state without counting a use (a failed sign-in is counted only once it failed). */
  peek(domain: RateLimitDomain, key: string): MaybePromise<RateLimitResult | undefined>;
}

/** A limiter that never limits: limits turned off. */
export const UNLIMITED: RateLimiter = { enabled: false, hit: () => undefined, peek: () => undefined };
