import type { Counter } from 'prom-client';
import type { MaybePromise, RateLimiter, RateLimitResult } from '../ratelimit/limiter.js';
import { RATE_LIMIT_DOMAINS, type RateLimitDomain } from '../ratelimit/rules.js';

/**
 * The same limiter, counting each refusal by domain. A check that finds the budget spent
 * (hit, or peek before a sign-in) is what turns a request away with 429.
 */
export function countingRefusals(limiter: RateLimiter, refusals: Counter<'domain'>): RateLimiter {
  if (!limiter.enabled) return limiter;
  const children = new Map<RateLimitDomain, { inc(): void }>(RATE_LIMIT_DOMAINS.map((d) => [d, refusals.labels(d)]));
  const count = (domain: RateLimitDomain, r: RateLimitResult | undefined): RateLimitResult | undefined => {
    if (r?.limited) children.get(domain)?.inc();
    return r;
  };
  const counted = (domain: RateLimitDomain, r: MaybePromise<RateLimitResult | undefined>): MaybePromise<RateLimitResult | undefined> =>
    r instanceof Promise ? r.then((v) => count(domain, v)) : count(domain, r);
  return {
    enabled: true,
    hit: (domain, key) => counted(domain, limiter.hit(domain, key)),
    peek: (domain, key) => counted(domain, limiter.peek(domain, key)),
    begin: (domain, key) => limiter.begin(domain, key),
  };
}
