import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import { testApp } from '../helpers/app.js';
import { queuesOf } from '../../src/events/manager.js';
import { onceClosed } from '../../src/http/longpoll.js';
import { scaledMs } from '../helpers/machine.js';

test('once shutdown has begun, a poll that arrives answers at once instead of parking', async () => {
  const t = await testApp({ heartbeatMs: 60_000 });
  try {
    const alice = await t.createUser();
    const reg = await t.api('POST', '/api/v1/register', { as: alice, params: { event_types: ['message'] } });
    queuesOf(t.app.ctx).drain();
    const started = Date.now();
    const r = await t.api('GET', '/api/v1/events', { as: alice, params: { queue_id: reg.body.queue_id, last_event_id: -1 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.events, []);
    assert.ok(Date.now() - started < scaledMs(5_000, 30_000), 'answered without waiting for a heartbeat');
  } finally {
    await t.close();
  }
});

test('a poll whose client left before it parked is released at once', () => {
  const gone = Object.assign(new EventEmitter(), { destroyed: true }) as unknown as http.ServerResponse;
  let calls = 0;
  onceClosed(gone, () => { calls += 1; });
  assert.equal(calls, 1);
  const open = Object.assign(new EventEmitter(), { destroyed: false }) as unknown as http.ServerResponse;
  onceClosed(open, () => { calls += 1; });
  assert.equal(calls, 1);
  open.emit('close');
  assert.equal(calls, 2);
});
