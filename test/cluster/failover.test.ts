import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clusterUnavailable } from '../helpers/cluster.js';
import { basic, createPgDatabase, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startNodeProcess, type NodeProcess } from '../helpers/node-process.js';
import { until } from '../helpers/until.js';
import { untilParked } from '../helpers/events.js';

const skip = clusterUnavailable();
let redis: RedisServer;
let a: TestApp;
let aUrl: string;
let b: NodeProcess, c: NodeProcess;
let alice: TestUser;
const readers: TestUser[] = [];
let dbUrl: string;

before(async () => {
  if (skip) return;
  redis = await startRedis();
  const databaseUrl = dbUrl = await createPgDatabase();
  a = await testApp({ databaseUrl, redisUrl: redis.url });
  aUrl = await a.listen();
  [b, c] = await Promise.all([startNodeProcess(databaseUrl, redis.url), startNodeProcess(databaseUrl, redis.url)]);
  alice = await a.createUser({ name: 'Alice' });
  for (let i = 0; i < 4; i++) readers.push(await a.createUser({ name: `Reader ${i}` }));
});
after(async () => {
  if (skip) return;
  await b?.kill();
  await c?.kill();
  await a?.close();
  await redis?.stop();
});

async function call(base: string, as: TestUser, method: string, path: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<{ status: number; body: any }> {
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) usp.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  const get = method === 'GET';
  const res = await fetch(`${base}/api/v1${path}${get ? `?${usp}` : ''}`, {
    method, signal,
    headers: { authorization: basic(as.email, as.apiKey), ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    ...(get ? {} : { body: usp.toString() }),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * A client that long-polls its queue on `nodes[0]` and, when that node stops answering,
 * goes on with the next one (as a load balancer would send it), keeping its queue id and
 * last event id. It checks that event ids follow one another with no gap or repeat.
 */
function follow(user: TestUser, queueId: string, nodes: string[]) {
  const got: number[] = [];
  const abort = new AbortController();
  let at = 0;
  let failure: unknown;
  let last = -1;
  const run = (async () => {
    while (!abort.signal.aborted) {
      let r: { status: number; body: any };
      try {
        r = await call(nodes[at]!, user, 'GET', '/events', { queue_id: queueId, last_event_id: last }, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) return;
        if (at + 1 >= nodes.length) throw err;
        at += 1; // this node is gone: the next one answers for the same queue
        continue;
      }
      assert.equal(r.status, 200, JSON.stringify(r.body));
      for (const e of r.body.events) {
        assert.equal(e.id, last + 1, `event ids follow one another (${JSON.stringify(r.body.events.map((x: any) => x.id))} after ${last})`);
        last = e.id;
        if (e.type === 'message') got.push(e.message.id);
      }
    }
  })().catch((err: unknown) => {
    failure = err;
  });
  return {
    got, node: () => at, last: () => last,
    check: () => {
      if (failure) throw failure;
    },
    stop: async () => {
      abort.abort();
      await run;
    },
  };
}

test('SIGKILL of a node under a steady stream of sends: nothing acknowledged is lost, and its queues go on elsewhere', { skip, timeout: 120_000 }, async () => {
  // Every reader's queue lives on node B; their clients poll B until it dies, then C.
  const followers = [];
  for (const r of readers) {
    const reg = await call(b.url, r, 'POST', '/register', { event_types: ['message'] });
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    followers.push(follow(r, reg.body.queue_id, [b.url, c.url]));
  }
  const to = JSON.stringify(readers.map((r) => r.id));
  const acked: number[] = [];
  const targets = [aUrl, b.url, c.url];
  let killed = false;
  for (let i = 0; acked.length < 120; i++) {
    if (acked.length === 40 && !killed) {
      killed = true;
      await b.kill();
    }
    const target = targets[i % 3]!;
    if (killed && target === b.url) continue;
    try {
      const r = await call(target, alice, 'POST', '/messages', { type: 'private', to, content: `steady ${i}` });
      if (r.status === 200) acked.push(r.body.id);
    } catch {
      /* a send to the dying node may fail unacknowledged: only acknowledged ones must survive */
    }
    for (const f of followers) f.check();
  }
  for (const f of followers) {
    await until(() => {
      f.check();
      return acked.every((id) => f.got.includes(id));
    }, { timeoutMs: 30_000, message: () => `every acknowledged message to reach a queue (missing ${acked.filter((id) => !f.got.includes(id)).length}); ${c.output()}` });
  }
  for (const f of followers) await f.stop();
  for (const f of followers) {
    f.check();
    assert.equal(f.node(), 1, 'the client moved to the surviving node');
    assert.equal(new Set(f.got).size, f.got.length, 'no message event twice');
    // In the order they were sent (one after another), unacknowledged ones aside.
    assert.deepEqual(f.got.filter((id) => acked.includes(id)), acked);
  }
  // And every acknowledged message is stored.
  const stored = await call(c.url, readers[0]!, 'GET', '/messages', { anchor: 'newest', num_before: 500, num_after: 0, narrow: [] });
  const ids = new Set(stored.body.messages.map((m: any) => m.id));
  assert.deepEqual(acked.filter((id) => !ids.has(id)), []);
});

test('a Redis restart: nodes reconnect, and sends made meanwhile are stored and delivered', { skip, timeout: 120_000 }, async () => {
  const r0 = readers[0]!;
  const reg = await call(c.url, r0, 'POST', '/register', { event_types: ['message'] });
  const f = follow(r0, reg.body.queue_id, [c.url]);
  const to = JSON.stringify([r0.id]);
  const before = await call(aUrl, alice, 'POST', '/messages', { type: 'private', to, content: 'before the restart' });
  await redis.kill();
  // Sends during the outage are stored, and answered once the bus has them again.
  const during = [call(aUrl, alice, 'POST', '/messages', { type: 'private', to, content: 'during' }),
    call(c.url, alice, 'POST', '/messages', { type: 'private', to, content: 'during, on C' })];
  // Node A's send is stored and waits for the bus.
  await until(() => a.app.ctx.bus.unsettled, { message: 'a send on node A to wait for Redis' });
  await redis.start();
  const answered = await Promise.all(during);
  for (const r of answered) assert.equal(r.status, 200, JSON.stringify(r.body));
  const after = await call(c.url, alice, 'POST', '/messages', { type: 'private', to, content: 'after the restart' });
  const expected = [before.body.id, ...answered.map((r) => r.body.id), after.body.id];
  await until(() => {
    f.check();
    return expected.every((id) => f.got.includes(id));
  }, { timeoutMs: 30_000, message: () => `events after the Redis restart: got ${JSON.stringify(f.got)}, expected ${JSON.stringify(expected)}` });
  await f.stop();
  f.check();
  assert.equal(new Set(f.got).size, f.got.length);
  // Redis restarted empty; once the client has acknowledged everything, C saves the queue
  // again, and another node can answer for it.
  const moved = await until(async () => {
    const r = await call(aUrl, r0, 'GET', '/events', { queue_id: reg.body.queue_id, last_event_id: f.last(), dont_block: true });
    return r.status === 200 ? r : undefined;
  }, { message: 'the queue to be answerable on another node after the Redis restart' });
  assert.deepEqual(moved.body.events, []);
});

test('a node stopped gracefully hands its parked polls to the others, with no restart event', { skip, timeout: 120_000 }, async () => {
  // An in-process node, so that the test can see its poll parked before stopping it the way SIGTERM does.
  const d = await testApp({ databaseUrl: dbUrl, redisUrl: redis.url });
  const dUrl = await d.listen();
  const r1 = readers[1]!;
  const reg = await call(dUrl, r1, 'POST', '/register', {});
  const queueId = reg.body.queue_id;
  const parked = call(dUrl, r1, 'GET', '/events', { queue_id: queueId, last_event_id: -1 });
  await untilParked(d.app.ctx, queueId, r1.id);
  const stopping = d.close();
  const answered = await parked;
  assert.deepEqual([answered.status, answered.body.events], [200, []]);
  await stopping;
  // The client's next poll, answered by A, continues the queue: a message sent now arrives, and no restart.
  const sent = await call(aUrl, alice, 'POST', '/messages', { type: 'private', to: JSON.stringify([r1.id]), content: 'after D stopped' });
  const next = await until(async () => {
    const r = await call(aUrl, r1, 'GET', '/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.events.some((e: any) => e.type === 'message') ? r.body.events : undefined;
  });
  assert.deepEqual(next.filter((e: any) => e.type === 'restart'), []);
  assert.equal(next.find((e: any) => e.type === 'message').message.id, sent.body.id);
});
