import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clusterUnavailable, inProcessCluster, type InProcessCluster } from '../helpers/cluster.js';
import { httpClient, testApp, type TestUser } from '../helpers/app.js';
import { freePort } from '../helpers/pg.js';
import { eventQueues, untilParked } from '../helpers/events.js';
import { until } from '../helpers/until.js';
import { queuesOf } from '../../src/events/manager.js';

const skip = clusterUnavailable();
let c: InProcessCluster;
let urls: string[] = [];
let alice: TestUser, bob: TestUser;

before(async () => {
  if (skip) return;
  c = await inProcessCluster(3);
  urls = await Promise.all(c.nodes.map((n) => n.listen()));
  alice = await c.nodes[0]!.createUser({ name: 'Alice', email: 'alice@parley.test' });
  bob = await c.nodes[0]!.createUser({ name: 'Bob', email: 'bob@parley.test' });
});
after(async () => {
  if (!skip) await c.close();
});

const node = (i: number) => eventQueues(httpClient(() => urls[i]!));
const http = (i: number) => httpClient(() => urls[i]!);

test('a message sent on one node reaches queues parked on the other two', { skip }, async () => {
  const onB = await node(1).listen(bob);
  const onC = await node(2).listen(alice);
  const pollB = node(1).poll(bob, onB.queueId, -1);
  const pollC = node(2).poll(alice, onC.queueId, -1);
  await untilParked(c.nodes[1]!.app.ctx, onB.queueId, bob.id);
  await untilParked(c.nodes[2]!.app.ctx, onC.queueId, alice.id);
  const sent = await http(0)(alice, 'POST', '/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'across nodes' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const [b, a] = await Promise.all([pollB, pollC]);
  assert.deepEqual(b.body.events.map((e: any) => [e.type, e.message?.id, e.message?.content]), [['message', sent.body.id, 'across nodes']]);
  assert.deepEqual(a.body.events.map((e: any) => [e.type, e.message?.id]), [['message', sent.body.id]]);
});

test('one queue polled alternately on three nodes gets every event once, in order', { skip }, async () => {
  const l = await node(0).listen(bob, { event_types: JSON.stringify(['message']) });
  const seen: number[] = [];
  const ids: number[] = [];
  let last = -1;
  for (let i = 0; i < 9; i++) {
    const sent = await http(i % 3)(alice, 'POST', '/messages', { type: 'private', to: JSON.stringify([bob.id]), content: `m${i}` });
    assert.equal(sent.status, 200);
    seen.push(sent.body.id);
    // Polled on another node than the one that answered last time, without blocking once the event is there.
    const events = await until(async () => {
      const r = await node((i + 1) % 3).poll(bob, l.queueId, last, { dont_block: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.events.length > 0 ? r.body.events : undefined;
    });
    for (const e of events) {
      ids.push(e.message.id);
      assert.equal(e.id, last + 1, 'event ids follow one another');
      last = e.id;
    }
  }
  assert.deepEqual(ids, seen);
  // The queue is held by one node at a time: the others let it go when told.
  await until(() => c.nodes.filter((n) => { try { queuesOf(n.app.ctx).get(l.queueId, bob.id); return true; } catch { return false; } }).length === 1);
});

test('a cache retired on one node is retired on the others before its event is heard', { skip }, async () => {
  const l = await node(2).listen(bob, { event_types: JSON.stringify(['realm_user']) });
  // Node 2 caches Alice's name by answering with it.
  const before = await http(2)(bob, 'GET', `/users/${alice.id}`);
  assert.equal(before.body.user.full_name, 'Alice');
  const renamed = await http(0)(alice, 'PATCH', '/settings', { full_name: 'Alice Renamed' });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  const events = await until(async () => {
    const r = await node(2).poll(bob, l.queueId, -1, { dont_block: true });
    return r.body.events.length > 0 ? r.body.events : undefined;
  });
  assert.equal(events[0].person.full_name, 'Alice Renamed');
  const afterRename = await http(2)(bob, 'GET', `/users/${alice.id}`);
  assert.equal(afterRename.body.user.full_name, 'Alice Renamed');
});

test('DELETE /events on another node ends the queue everywhere', { skip }, async () => {
  const l = await node(0).listen(bob);
  const del = await http(1)(bob, 'DELETE', '/events', { queue_id: l.queueId });
  assert.deepEqual([del.status, del.body.result], [200, 'success']);
  for (let i = 0; i < 3; i++) {
    const r = await until(async () => {
      const p = await node(i).poll(bob, l.queueId, -1, { dont_block: true });
      return p.status === 400 ? p : undefined;
    });
    assert.equal(r.body.code, 'BAD_EVENT_QUEUE_ID');
  }
  // Another user's queue does not exist for them on any node.
  const mine = await node(0).listen(alice);
  const r = await node(1).poll(bob, mine.queueId, -1, { dont_block: true });
  assert.deepEqual([r.status, r.body.code], [400, 'BAD_EVENT_QUEUE_ID']);
});

test('typing, presence, drafts and local echo work across nodes', { skip }, async () => {
  const onA = await node(0).listen(alice, { event_types: JSON.stringify(['message', 'drafts', 'typing', 'presence']) });
  const onB = await node(1).listen(bob, { event_types: JSON.stringify(['typing', 'presence']) });
  const next = async (i: number, l: typeof onA, type: string) => until(async () => {
    const r = await node(i).poll(l.user, l.queueId, l.lastId, { dont_block: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (r.body.events.length) l.lastId = r.body.events.at(-1).id;
    return r.body.events.find((e: any) => e.type === type);
  }, { message: `a ${type} event on node ${i}` });

  // Alice's message, sent through node 2 with her queue (held by node 0) and a local id, echoes back.
  const sent = await http(2)(alice, 'POST', '/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'echo', queue_id: onA.queueId, local_id: '7.01' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const echoed = await next(0, onA, 'message');
  assert.deepEqual([echoed.message.id, echoed.local_message_id], [sent.body.id, '7.01']);

  // Typing on node 2 reaches Bob's queue on node 1.
  assert.equal((await http(2)(alice, 'POST', '/typing', { op: 'start', to: JSON.stringify([bob.id]) })).status, 200);
  const typing = await next(1, onB, 'typing');
  assert.deepEqual([typing.op, typing.sender.user_id], ['start', alice.id]);

  // A draft saved on node 1 reaches Alice's queue on node 0, and node 2 lists it.
  const saved = await http(1)(alice, 'POST', '/drafts', { drafts: JSON.stringify([{ type: 'private', to: [bob.id], topic: '', content: 'later', timestamp: 1_700_000_000 }]) });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const added = await next(0, onA, 'drafts');
  assert.deepEqual([added.op, added.drafts[0].content], ['add', 'later']);
  const listed = await http(2)(alice, 'GET', '/drafts');
  assert.deepEqual(listed.body.drafts.map((d: any) => d.content), ['later']);

  // Presence reported on node 0 is what node 2 answers, and Bob's queue on node 1 hears it.
  // Node 2 holds the organization's presences already: the report patches them there too.
  const before = await http(2)(bob, 'GET', '/realm/presence');
  assert.equal(before.body.presences[alice.email], undefined);
  assert.equal((await http(0)(alice, 'POST', '/users/me/presence', { status: 'active' })).status, 200);
  await until(async () => (await http(2)(bob, 'GET', '/realm/presence')).body.presences[alice.email]?.aggregated.status === 'active',
    { message: "Alice's presence in node 2's answer" });
  const presence = await next(1, onB, 'presence');
  assert.equal(presence.user_id, alice.id);
  const seen = await http(2)(bob, 'GET', `/users/${alice.id}/presence`);
  assert.equal(seen.body.presence.aggregated.status, 'active');
});

test('a node whose Redis does not answer does not start, and says why', { skip }, async () => {
  const nowhere = `redis://:secret@127.0.0.1:${await freePort()}`;
  await assert.rejects(testApp({ databaseUrl: c.databaseUrl, redisUrl: nowhere }), (err: Error) => {
    assert.match(err.message, /^cannot reach the cluster's Redis at redis:\/\/127\.0\.0\.1:\d+\/?: /);
    assert.doesNotMatch(err.message, /secret/);
    return true;
  });
});
