import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINE, testApp, type TestApp } from '../helpers/app.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { loadConfig, parseMetricsAddr } from '../../src/config.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const apps: TestApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

async function app(overrides: Parameters<typeof testApp>[0]): Promise<TestApp> {
  const t = await testApp(overrides);
  apps.push(t);
  return t;
}

interface Sample { name: string; labels: Record<string, string>; value: number }

/** Prometheus' text format, the lines this test reads: `# TYPE name kind` and `name{a="b",...} value`. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { types, samples };
}

/** The sum of a metric's samples whose labels include `labels`. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

async function scrape(t: TestApp): Promise<ReturnType<typeof parseExposition>> {
  const r = await t.app.http.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseExposition(r.body);
}

test('metrics are off by default: GET /metrics answers 404 and nothing is collected', async () => {
  const t = await app({});
  assert.equal(t.app.ctx.metrics, undefined);
  assert.equal(t.app.metricsUrl, undefined);
  for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
    const r = await t.app.http.inject({ method: 'GET', url: '/metrics', headers });
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().result, 'error');
  }
});

test('with PARLEY_METRICS_TOKEN, /metrics on the main port wants the token, and counts requests by route pattern and sends', async () => {
  const t = await app({ metricsToken: TOKEN });
  for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Bearer ${TOKEN}x`, `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, TOKEN]) {
    const r = await t.app.http.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
    assert.equal(r.statusCode, 401, String(authorization));
    assert.equal(r.headers['www-authenticate'], 'Bearer');
  }

  const before = await scrape(t);
  for (const type of ['parley_http_requests_total counter', 'parley_http_request_duration_seconds histogram', 'parley_messages_sent_total counter',
    'parley_store_write_batch_size histogram', 'parley_event_queues gauge', 'nodejs_eventloop_lag_seconds gauge', 'process_resident_memory_bytes gauge',
    'nodejs_gc_duration_seconds histogram', 'parley_rate_limit_refusals_total counter', 'parley_outgoing_webhook_queue gauge', 'parley_notification_outbox gauge',
    'parley_store_write_queue gauge', 'parley_event_polls_parked gauge', 'parley_events_delivered_total counter']) {
    const [name, kind] = type.split(' ');
    assert.equal(before.types.get(name!), kind, `# TYPE ${type}`);
  }
  assert.equal(before.types.has('parley_pg_pool_connections'), ENGINE === 'postgres');
  assert.equal(before.types.has('parley_cluster_bus_lag_seconds'), t.app.ctx.cluster !== undefined);

  const sentBefore = value(before.samples, 'parley_messages_sent_total');
  const other = await t.createUser();
  for (let i = 0; i < 2; i++) assert.equal((await t.api('GET', `/api/v1/users/${other.id}`)).status, 200);
  assert.equal((await t.api('GET', '/api/v1/users/999999')).status, 400);
  const reg = await t.api('POST', '/api/v1/register', { params: { event_types: ['message'] } });
  assert.equal(reg.status, 200);
  const sent = await t.api('POST', '/api/v1/messages', { params: { type: 'private', to: [other.id], content: 'counted' } });
  assert.equal(sent.status, 200);

  const afterSend = await scrape(t);
  const s = afterSend.samples;
  const route = '/api/v1/users/:user_id';
  assert.equal(value(s, 'parley_http_requests_total', { method: 'GET', route, status: '200' }), 2);
  assert.equal(value(s, 'parley_http_requests_total', { method: 'GET', route, status: '400' }), 1);
  assert.equal(value(s, 'parley_http_request_duration_seconds_count', { method: 'GET', route }), 3);
  assert.ok(!s.some((x) => x.labels.route?.includes(String(other.id))), 'no series names a raw URL');
  assert.equal(value(s, 'parley_http_requests_total', { method: 'POST', route: '/api/v1/messages', status: '200' }), 1);
  assert.equal(value(s, 'parley_messages_sent_total') - sentBefore, 1);
  assert.ok(value(s, 'parley_store_write_batch_size_count') >= 1);
  assert.ok(value(s, 'parley_store_send_wait_seconds_count') >= 1);
  assert.equal(value(s, 'parley_event_queues'), 1);
  // The owner's queue heard its own message.
  assert.ok(value(s, 'parley_events_delivered_total') >= 1);
  // The scrapes themselves are requests of a route too (the first is counted once answered).
  assert.ok(value(s, 'parley_http_requests_total', { route: '/metrics', status: '200' }) >= 1);
  if (ENGINE === 'postgres') assert.ok(value(s, 'parley_pg_pool_connections', { state: 'total' }) >= 1);
});

test('with PARLEY_METRICS_ADDR, the metrics have a listener of their own and the main port answers 404', async () => {
  const t = await app({ metricsAddr: { host: '127.0.0.1', port: 0 }, rateLimiting: true, rateLimits: parseRateLimitRules('api_by_user=60:2') });
  assert.match(t.app.metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await t.app.http.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 404);
  assert.equal((await fetch(`${t.app.metricsUrl}/api/v1/server_settings`)).status, 404);

  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await t.api('GET', '/api/v1/users/me')).status);
  assert.deepEqual(statuses, [200, 200, 429]);
  // A poll over real HTTP takes the fast path past Fastify (src/http/longpoll.ts): counted under its route all the same.
  const base = await t.listen();
  const poll = await fetch(`${base}/api/v1/events?queue_id=nope&dont_block=true`);
  await poll.arrayBuffer();
  const r = await fetch(`${t.app.metricsUrl}/metrics`);
  assert.equal(r.status, 200);
  const { types, samples } = parseExposition(await r.text());
  assert.equal(types.get('parley_http_requests_total'), 'counter');
  assert.equal(value(samples, 'parley_http_requests_total', { route: '/api/v1/users/me', status: '429' }), 1);
  assert.equal(value(samples, 'parley_rate_limit_refusals_total', { domain: 'api_by_user' }), 1);
  assert.equal(value(samples, 'parley_http_requests_total', { method: 'GET', route: '/api/v1/events', status: String(poll.status) }), 1);
  assert.ok(!samples.some((x) => x.labels.route?.includes('nope')));
});

test('with both settings the metrics listener asks for the token too', async () => {
  const t = await app({ metricsAddr: { host: '127.0.0.1', port: 0 }, metricsToken: TOKEN });
  assert.equal((await fetch(`${t.app.metricsUrl}/metrics`)).status, 401);
  assert.equal((await fetch(`${t.app.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
  assert.equal((await t.app.http.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 200);
});

test('the settings are checked at start: a short token, an address without a port', () => {
  assert.throws(() => loadConfig({ metricsToken: 'short' }), /PARLEY_METRICS_TOKEN must be at least 16 characters/);
  assert.deepEqual(parseMetricsAddr('0.0.0.0:9464'), { host: '0.0.0.0', port: 9464 });
  assert.deepEqual(parseMetricsAddr('[::1]:9464'), { host: '::1', port: 9464 });
  assert.deepEqual(parseMetricsAddr(':9464'), { host: '127.0.0.1', port: 9464 });
  assert.equal(parseMetricsAddr(''), undefined);
  for (const bad of ['9464', 'host', 'host:99999', 'a:b:1']) assert.throws(() => parseMetricsAddr(bad), /PARLEY_METRICS_ADDR must be host:port/, bad);
});
