import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clusterUnavailable, inProcessCluster, type InProcessCluster } from '../helpers/cluster.js';
import type { TestUser } from '../helpers/app.js';
import type { Notifications } from '../../src/notifications/start.js';
import { recorder } from './recorder.js';
import { until } from '../helpers/until.js';

// Two nodes on one database and one Redis: a queue polled on one node keeps its user from
// being away when the other decides, and each notification is sent by exactly one node.
const skip = clusterUnavailable();
let c: InProcessCluster;
let alice: TestUser, bob: TestUser, carol: TestUser;
const recs = [recorder(), recorder()];
let ns: Notifications[];
const now = () => Math.floor(Date.now() / 1000);

before(async () => {
  if (skip) return;
  c = await inProcessCluster(2, { featureLevel: 372, pushBouncerUrl: 'http://127.0.0.1:9/' }, { notificationSenders: (i) => recs[i]! });
  ns = c.nodes.map((node) => node.app.ctx.notifications!);
  alice = await c.nodes[0]!.createUser({ name: 'Alice Smith' });
  bob = await c.nodes[0]!.createUser({ name: 'Bob Jones' });
  carol = await c.nodes[0]!.createUser({ name: 'Carol King' });
  for (const u of [bob, carol]) await c.nodes[0]!.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: u, params: { token: `fcm-token-${u.id}` } });
});
after(async () => {
  if (!skip) await c.close();
});

const dm = async (node: number, to: TestUser, content: string): Promise<number> => {
  const r = await c.nodes[node]!.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([to.id]), content } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
};
const calls = () => recs.flatMap((r) => r.calls);
const of = (id: number, user: TestUser) => calls().filter((x) => x.userId === user.id && x.items.some((i) => i.messageId === id)).map((x) => x.kind).sort();

/**
 * What is due now (the pushes) on the real clock first, as the nodes' own loops also do, until
 * none is left; only then the emails, with a clock past the batching period. A later clock
 * alone would take the nodes' own leases (taken on the real clock) for expired and send twice.
 */
async function sendAll(): Promise<void> {
  await Promise.all(ns.map((n) => n.runDue()));
  const db = c.nodes[0]!.app.ctx.store.db;
  await until(async () => (await db.selectFrom('missed_message_notification').select('id').where('kind', '=', 'push').execute()).length === 0);
  await Promise.all(ns.map((n) => n.runDue(now() + 1000)));
}

test('a queue polled on node 1 keeps its user from being away when node 2 decides; one node sends each', { skip }, async () => {
  const reg = await c.nodes[0]!.api('POST', '/api/v1/register', { as: bob, params: { event_types: JSON.stringify(['message']) } });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  assert.equal((await c.nodes[0]!.api('POST', '/api/v1/users/me/presence', { as: bob, params: { status: 'active' } })).status, 200);
  const id = await dm(1, bob, 'you are here');
  const toCarol = await dm(1, carol, 'you are away');
  await ns[1]!.decideNow();
  await ns[0]!.decideNow();
  await sendAll();
  assert.deepEqual(of(id, bob), ['push'], 'online push only: not away');
  assert.deepEqual(of(toCarol, carol), ['email', 'push'], 'each once, from one node or the other');
  // Deleting the queue makes Bob away again, wherever the next decision is made.
  assert.equal((await c.nodes[1]!.api('DELETE', '/api/v1/events', { as: bob, params: { queue_id: reg.body.queue_id } })).status, 200);
  const later = await dm(0, bob, 'gone now');
  await Promise.all(ns.map((n) => n.decideNow()));
  await sendAll();
  assert.deepEqual(of(later, bob), ['email', 'push']);
});
