import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { buildApp } from '../../src/app.js';
import { testApp, httpClient, TWO_NODES, FEATURE_LEVEL } from '../helpers/app.js';
import { eventQueues, untilParked } from '../helpers/events.js';
import { validateEvent } from '../../src/events/schemas.js';

// One process's restart (its snapshot file); a cluster node's stop hands its queues to the
// other nodes instead, without a restart event (test/cluster/failover.test.ts).
test('queues survive a graceful restart: a parked poll is answered, the client carries on with the same queue and gets a restart event', { timeout: 60_000, skip: TWO_NODES && 'one process restarting: the cluster is test/cluster/failover' }, async () => {
  const t = await testApp({ heartbeatMs: 30_000 });
  const { dataDir, databaseUrl } = t.app.ctx.config;
  // The same client talks to the first process and then to the second.
  let base = await t.listen();
  const http = httpClient(() => base);
  const { register, poll } = eventQueues(http);
  const owner = t.owner;
  const reg = await register(owner, { event_types: ['message', 'restart'] });
  const queueId = reg.body.queue_id as string;
  // A queue that did not ask for restart events carries on without one, as in Zulip.
  const quiet = (await register(owner, { event_types: ['message'] })).body.queue_id as string;
  // One that takes every event (as the web app does) also gets the reload request after it.
  const everything = (await register(owner, {})).body.queue_id as string;
  const parked = poll(owner, queueId, -1);
  await untilParked(t.app.ctx, queueId, owner.id);
  await t.app.close();
  const answered = await parked;
  assert.equal(answered.status, 200);
  assert.deepEqual(answered.body.events, []);
  assert.ok(fs.existsSync(`${dataDir}/event-queues.json`));

  const app2 = await buildApp({ dataDir, databaseUrl, logLevel: 'silent', heartbeatMs: 30_000 });
  try {
    base = await app2.http.listen({ port: 0, host: '127.0.0.1' });
    const first = await poll(owner, queueId, -1);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const [restart, ...rest] = first.body.events;
    assert.equal(restart.type, 'restart');
    // Level 240: no `immediate` flag (at every level, as Zulip), and the reload request is a
    // web_reload_client event, which this queue did not ask for.
    assert.ok(!('immediate' in restart), JSON.stringify(restart));
    assert.deepEqual(rest, []);
    assert.deepEqual(validateEvent(restart), []);
    assert.equal(restart.zulip_feature_level, FEATURE_LEVEL);
    assert.equal(typeof restart.zulip_merge_base, 'string');
    assert.equal(typeof restart.service_merge_base, 'string');
    const next = poll(owner, queueId, restart.id);
    await untilParked(app2.ctx, queueId, owner.id);
    await http(owner, 'POST', '/messages', { type: 'private', to: [owner.id], content: 'after the restart' });
    const got = await next;
    assert.equal(got.body.events[0].type, 'message');
    assert.equal(got.body.events[0].message.content, 'after the restart');
    const quietEvents = (await poll(owner, quiet, -1)).body.events;
    assert.deepEqual(quietEvents.map((e: any) => e.type), ['message']);
    const all = (await poll(owner, everything, -1)).body.events;
    assert.deepEqual(all.slice(0, 2).map((e: any) => e.type), ['restart', 'web_reload_client']);
    assert.deepEqual(all[1], { type: 'web_reload_client', immediate: false, id: all[1].id });
    for (const e of all.slice(0, 2)) assert.deepEqual(validateEvent(e), []);
    assert.equal(restart.server_generation, (await register(owner, { fetch_event_types: ['realm'] })).body.server_generation);
    assert.ok(!fs.existsSync(`${dataDir}/event-queues.json`), 'the saved file is consumed');
  } finally {
    await app2.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
