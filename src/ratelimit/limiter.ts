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
  /**
   * Marks a use that is being decided now (a sign-in whose password is being checked: only
   * a failure counts, and only once it failed) and answers how many are being decided for
   * `key`, this one included, on every node that shares the budgets. Without this a burst of
   * parallel guesses would all pass the check before the first of them failed.
   */
  begin(domain: RateLimitDomain, key: string): MaybePromise<Pending>;
}

/** A use being decided: `count` such uses now, this one included; release() once it is decided (and counted, if it counts). */
export interface Pending {
  count: number;
  release(): void;
}

/** Pending uses counted in this process's memory. */
export class LocalPending {
  private readonly counts = new Map<string, number>();

  begin(domain: RateLimitDomain, key: string): Pending {
    const k = `${domain}\n${key}`;
    const count = (this.counts.get(k) ?? 0) + 1;
    this.counts.set(k, count);
    let released = false;
    return {
      count,
      release: () => {
        if (released) return;
        released = true;
        const n = (this.counts.get(k) ?? 1) - 1;
        if (n > 0) this.counts.set(k, n);
        else this.counts.delete(k);
      },
    };
  }
}

/** A limiter that never limits: limits turned off. */
export const UNLIMITED: RateLimiter = { enabled: false, hit: () => undefined, peek: () => undefined, begin: () => ({ count: 1, release: () => {} }) };
