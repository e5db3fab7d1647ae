import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { buildApp } from '../../src/app.js';
import { testApp, basic } from '../helpers/app.js';
import { untilParked } from '../helpers/events.js';

async function call(base: string, email: string, key: string, method: string, url: string, params: Record<string, unknown>) {
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) usp.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  const get = method === 'GET';
  const res = await fetch(`${base}/api/v1${url}${get ? `?${usp}` : ''}`, {
    method, headers: { authorization: basic(email, key), ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    ...(get ? {} : { body: usp.toString() }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('queues survive a graceful restart: a parked poll is answered, the client carries on with the same queue and gets a restart event', { timeout: 60_000 }, async () => {
  const t = await testApp({ heartbeatMs: 30_000 });
  const { dataDir, databaseUrl } = t.app.ctx.config;
  const base1 = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  const owner = t.owner;
  const reg = await call(base1, owner.email, owner.apiKey, 'POST', '/register', { event_types: ['message', 'restart'] });
  const queueId = reg.body.queue_id as string;
  // A queue that did not ask for restart events carries on without one, as in Zulip.
  const quiet = (await call(base1, owner.email, owner.apiKey, 'POST', '/register', { event_types: ['message'] })).body.queue_id as string;
  const parked = call(base1, owner.email, owner.apiKey, 'GET', '/events', { queue_id: queueId, last_event_id: -1 });
  await untilParked(t.app.ctx, queueId, owner.id);
  await t.app.close();
  const answered = await parked;
  assert.equal(answered.status, 200);
  assert.deepEqual(answered.body.events, []);
  assert.ok(fs.existsSync(`${dataDir}/event-queues.json`));

  const app2 = await buildApp({ dataDir, databaseUrl, logLevel: 'silent', heartbeatMs: 30_000 });
  try {
    const base2 = await app2.http.listen({ port: 0, host: '127.0.0.1' });
    const first = await call(base2, owner.email, owner.apiKey, 'GET', '/events', { queue_id: queueId, last_event_id: -1 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const [restart] = first.body.events;
    assert.equal(restart.type, 'restart');
    assert.equal(restart.zulip_feature_level, 122);
    assert.equal(typeof restart.zulip_merge_base, 'string');
    assert.equal(typeof restart.service_merge_base, 'string');
    const next = call(base2, owner.email, owner.apiKey, 'GET', '/events', { queue_id: queueId, last_event_id: restart.id });
    await untilParked(app2.ctx, queueId, owner.id);
    await call(base2, owner.email, owner.apiKey, 'POST', '/messages', { type: 'private', to: [owner.id], content: 'after the restart' });
    const got = await next;
    assert.equal(got.body.events[0].type, 'message');
    assert.equal(got.body.events[0].message.content, 'after the restart');
    const quietEvents = (await call(base2, owner.email, owner.apiKey, 'GET', '/events', { queue_id: quiet, last_event_id: -1 })).body.events;
    assert.deepEqual(quietEvents.map((e: any) => e.type), ['message']);
    assert.equal(restart.server_generation, (await call(base2, owner.email, owner.apiKey, 'POST', '/register', { fetch_event_types: ['realm'] })).body.server_generation);
    assert.ok(!fs.existsSync(`${dataDir}/event-queues.json`), 'the saved file is consumed');
  } finally {
    await app2.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
