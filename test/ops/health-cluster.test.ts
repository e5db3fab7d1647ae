import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clusterUnavailable } from '../helpers/cluster.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { until } from '../helpers/until.js';

const skip = clusterUnavailable();
const TOKEN = 'metrics-token-0123456789abcdef';
let redis: RedisServer;
let t: TestApp;

before(async () => {
  if (skip) return;
  redis = await startRedis();
  t = await testApp({ redisUrl: redis.url, clusterName: `ops${process.pid}`, metricsToken: TOKEN });
});
after(async () => {
  if (skip) return;
  await t.close();
  await redis.stop();
});

const ready = async () => {
  const r = await t.app.http.inject({ method: 'GET', url: '/ready' });
  return { status: r.statusCode, body: r.json() };
};

test('a cluster node is ready only while its Redis is connected, and reports its bus in the metrics', { skip, timeout: 60_000 }, async () => {
  assert.ok(t.app.ctx.cluster, 'a cluster node');
  const up = await ready();
  assert.equal(up.status, 200);
  assert.equal(up.body.checks.redis, 'ok');
  const scrape = await t.app.http.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.match(scrape.body, /^parley_cluster_redis_connected 1$/m);
  assert.match(scrape.body, /^# TYPE parley_cluster_bus_lag_seconds gauge$/m);
  assert.match(scrape.body, /^parley_cluster_bus_appending \d+$/m);

  await redis.kill();
  const down = await until(async () => { const r = await ready(); return r.status === 503 && r; }, { message: '/ready to notice Redis gone' });
  assert.deepEqual(down.body.failed, ['redis']);
  assert.match(down.body.checks.redis, /^disconnected/);
  // Alive all the same: a restart would not bring Redis back.
  assert.equal((await t.app.http.inject({ method: 'GET', url: '/health' })).statusCode, 200);

  await redis.start();
  await until(async () => (await ready()).status === 200, { message: '/ready once Redis is back' });
});
