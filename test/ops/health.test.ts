import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { testApp, type TestApp } from '../helpers/app.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { until } from '../helpers/until.js';
import { sql } from 'kysely';
import { migrations } from '../../src/store/migrations/index.js';

let t: TestApp;
// Budgets on, and tight: the probes must never spend one.
before(async () => { t = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules('api_by_ip=60:2') }); });
after(async () => { await t.close(); });

/** A probe as a balancer sends it: no Host of any organization, no credentials. */
const probe = (url: string, headers: Record<string, string> = {}) => t.app.http.inject({ method: 'GET', url, headers });

test('GET /health answers 200 {"status":"ok"} without a Host or credentials', async () => {
  for (const headers of [{}, { host: 'nowhere.example' }, { host: 'parley.test', authorization: 'Basic bad' }] as Array<Record<string, string>>) {
    const r = await probe('/health', headers);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { status: 'ok' });
    assert.match(String(r.headers['content-type']), /^application\/json/);
  }
});

test('GET /ready answers 200 with each check when the store answers and every migration is applied', async () => {
  const r = await probe('/ready');
  assert.equal(r.statusCode, 200);
  const body = r.json();
  assert.equal(body.status, 'ok');
  assert.equal(body.checks.store, 'ok');
  assert.equal(body.checks.migrations, 'ok');
  assert.equal(body.checks.shutdown, 'ok');
  assert.equal(body.checks.redis, t.app.ctx.cluster ? 'ok' : 'not in a cluster');
});

test('probes are never charged to a budget: many in a row past api_by_ip, no 429 and no X-RateLimit headers', async () => {
  for (let i = 0; i < 6; i++) {
    for (const path of ['/health', '/ready']) {
      const r = await probe(path);
      assert.equal(r.statusCode, 200, `${path} #${i}`);
      assert.equal(r.headers['x-ratelimit-remaining'], undefined);
    }
  }
  // The budget is real: the API's public endpoints spend it.
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await t.api('GET', '/api/v1/server_settings', { as: null })).status);
  assert.deepEqual(statuses, [200, 200, 429]);
});

test('GET /ready answers 503 naming the migrations when the database lacks one this build has', async () => {
  const db = t.app.ctx.store.db;
  const last = migrations[migrations.length - 1]!.name;
  const row = await sql<{ name: string; applied_at: number }>`SELECT name, applied_at FROM parley_migration WHERE name = ${last}`.execute(db);
  await sql`DELETE FROM parley_migration WHERE name = ${last}`.execute(db);
  try {
    const r = await probe('/ready');
    assert.equal(r.statusCode, 503);
    assert.deepEqual(r.json().failed, ['migrations']);
    assert.equal(r.json().checks.migrations, '1 not applied');
  } finally {
    await sql`INSERT INTO parley_migration (name, applied_at) VALUES (${last}, ${row.rows[0]!.applied_at})`.execute(db);
  }
  assert.equal((await probe('/ready')).statusCode, 200);
});

test('GET /ready answers 503 naming the store when the store is closed', async () => {
  const t2 = await testApp();
  try {
    await t2.app.ctx.store.close();
    const r = await t2.app.http.inject({ method: 'GET', url: '/ready' });
    assert.equal(r.statusCode, 503);
    const body = r.json();
    assert.equal(body.status, 'unavailable');
    assert.ok(body.failed.includes('store'), JSON.stringify(body));
    assert.equal(body.checks.store, 'unreachable');
    // Alive all the same: the process answers.
    assert.equal((await t2.app.http.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  } finally {
    await t2.close().catch(() => undefined);
  }
});

/** Sends raw bytes on one connection and collects what comes back. */
function rawConnection(port: number): { socket: net.Socket; received: () => string } {
  const socket = net.connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d.toString()));
  socket.on('error', () => {});
  return { socket, received: () => data };
}

test('GET /ready answers 503 naming the shutdown once the server stops', async () => {
  const t2 = await testApp();
  const base = await t2.listen();
  const port = Number(new URL(base).port);
  let arrived = 0;
  t2.app.http.server.on('request', () => (arrived += 1));
  // A request whose body is still coming holds the server open through close(); the probe
  // is pipelined behind it on the same connection, sent once shutdown has begun.
  const conn = rawConnection(port);
  conn.socket.write('POST /api/v1/typing HTTP/1.1\r\nHost: parley.test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8\r\n\r\nop=st');
  await until(() => arrived === 1, { message: 'the held request to reach the server' });
  const closed = t2.close();
  conn.socket.write('artGET /ready HTTP/1.1\r\nHost: x\r\n\r\n');
  await until(() => /\}\}$/.test(conn.received()), { message: () => `the probe's answer, got: ${conn.received()}` });
  const answers = conn.received().split(/(?=HTTP\/1\.1 )/);
  assert.equal(answers.length, 2, conn.received());
  assert.match(answers[1]!, /^HTTP\/1\.1 503 /);
  const ready = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4));
  assert.equal(ready.status, 'unavailable');
  assert.deepEqual(ready.failed, ['shutdown']);
  assert.equal(ready.checks.shutdown, 'shutting down');
  assert.equal(ready.checks.store, 'ok');
  conn.socket.destroy();
  await closed;
});
