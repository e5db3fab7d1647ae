/**
 * Incremental presence (feature level 263) across nodes: reports written on other nodes
 * reach a client's next `last_update_id` answer from its own node, each exactly once, with
 * no number skipped whatever order the nodes' patches arrive in.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clusterUnavailable, inProcessCluster, type InProcessCluster } from '../helpers/cluster.js';
import { httpClient, type TestUser } from '../helpers/app.js';
import { until } from '../helpers/until.js';

const skip = clusterUnavailable();
let c: InProcessCluster;
let urls: string[] = [];
let people: TestUser[] = [];

before(async () => {
  if (skip) return;
  c = await inProcessCluster(2, { featureLevel: 277 });
  urls = await Promise.all(c.nodes.map((n) => n.listen()));
  people = [];
  for (let i = 0; i < 5; i++) people.push(await c.nodes[0]!.createUser({ name: `Person ${i}` }));
});
after(async () => {
  if (!skip) await c.close();
});

const http = (i: number) => httpClient(() => urls[i]!);
const report = async (node: number, as: TestUser, params: Record<string, unknown> = {}) => {
  const r = await http(node)(as, 'POST', '/users/me/presence', { status: 'active', slim_presence: 'true', ...params });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};

test('writes on the other node reach the next incremental answer, once each', { skip }, async () => {
  const [reader, ...others] = people as [TestUser, ...TestUser[]];
  // The reader's node loads the organization's presence first, then others write elsewhere.
  const first = await report(0, reader, { last_update_id: -1 });
  let since = first.presence_last_update_id as number;
  assert.ok(since > 0);

  await Promise.all(others.map((u, i) => report(1, u, { status: i % 2 ? 'idle' : 'active' })));
  // Node 0 hears node 1's patches over the bus: wait until its answer has all four.
  const seen = new Set<string>();
  await until(async () => {
    const r = await report(0, reader, { last_update_id: since, ping_only: 'false' });
    for (const id of Object.keys(r.presences)) seen.add(id);
    assert.ok(r.presence_last_update_id >= since, 'the number never goes back');
    since = r.presence_last_update_id;
    return others.every((u) => seen.has(String(u.id)));
  }, { message: 'the other node\'s reports in node 0\'s incremental answer' });

  // Nothing new since: only the reader's own report, which is itself a write.
  const quiet = await report(0, reader, { last_update_id: since });
  assert.deepEqual(Object.keys(quiet.presences), [String(reader.id)]);
  assert.equal(quiet.presence_last_update_id, since + 1);

  // The same numbers on both nodes: node 1 answers the same increment for the same number.
  const fromNode1 = await report(1, others[0]!, { last_update_id: since + 1 });
  assert.deepEqual(Object.keys(fromNode1.presences), [String(others[0]!.id)]);
  assert.equal(fromNode1.presence_last_update_id, since + 2);
});
