import { until } from './until.js';
import type { ApiResult, TestApp, TestUser } from './app.js';
import { EPOCH_POLL_MS } from '../../src/cache/retire.js';

/**
 * A write made behind this process's back (straight to the store, as the CLI or another
 * node makes it) reaches its caches through the store's cache epoch, polled every
 * EPOCH_POLL_MS. Polls `condition` (an API call showing the change) until it holds, and
 * fails if it does not hold within a poll period and half a second.
 */
export function untilEpochShows<T>(condition: () => T | Promise<T>, message: string) {
  return until(condition, { timeoutMs: EPOCH_POLL_MS + 500, intervalMs: 25, message });
}

/**
 * After a write behind the process's back that should lock `user` out: polls GET
 * /users/me as them until it is refused, and answers that refusal.
 */
export function untilLoginRefused(t: TestApp, user: TestUser): Promise<ApiResult> {
  return untilEpochShows(async () => {
    const answer = await t.api('GET', '/api/v1/users/me', { as: user });
    return answer.status !== 200 && answer;
  }, `GET /users/me to refuse ${user.email}`);
}
