import assert from 'node:assert/strict';
import type { ApiResult } from './app.js';

/** Zulip's error envelope, exactly: status, msg, code and any extra fields. */
export function assertError(r: ApiResult, msg: string, code = 'BAD_REQUEST', status = 400, extra: Record<string, unknown> = {}): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: 'error', msg, code, ...extra });
}

/** A 200 with Zulip's success envelope; answers the body. */
export function assertOk(r: ApiResult): any {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result, 'success');
  assert.equal(r.body.msg, '');
  return r.body;
}

/** The answer to a request that carried no credentials. */
export function assertUnauthenticated(r: ApiResult): void {
  assertError(r, 'Missing authorization header for basic auth', 'UNAUTHORIZED', 401);
}

/** Numbers (user or stream ids) in ascending order, for comparing sets of them. */
export const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);
