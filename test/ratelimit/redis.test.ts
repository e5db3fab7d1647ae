/**
 * Budgets in Redis (src/ratelimit/redis.ts): what the in-memory limiter answers, shared by
 * every server on the same Redis; while Redis is away each server counts by itself (never
 * a 500), and shares again once it is back. Two servers need one database between them,
 * so those tests run on PostgreSQL only.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Redis } from 'ioredis';
import { testApp, createPgDatabase, asTestUser, ENGINE, OWNER_EMAIL, OWNER_PASSWORD, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { findRedisServer, startRedis, type RedisServer } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { RedisRateLimiter } from '../../src/ratelimit/redis.js';

const NO_REDIS = findRedisServer() ? false : 'no redis-server on this machine (apt-get install redis-server): Redis budgets not tested';
const ONE_DATABASE = ENGINE === 'postgres' ? false : 'two servers need one database between them: PostgreSQL only (PARLEY_TEST_ENGINES=postgres)';
if (NO_REDIS) process.stdout.write(`*** SKIPPED: ${NO_REDIS} ***\n`);

let redis: RedisServer;
let admin: Redis;
const apps: TestApp[] = [];

before(async () => {
  if (NO_REDIS) return;
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  admin.on('error', () => { /* the Redis-down test kills it on purpose */ });
  await admin.connect();
});
after(async () => {
  for (const a of apps) await a.close();
  admin?.disconnect();
  await redis?.stop();
});
// Every test starts from empty budgets: user ids repeat from one database to the next.
beforeEach(async () => { if (!NO_REDIS) await admin.flushdb(); });

async function redisApp(spec: string, overrides: { databaseUrl?: string } = {}): Promise<TestApp> {
  const t = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules(spec), redisUrl: redis.url, ...overrides });
  apps.push(t);
  return t;
}

/** Two servers on one database and one Redis, as two nodes of a cluster. */
async function twoNodes(spec: string): Promise<[TestApp, TestApp]> {
  const databaseUrl = await createPgDatabase();
  return [await redisApp(spec, { databaseUrl }), await redisApp(spec, { databaseUrl })];
}

const limiterOf = (t: TestApp) => t.app.ctx.limiter as RedisRateLimiter;
const header = (r: ApiResult, name: string) => (r.headers?.[name.toLowerCase()] === undefined ? undefined : String(r.headers[name.toLowerCase()]));
const me = (t: TestApp, as?: TestUser) => t.api('GET', '/api/v1/users/me', as ? { as } : {});
const signIn = (t: TestApp, username: string, password: string, remoteAddress: string) =>
  t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username, password }, remoteAddress });

function assertRateLimited(r: ApiResult, windowSecs: number): void {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'msg', 'result', 'retry-after']);
  assert.equal(r.body.code, 'RATE_LIMIT_HIT');
  assert.equal(r.body.msg, 'API usage exceeded rate limit');
  assert.ok(r.body['retry-after'] > 0 && r.body['retry-after'] <= windowSecs, String(r.body['retry-after']));
  assert.equal(header(r, 'Retry-After'), String(r.body['retry-after']));
}

test('one server: budgets are counted in Redis, under parley:rl:, with the in-memory answers', { skip: NO_REDIS }, async () => {
  const t = await redisApp('api_by_user=60:3;email_change_by_user=3600:2,86400:5');
  for (const left of [2, 1, 0]) {
    const r = await me(t);
    assert.equal(r.status, 200);
    assert.equal(header(r, 'X-RateLimit-Remaining'), String(left));
  }
  assertRateLimited(await me(t), 60);
  assert.equal(await admin.get(`parley:rl:api_by_user:${t.owner.id}`), '4');
  const ttl = await admin.pttl(`parley:rl:api_by_user:${t.owner.id}`);
  assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
  // A domain of two rules keeps a counter per window.
  const alice = await t.createUser();
  assert.equal((await t.api('PATCH', '/api/v1/settings', { as: alice, params: { email: 'alice.1@parley.test' } })).status, 200);
  assert.equal(await admin.get(`parley:rl:email_change_by_user:3600:${alice.id}`), '1');
  assert.equal(await admin.get(`parley:rl:email_change_by_user:86400:${alice.id}`), '1');
});

test('two servers share one user\'s budget', { skip: NO_REDIS || ONE_DATABASE }, async () => {
  const [a, b] = await twoNodes('api_by_user=60:4');
  const alice = await a.createUser();
  const remaining: Array<string | undefined> = [];
  for (const t of [a, b, a, b]) {
    const r = await me(t, alice);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    remaining.push(header(r, 'X-RateLimit-Remaining'));
  }
  assert.deepEqual(remaining, ['3', '2', '1', '0']);
  assertRateLimited(await me(a, alice), 60);
  assertRateLimited(await me(b, alice), 60);
  // The owner's budget is the owner's, on either server.
  assert.equal(header(await me(b), 'X-RateLimit-Remaining'), '3');
  // Both servers say when the budget resets alike (the window is Redis's, not a node's).
  const resets = [await me(a, alice), await me(b, alice)].map((r) => Number(header(r, 'X-RateLimit-Reset')));
  assert.ok(Math.abs(resets[0]! - resets[1]!) <= 1, String(resets));
});

test('two servers share the failed sign-ins of an address and of an account', { skip: NO_REDIS || ONE_DATABASE }, async () => {
  const [a, b] = await twoNodes('authenticate_by_ip=1800:4;authenticate_by_username=1800:3');
  const people: TestUser[] = [];
  for (let i = 0; i < 5; i++) people.push(await a.createUser({ password: `password-of-${i}` }));
  // One address guessing across accounts, its requests spread over the two servers.
  for (let i = 0; i < 4; i++) assert.equal((await signIn(i % 2 ? b : a, people[i]!.email, 'Summer2024!', '203.0.113.5')).status, 401);
  assertRateLimited(await signIn(a, people[4]!.email, 'password-of-4', '203.0.113.5'), 1800);
  assertRateLimited(await signIn(b, people[4]!.email, 'password-of-4', '203.0.113.5'), 1800);
  assert.equal((await signIn(b, people[4]!.email, 'password-of-4', '198.51.100.7')).status, 200);
  // One account (not guessed above) guessed from many addresses, on both servers.
  for (let i = 0; i < 3; i++) assert.equal((await signIn(i % 2 ? a : b, people[4]!.email, 'wrong', `10.0.0.${i + 1}`)).status, 401);
  assertRateLimited(await signIn(a, people[4]!.email, 'password-of-4', '10.9.9.9'), 1800);
  assertRateLimited(await signIn(b, people[4]!.email, 'password-of-4', '10.9.9.8'), 1800);
  // A user made on one server signs in on the other.
  assert.equal((await signIn(b, OWNER_EMAIL, OWNER_PASSWORD, '10.1.1.1')).status, 200);
});

test('parallel guesses from one address spread over two servers cannot all slip past the budget', { skip: NO_REDIS || ONE_DATABASE }, async () => {
  const [a, b] = await twoNodes('authenticate_by_ip=1800:3');
  const people: TestUser[] = [];
  for (let i = 0; i < 12; i++) people.push(await a.createUser({ password: `password-of-${i}` }));
  const answers = await Promise.all(people.map((p, i) => signIn(i % 2 ? b : a, p.email, 'guess', '203.0.113.9')));
  const failed = answers.filter((r) => r.status === 401).length;
  assert.equal(failed + answers.filter((r) => r.status === 429).length, people.length);
  assert.ok(failed <= 3, `${failed} guesses were checked`);
  // The marks of the checks are gone once they are decided.
  await until(async () => (await admin.keys('*pending:*')).length === 0, { message: 'the pending marks to go' });
});

test('a 429 from Redis budgets has the shape and headers of the in-memory one', { skip: NO_REDIS }, async () => {
  const spec = 'api_by_user=60:2;api_by_ip=60:2';
  const memory = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules(spec) });
  apps.push(memory);
  const shared = await redisApp(spec);
  const run = async (t: TestApp) => {
    const out: ApiResult[] = [];
    for (let i = 0; i < 3; i++) out.push(await me(t));
    for (let i = 0; i < 3; i++) out.push(await t.api('GET', '/api/v1/server_settings', { as: null }));
    out.push(await t.api('GET', '/api/v1/users/me', { as: asTestUser({ ...t.owner.row, api_key: 'x'.repeat(32) }) }));
    return out;
  };
  const [m, s] = [await run(memory), await run(shared)];
  const rateHeaders = (r: ApiResult) => Object.keys(r.headers ?? {}).filter((h) => h.startsWith('x-ratelimit-') || h === 'retry-after').sort();
  for (let i = 0; i < m.length; i++) {
    const [x, y] = [m[i]!, s[i]!];
    assert.equal(y.status, x.status, `answer ${i}`);
    assert.deepEqual(rateHeaders(y), rateHeaders(x), `answer ${i}`);
    assert.equal(header(y, 'X-RateLimit-Limit'), header(x, 'X-RateLimit-Limit'));
    assert.equal(header(y, 'X-RateLimit-Remaining'), header(x, 'X-RateLimit-Remaining'));
    assert.ok(Math.abs(Number(header(y, 'X-RateLimit-Reset')) - Number(header(x, 'X-RateLimit-Reset'))) <= 2);
    if (x.status === 429) {
      assertRateLimited(y, 60);
      assert.deepEqual({ ...y.body, 'retry-after': 0 }, { ...x.body, 'retry-after': 0 });
    } else if (x.status !== 200) {
      assert.deepEqual(y.body, x.body);
    }
  }
  assert.deepEqual(m.map((r) => r.status), [200, 200, 429, 200, 200, 429, 429]);
});

test('Redis down: each server counts by itself, no request fails; shared again once Redis is back', { skip: NO_REDIS }, async () => {
  const t = await redisApp('api_by_user=60:3;authenticate_by_ip=1800:2');
  const alice = await t.createUser({ password: 'right-password-1' });
  assert.equal((await me(t, alice)).status, 200);
  assert.equal(limiterOf(t).shared, true);
  await redis.kill();
  try {
    // The first request after the kill may be the one that finds the connection gone.
    const answers: ApiResult[] = [];
    for (let i = 0; i < 4; i++) answers.push(await me(t, alice));
    assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 429], JSON.stringify(answers.map((r) => r.body)));
    assert.equal(limiterOf(t).shared, false);
    // This server's budgets still hold: failed sign-ins from one address are counted too.
    assert.equal((await signIn(t, alice.email, 'wrong', '203.0.113.7')).status, 401);
    assert.equal((await signIn(t, alice.email, 'wrong', '203.0.113.7')).status, 401);
    assertRateLimited(await signIn(t, alice.email, 'right-password-1', '203.0.113.7'), 1800);
    assert.equal((await signIn(t, alice.email, 'right-password-1', '203.0.113.8')).status, 200);
  } finally {
    await redis.start();
  }
  await until(() => limiterOf(t).shared, { message: 'the limiter to reconnect to Redis' });
  // Back in Redis (which restarted empty): the owner's count starts there.
  const r = await me(t);
  assert.equal(r.status, 200);
  assert.equal(header(r, 'X-RateLimit-Remaining'), '2');
  assert.equal(await admin.get(`parley:rl:api_by_user:${t.owner.id}`), '1');
});

// On PostgreSQL a server with a Redis URL is a cluster node, which does not start without its Redis (test/cluster/).
const LIMITER_ONLY = ENGINE === 'postgres' && 'with PostgreSQL, Redis makes a cluster node, which needs Redis to start';

test('a Redis that never answered: the server starts and counts by itself', { skip: NO_REDIS || LIMITER_ONLY }, async () => {
  // A port nothing listens on (the throwaway Redis's, while it is stopped).
  await redis.kill();
  try {
    const t = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules('api_by_user=60:2'), redisUrl: redis.url });
    apps.push(t);
    assert.deepEqual([(await me(t)).status, (await me(t)).status, (await me(t)).status], [200, 200, 429]);
  } finally {
    await redis.start();
  }
});

test('a Redis that accepts connections and never answers: a request waits a bounded time (the command timeout), then counts here', { skip: LIMITER_ONLY }, async () => {
  // Accepts, never answers. A reset from the client when it gives up must not crash this process.
  const silent = net.createServer((socket) => { socket.on('error', () => {}); });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const t = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules('api_by_user=60:2'), redisUrl: `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}` });
    apps.push(t);
    const started = Date.now();
    assert.equal((await me(t)).status, 200);
    assert.ok(Date.now() - started < 5_000, `the first request took ${Date.now() - started} ms`);
    assert.equal(limiterOf(t).shared, false);
    const next = Date.now();
    assert.deepEqual([(await me(t)).status, (await me(t)).status], [200, 429]);
    assert.ok(Date.now() - next < 2_500, `later requests took ${Date.now() - next} ms`);
  } finally {
    silent.close();
  }
});
