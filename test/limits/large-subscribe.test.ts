import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { LIST_LIMITS } from '../../src/lib/limits.js';
import { pairBatches, BATCH_PAIRS } from '../../src/actions/subscription-request.js';
import type { StreamRow, UserRow } from '../../src/store/rows.js';

// Level 289: the subscribe answer keys users by id, not email.
const subKey = (u: { id: number; email: string }) => (FEATURE_LEVEL >= 289 ? String(u.id) : u.email);

const SUBS = '/api/v1/users/me/subscriptions';
const MAX = LIST_LIMITS.streams;
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
const names = Array.from({ length: MAX }, (_, i) => `big ${String(i).padStart(4, '0')}`);

before(async () => {
  t = await testApp();
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
});
after(() => t.close());

test('batches cover every pair once and stay within BATCH_PAIRS', () => {
  const streams = Array.from({ length: 237 }, (_, i) => ({ id: i }) as StreamRow);
  for (const userCount of [1, 3, 150, 401]) {
    const users = Array.from({ length: userCount }, (_, i) => ({ id: i }) as UserRow);
    const seen = new Set<string>();
    for (const [s, u] of pairBatches(streams, users)) {
      assert.ok(s.length * u.length <= BATCH_PAIRS);
      for (const x of s) for (const y of u) seen.add(`${x.id}:${y.id}`);
    }
    assert.equal(seen.size, streams.length * userCount);
  }
});

test(`creating ${MAX} streams and subscribing another user to all of them completes correctly, events after each commit`, async () => {
  // The owner creates the maximum in one request (and is subscribed to each).
  const made = assertOk(await t.api('POST', SUBS, { as: t.owner, params: { subscriptions: JSON.stringify(names.map((name) => ({ name }))) } }));
  assert.equal(made.subscribed[subKey(t.owner)].length, MAX);
  // Alice is in a few already.
  assertOk(await t.api('POST', SUBS, { as: alice, params: { subscriptions: JSON.stringify(names.slice(0, 3).map((name) => ({ name }))) } }));

  const log = new EventLog(t);
  const db = t.app.ctx.store.db;
  // At each event, what is committed: an event must never announce a row not yet stored.
  const checks: Array<Promise<[number, number]>> = [];
  t.app.ctx.bus.subscribe((e) => {
    const ev = e.event as any;
    if (ev.type === 'subscription' && ev.op === 'add' && e.userIds.includes(alice.id)) {
      const ids = ev.subscriptions.map((s: any) => s.stream_id as number);
      checks.push(db.selectFrom('subscription').select('stream_id').where('user_id', '=', alice.id).where('active', '=', 1)
        .where('stream_id', 'in', ids).execute().then((rows) => [rows.length, ids.length]));
    }
  });
  const r = assertOk(await t.api('POST', SUBS, { as: alice, params: { subscriptions: JSON.stringify(names.map((name) => ({ name }))) } }));
  assert.deepEqual(r.subscribed[subKey(alice)].sort(), names.slice(3));
  assert.deepEqual(r.already_subscribed[subKey(alice)].sort(), names.slice(0, 3));

  const mine = assertOk(await t.api('GET', SUBS, { as: alice }));
  assert.deepEqual(mine.subscriptions.map((s: any) => s.name).sort(), names);
  // Each new subscription announced to Alice once, and to its peers (the owner) once.
  const added = log.find('subscription', 'add').filter((e) => e.userIds.includes(alice.id)).flatMap((e) => (e.event as any).subscriptions.map((s: any) => s.name));
  assert.deepEqual(added.sort(), names.slice(3));
  const peerStreams = log.find('subscription', 'peer_add').filter((e) => e.userIds.includes(t.owner.id)).flatMap((e) => (e.event as any).stream_ids);
  assert.equal(new Set(peerStreams).size, MAX - 3);
  assert.ok(log.find('subscription', 'add').length > 1, 'the subscribe was written in several transactions');
  for (const [stored, announced] of await Promise.all(checks)) assert.equal(stored, announced);
  // Every color handed out, as for smaller requests.
  assert.ok(mine.subscriptions.every((s: any) => /^#[0-9a-f]{6}$/.test(s.color)));
});

test('streams × principals past the limit is refused before anything is written', async () => {
  const crowd = await t.createUsers(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`p${i}`, { name: `Crowd ${i}` }])) as Record<string, { name: string }>);
  const principals = JSON.stringify(Object.values(crowd).map((u) => u.id));
  const fresh = Array.from({ length: MAX }, (_, i) => ({ name: `never ${i}` }));
  assertError(await t.api('POST', SUBS, { as: t.owner, params: { subscriptions: JSON.stringify(fresh), principals } }),
    `Too many subscriptions at once: streams × users is limited to ${LIST_LIMITS.subscriptionPairs}`);
  assert.equal((await t.api('GET', '/api/v1/get_stream_id', { as: bob, query: { stream: 'never 0' } })).status, 400);
});

test(`unsubscribing from ${MAX} streams at once completes correctly, in batches`, async () => {
  const log = new EventLog(t);
  const r = assertOk(await t.api('DELETE', SUBS, { as: alice, params: { subscriptions: JSON.stringify(names) } }));
  assert.deepEqual(r.removed.sort(), names);
  assert.deepEqual(r.not_removed, []);
  const mine = assertOk(await t.api('GET', SUBS, { as: alice }));
  assert.deepEqual(mine.subscriptions, []);
  const gone = log.find('subscription', 'remove').filter((e) => e.userIds.includes(alice.id)).flatMap((e) => (e.event as any).subscriptions.map((s: any) => s.name));
  assert.deepEqual(gone.sort(), names);
  assert.ok(log.find('subscription', 'remove').length > 1);
});
