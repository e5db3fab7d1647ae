import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clusterUnavailable, inProcessCluster, type InProcessCluster } from '../helpers/cluster.js';
import { testApp, type TestUser } from '../helpers/app.js';

// Scheduled messages in a cluster: every node runs the delivery worker, and each message
// is sent by exactly one of them; what is scheduled is in the database, so a node started
// afresh (after a crash or a restart) sends what is due.
const skip = clusterUnavailable();
let c: InProcessCluster;
let alice: TestUser;
let bob: TestUser;
let general: number;

before(async () => {
  if (skip) return;
  c = await inProcessCluster(3, { featureLevel: 277 });
  const [n0] = c.nodes;
  alice = await n0!.createUser({ name: 'Alice Smith' });
  bob = await n0!.createUser({ name: 'Bob Jones' });
  const r = await n0!.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: [{ name: 'general' }], principals: [alice.id, bob.id] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  general = (await n0!.api('GET', '/api/v1/get_stream_id', { as: alice, params: { stream: 'general' } })).body.stream_id;
});
after(async () => {
  if (!skip) await c.close();
});

const now = () => Math.floor(Date.now() / 1000);

test('three nodes deliver at once: each scheduled message is sent exactly once', { skip }, async () => {
  const at = now() + 600;
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) {
    const r = await c.nodes[i % 3]!.api('POST', '/api/v1/scheduled_messages', {
      as: alice, params: { type: 'stream', to: String(general), topic: 'race', content: `m${i}`, scheduled_delivery_timestamp: at },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ids.push(r.body.scheduled_message_id);
  }
  const tried = await Promise.all(c.nodes.map((n) => n.app.ctx.scheduledDelivery!.deliverDue(at)));
  assert.equal(tried.reduce((a, b) => a + b, 0), 12, `tries by node: ${tried.join(', ')}`);
  const got = await c.nodes[1]!.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'topic', operand: 'race' }]) } });
  const contents = (got.body.messages as Array<{ content: string }>).map((m) => m.content).sort();
  assert.deepEqual(contents, Array.from({ length: 12 }, (_, i) => `<p>m${i}</p>`).sort());
  assert.deepEqual((await c.nodes[2]!.api('GET', '/api/v1/scheduled_messages', { as: alice })).body.scheduled_messages, []);
});

test('a node started afresh on the same database sends what came due while none ran', { skip }, async () => {
  const at = now() + 600;
  const r = await c.nodes[0]!.api('POST', '/api/v1/scheduled_messages', {
    as: alice, params: { type: 'direct', to: JSON.stringify([bob.id]), content: 'after the restart', scheduled_delivery_timestamp: at },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const fresh = await testApp({ databaseUrl: c.databaseUrl, redisUrl: c.redis.url, featureLevel: 277 });
  try {
    assert.equal(await fresh.app.ctx.scheduledDelivery!.deliverDue(at + 5), 1);
    const [m] = (await fresh.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_before: 1, num_after: 0 } })).body.messages;
    assert.equal(m.content, '<p>after the restart</p>');
    assert.equal(m.sender_id, alice.id);
  } finally {
    await fresh.close();
  }
});
