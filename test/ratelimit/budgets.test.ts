/**
 * Request budgets in Zulip's model (src/ratelimit/, src/http/rate-limit.ts): the 429's
 * shape and headers, one budget per user, the anonymous budget per address, polls counted
 * apart, email changes, and limits turned off by config.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, basic, type ApiResult, type TestApp } from '../helpers/app.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';

const apps: TestApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

async function limitedApp(spec: string): Promise<TestApp> {
  const t = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules(spec) });
  apps.push(t);
  return t;
}

function header(r: ApiResult, name: string): string | undefined {
  const v = r.headers?.[name.toLowerCase()];
  return v === undefined ? undefined : String(v);
}

function assertRateLimited(r: ApiResult, windowSecs = 60): void {
  assert.equal(r.status, 429);
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'msg', 'result', 'retry-after']);
  assert.equal(r.body.result, 'error');
  assert.equal(r.body.msg, 'API usage exceeded rate limit');
  assert.equal(r.body.code, 'RATE_LIMIT_HIT');
  assert.equal(typeof r.body['retry-after'], 'number');
  assert.ok(r.body['retry-after'] > 0 && r.body['retry-after'] <= windowSecs, String(r.body['retry-after']));
  // Zulip sends the same float in the header.
  assert.equal(header(r, 'Retry-After'), String(r.body['retry-after']));
}

test('a user past the budget gets a 429 in Zulip\'s shape, with Retry-After and X-RateLimit-* on every answer', async () => {
  const t = await limitedApp('api_by_user=60:3');
  const before = Math.floor(Date.now() / 1000);
  for (const left of [2, 1, 0]) {
    const r = await t.api('GET', '/api/v1/users/me');
    assert.equal(r.status, 200);
    assert.equal(header(r, 'X-RateLimit-Limit'), '3');
    assert.equal(header(r, 'X-RateLimit-Remaining'), String(left));
    // A Unix time in whole seconds, within the window.
    const reset = Number(header(r, 'X-RateLimit-Reset'));
    assert.ok(Number.isInteger(reset) && reset >= before && reset <= before + 61, String(reset));
  }
  const r = await t.api('GET', '/api/v1/users/me');
  assertRateLimited(r);
  assert.equal(header(r, 'X-RateLimit-Limit'), '3');
  assert.equal(header(r, 'X-RateLimit-Remaining'), '0');
  assert.ok(Number(header(r, 'X-RateLimit-Reset')) >= before);
  // Any route, and a write too: the budget is the user's, not the endpoint's.
  assertRateLimited(await t.api('POST', '/api/v1/messages', { params: { type: 'private', to: `[${t.owner.id}]`, content: 'hi' } }));
});

test('each user (and so each API key) has a budget of its own; error answers carry the headers too', async () => {
  const t = await limitedApp('api_by_user=60:2');
  const alice = await t.createUser();
  const bob = await t.createUser();
  const bad = await t.api('GET', '/api/v1/messages/999999', { as: alice });
  assert.equal(bad.status, 400);
  assert.equal(header(bad, 'X-RateLimit-Remaining'), '1');
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: alice })).status, 200);
  assertRateLimited(await t.api('GET', '/api/v1/users/me', { as: alice }));
  const b = await t.api('GET', '/api/v1/users/me', { as: bob });
  assert.equal(b.status, 200);
  assert.equal(header(b, 'X-RateLimit-Remaining'), '1');
  // A bot is a user with its own key and its own budget.
  const bot = await t.createBot(alice, { fullName: 'Helper', shortName: 'helper' });
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: bot })).status, 200);
});

test('unauthenticated requests have a budget per address; a wrong API key spends it', async () => {
  const t = await limitedApp('api_by_ip=60:3');
  const first = await t.api('GET', '/api/v1/server_settings', { as: null });
  assert.equal(first.status, 200);
  assert.equal(header(first, 'X-RateLimit-Limit'), '3');
  assert.equal(header(first, 'X-RateLimit-Remaining'), '2');
  const wrongKey = await t.api('GET', '/api/v1/users/me', { as: null, headers: { authorization: basic(t.owner.email, 'x'.repeat(32)) } });
  assert.equal(wrongKey.status, 401);
  assert.equal(wrongKey.body.code, 'INVALID_API_KEY');
  assert.equal(header(wrongKey, 'X-RateLimit-Remaining'), '1');
  assert.equal((await t.api('GET', '/api/v1/server_settings', { as: null })).status, 200);
  assertRateLimited(await t.api('GET', '/api/v1/server_settings', { as: null }));
  assertRateLimited(await t.api('GET', '/api/v1/users/me', { as: null, headers: { authorization: basic(t.owner.email, 'y'.repeat(32)) } }));
  // Another address is not held back, nor is a user who authenticates.
  assert.equal((await t.api('GET', '/api/v1/server_settings', { as: null, remoteAddress: '10.1.2.3' })).status, 200);
  assert.equal((await t.api('GET', '/api/v1/users/me')).status, 200);
});

test('IPv6 clients are counted by their /64; IPv4-mapped addresses as IPv4', async () => {
  const t = await limitedApp('api_by_ip=60:2');
  const get = (remoteAddress: string) => t.api('GET', '/api/v1/server_settings', { as: null, remoteAddress });
  assert.equal((await get('2001:db8:1:2::1')).status, 200);
  assert.equal((await get('2001:db8:1:2::ffff')).status, 200);
  assertRateLimited(await get('2001:db8:1:2:abcd::9'));
  assert.equal((await get('2001:db8:1:3::1')).status, 200);
  assert.equal((await get('::ffff:192.0.2.7')).status, 200);
  assert.equal((await get('192.0.2.7')).status, 200);
  assertRateLimited(await get('192.0.2.7'));
});

test('GET /events polls are counted apart from the API budget, over real HTTP too', async () => {
  const t = await limitedApp('api_by_user=60:2');
  const base = await t.listen();
  const reg = await t.api('POST', '/api/v1/register', { params: { event_types: ['message'] } });
  assert.equal(reg.status, 200);
  assert.equal((await t.api('GET', '/api/v1/users/me')).status, 200);
  assertRateLimited(await t.api('GET', '/api/v1/users/me'));
  const poll = async () => {
    const res = await fetch(`${base}/api/v1/events?queue_id=${encodeURIComponent(reg.body.queue_id)}&last_event_id=-1&dont_block=true`, {
      headers: { authorization: basic(t.owner.email, t.owner.apiKey) },
    });
    return { status: res.status, body: await res.json() as any, headers: Object.fromEntries(res.headers) };
  };
  const p1 = await poll();
  assert.equal(p1.status, 200, JSON.stringify(p1.body));
  assert.equal(p1.headers['x-ratelimit-limit'], '2');
  assert.equal(p1.headers['x-ratelimit-remaining'], '1');
  assert.ok(p1.headers['x-ratelimit-reset']);
  assert.equal((await poll()).status, 200);
  const p3 = await poll();
  assertRateLimited(p3);
  assert.equal(p3.headers['x-ratelimit-remaining'], '0');
});

test('a wrong key on a poll over real HTTP is an anonymous request from its address', async () => {
  const t = await limitedApp('api_by_ip=60:1');
  const base = await t.listen();
  const poll = async () => {
    const res = await fetch(`${base}/api/v1/events?queue_id=x&last_event_id=-1&dont_block=true`, {
      headers: { authorization: basic(t.owner.email, 'z'.repeat(32)) },
    });
    return { status: res.status, body: await res.json() as any, headers: Object.fromEntries(res.headers) };
  };
  const first = await poll();
  assert.equal(first.status, 401);
  assert.equal(first.body.code, 'INVALID_API_KEY');
  assert.equal(first.headers['x-ratelimit-remaining'], '0');
  assertRateLimited(await poll());
});

test('email changes: two an hour per user (Zulip\'s email_change_by_user), then a 429', async () => {
  const t = await limitedApp('');
  const alice = await t.createUser();
  for (const n of [1, 2]) {
    const r = await t.api('PATCH', '/api/v1/settings', { as: alice, params: { email: `alice.${n}@parley.test` } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const r = await t.api('PATCH', '/api/v1/settings', { as: alice, params: { email: 'alice.3@parley.test' } });
  assertRateLimited(r, 3600);
  assert.ok(r.body['retry-after'] > 3500, String(r.body['retry-after']));
  // Other settings still change.
  assert.equal((await t.api('PATCH', '/api/v1/settings', { as: alice, params: { full_name: 'Alice Again' } })).status, 200);
});

test('limits off by config: no headers, no refusals (the default in tests and benchmarks)', async () => {
  const t = await testApp({ rateLimits: parseRateLimitRules('api_by_user=60:1;api_by_ip=60:1') });
  apps.push(t);
  for (let i = 0; i < 5; i++) {
    const r = await t.api('GET', '/api/v1/users/me');
    assert.equal(r.status, 200);
    assert.equal(header(r, 'X-RateLimit-Limit'), undefined);
    assert.equal((await t.api('GET', '/api/v1/server_settings', { as: null })).status, 200);
  }
});
