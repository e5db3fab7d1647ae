import { normalizeIP } from '@fastify/rate-limit';
import type { AppContext } from '../context.js';
import { ApiError, rateLimited } from '../errors.js';
import type { RateLimitResult } from '../ratelimit/limiter.js';
import type { RateLimitDomain } from '../ratelimit/rules.js';

/**
 * The client's address as budgets key it: Fastify's req.ip (X-Forwarded-For only from the
 * proxies config.trustProxy names), IPv4-mapped IPv6 as IPv4, and IPv6 by its /64, which
 * one client usually holds whole (@fastify/rate-limit's normalisation).
 */
export function clientAddress(ip: string | undefined): string {
  return ip ? normalizeIP(ip, 64) : 'unknown';
}

/**
 * A user's budget key for a request: polls (GET /events) are counted apart, as Zulip's
 * Tornado counts them in its own memory, so that a client's polls do not spend its API budget.
 */
export function userBudgetKey(userId: number, isPoll: boolean): string {
  return isPoll ? `${userId}:events` : String(userId);
}

/**
 * Zulip's RateLimitMiddleware: the tightest limit and remaining count of the budgets this
 * request was counted in, and when the last of them resets as a Unix time in whole seconds.
 */
export function rateLimitHeaders(applied: RateLimitResult[], nowMs = Date.now()): Record<string, string> {
  let limit = Infinity, remaining = Infinity, free = 0;
  for (const r of applied) {
    limit = Math.min(limit, r.limit);
    remaining = Math.min(remaining, r.remaining);
    free = Math.max(free, r.secsToFreedom);
  }
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.trunc(nowMs / 1000 + free)),
  };
}

/**
 * Counts this request in `domain` under `key`: the X-RateLimit-* headers to send, or a
 * 429 (RATE_LIMIT_HIT) carrying them. No headers when the domain is not limited.
 */
export function chargeRequest(ctx: AppContext, domain: RateLimitDomain, key: string): Record<string, string> | undefined | Promise<Record<string, string> | undefined> {
  const r = ctx.limiter.hit(domain, key);
  return r instanceof Promise ? r.then(settle) : settle(r);
}

function settle(r: RateLimitResult | undefined): Record<string, string> | undefined {
  if (!r) return undefined;
  const headers = rateLimitHeaders([r]);
  if (r.limited) throw withHeaders(rateLimited(r.secsToFreedom), headers);
  return headers;
}

/** The same error with more headers (a refusal still says how the budget stands). */
export function withHeaders(err: ApiError, headers: Record<string, string>): ApiError {
  return new ApiError(err.code, err.message, err.httpStatus, err.extra, err.coded, { ...headers, ...err.headers });
}
