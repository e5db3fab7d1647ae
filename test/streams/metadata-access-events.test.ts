import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { subscribe } from '../helpers/streams.js';
import { until } from '../helpers/until.js';
import { Role } from '../../src/lib/roles.js';
import { validateEvent } from '../../src/events/schemas.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';

// Level 349: joining or leaving a user group that grants metadata access to a private
// channel (here through can_subscribe_group) gives `stream create` / `stream delete` to
// those whose sight of the channel changes, and to nobody who sees it otherwise.

interface World {
  t: TestApp; log: EventLog;
  admin: TestUser; subscriber: TestUser; member: TestUser; nested: TestUser; other: TestUser;
  streamId: number; group: number; inner: number;
}

async function world(featureLevel: number): Promise<World> {
  const t = await testApp({ featureLevel });
  const admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const subscriber = await t.createUser({ name: 'Sue Subscriber' });
  const member = await t.createUser({ name: 'Mo Member' });
  const nested = await t.createUser({ name: 'Ned Nested' });
  const other = await t.createUser({ name: 'Otto Other' });
  const streamId = await subscribe(t, subscriber, 'vault', { invite_only: true, history_public_to_subscribers: true });
  // By name: the create answer names the group only from level 317.
  const create = async (name: string, ids: number[]) => {
    assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: t.owner, params: { name, description: name, members: JSON.stringify(ids) } }));
    return (assertOk(await t.api('GET', '/api/v1/user_groups', { as: t.owner })).user_groups as Array<{ id: number; name: string }>).find((g) => g.name === name)!.id;
  };
  const group = await create('keyholders', []);
  const inner = await create('inner', [nested.id]);
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { can_subscribe_group: JSON.stringify(group) } }));
  return { t, log: new EventLog(t), admin, subscriber, member, nested, other, streamId, group, inner };
}

let w: World;
let old: World;
before(async () => { w = await world(371); old = await world(277); });
after(async () => { await w.t.close(); await old.t.close(); });

const members = (x: World, group: number, params: Record<string, unknown>) => async () =>
  assertOk(await x.t.api('POST', `/api/v1/user_groups/${group}/members`, { as: x.t.owner, params }));
const subgroups = (x: World, group: number, params: Record<string, unknown>) => async () =>
  assertOk(await x.t.api('POST', `/api/v1/user_groups/${group}/subgroups`, { as: x.t.owner, params }));

/** Runs the change and answers the stream create/delete envelopes it published. */
async function streamEvents(x: World, action: () => Promise<unknown>, groupOp: string) {
  x.log.clear();
  await action();
  await until(() => x.log.find('user_group', groupOp).length > 0);
  return { create: x.log.find('stream', 'create'), del: x.log.find('stream', 'delete'), peer: x.log.find('subscription', 'peer_add') };
}

test('349: a member added to a granting group gets stream create (as register shows the stream), removed gets stream delete; nobody else', async () => {
  const added = await streamEvents(w, members(w, w.group, { add: JSON.stringify([w.member.id]) }), 'add_members');
  assert.equal(added.create.length, 1);
  assert.equal(added.del.length, 0);
  assert.deepEqual(added.create[0]!.userIds, [w.member.id]);
  const shown = added.create[0]!.event.streams as Array<Record<string, unknown>>;
  assert.deepEqual(shown.map((s) => s.stream_id), [w.streamId]);
  // The stream as the member now sees it from GET /streams/{id}.
  const fetched = assertOk(await w.t.api('GET', `/api/v1/streams/${w.streamId}`, { as: w.member })).stream as Record<string, unknown>;
  for (const [k, v] of Object.entries(fetched)) if (k !== 'stream_weekly_traffic' && k !== 'subscriber_count') assert.deepEqual(shown[0]![k], v, k);
  // And who is subscribed, as for anyone who gains sight of a stream.
  assert.deepEqual(added.peer.map((e) => [e.userIds, e.event.user_ids]), [[[w.member.id], [w.subscriber.id]]]);

  const removed = await streamEvents(w, members(w, w.group, { delete: JSON.stringify([w.member.id]) }), 'remove_members');
  assert.equal(removed.create.length, 0);
  assert.equal(removed.del.length, 1);
  assert.deepEqual(removed.del[0]!.userIds, [w.member.id]);
  assert.deepEqual(removed.del[0]!.event.stream_ids, [w.streamId]);
  assert.deepEqual((removed.del[0]!.event.streams as Array<{ stream_id: number }>).map((s) => s.stream_id), [w.streamId]);
});

test('349: users who see the channel otherwise (subscribed, administrator) hear no stream event', async () => {
  const added = await streamEvents(w, members(w, w.group, { add: JSON.stringify([w.subscriber.id, w.admin.id]) }), 'add_members');
  assert.deepEqual([added.create.length, added.del.length, added.peer.length], [0, 0, 0]);
  const removed = await streamEvents(w, members(w, w.group, { delete: JSON.stringify([w.subscriber.id, w.admin.id]) }), 'remove_members');
  assert.deepEqual([removed.create.length, removed.del.length], [0, 0]);
});

test('349: a subgroup joining or leaving the granting group gives its members create / delete', async () => {
  const added = await streamEvents(w, subgroups(w, w.group, { add: JSON.stringify([w.inner]) }), 'add_subgroups');
  assert.deepEqual(added.create.map((e) => e.userIds), [[w.nested.id]]);
  assert.equal(added.del.length, 0);
  const removed = await streamEvents(w, subgroups(w, w.group, { delete: JSON.stringify([w.inner]) }), 'remove_subgroups');
  assert.deepEqual(removed.del.map((e) => e.userIds), [[w.nested.id]]);
  assert.equal(removed.create.length, 0);
});

test('277: group membership gives no channel access, so no stream event', async () => {
  const added = await streamEvents(old, members(old, old.group, { add: JSON.stringify([old.member.id]) }), 'add_members');
  assert.deepEqual([added.create.length, added.del.length, added.peer.length], [0, 0, 0]);
  const removed = await streamEvents(old, members(old, old.group, { delete: JSON.stringify([old.member.id]) }), 'remove_members');
  assert.deepEqual([removed.create.length, removed.del.length], [0, 0]);
});

// The guard (test/events/guard.test.ts): register state plus the events equals a fresh register.
const COMPARED = ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams', 'realm_user_groups'];
const REGISTER = { include_subscribers: true, client_capabilities: { notification_settings_null: true, bulk_message_deletion: true, user_settings_object: true, stream_typing_notifications: true } };

function normalize(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of COMPARED) {
    let v = structuredClone(state[key]);
    if (Array.isArray(v)) {
      const key = (x: Record<string, unknown>) => Number(x.stream_id ?? x.id ?? 0);
      v = v.map((x: Record<string, unknown>) => { const { stream_weekly_traffic: _w, ...rest } = x; return rest; })
        .sort((a: Record<string, unknown>, b: Record<string, unknown>) => key(a) - key(b));
    }
    out[key] = v;
  }
  return out;
}

async function guard(x: World, label: string, as: TestUser, action: () => Promise<unknown>): Promise<Array<Record<string, unknown> & { type: string }>> {
  const reg = assertOk(await x.t.api('POST', '/api/v1/register', { as, params: REGISTER }));
  await action();
  const events: Array<Record<string, unknown> & { type: string }> = [];
  let last = -1;
  // Up to the group event and what follows it in the same commit.
  await until(async () => {
    const polled = assertOk(await x.t.api('GET', '/api/v1/events', { as, params: { queue_id: reg.queue_id, last_event_id: last, dont_block: true } }));
    for (const e of polled.events as Array<Record<string, unknown> & { type: string; id: number }>) { events.push(e); last = e.id; }
    return events.some((e) => e.type === 'user_group');
  });
  for (const e of events) {
    assert.deepEqual(validateEvent(e), [], `${label}: ${JSON.stringify(e).slice(0, 400)}`);
    applyEvent(reg, e as unknown as ClientEvent, as.id);
  }
  const fresh = assertOk(await x.t.api('POST', '/api/v1/register', { as, params: REGISTER }));
  assert.deepEqual(normalize(reg), normalize(fresh), `${label}: state after events differs from a fresh register`);
  return events;
}

test('349 guard: state plus the events equals a fresh register, for a joining and leaving member and subgroup', async () => {
  const types = (es: Array<{ type: string; op?: unknown }>) => es.map((e) => `${e.type}/${String(e.op)}`);
  assert.ok(types(await guard(w, 'join', w.member, members(w, w.group, { add: JSON.stringify([w.member.id]) }))).includes('stream/create'));
  assert.ok(types(await guard(w, 'leave', w.member, members(w, w.group, { delete: JSON.stringify([w.member.id]) }))).includes('stream/delete'));
  assert.ok(types(await guard(w, 'subgroup joins', w.nested, subgroups(w, w.group, { add: JSON.stringify([w.inner]) }))).includes('stream/create'));
  assert.ok(types(await guard(w, 'subgroup leaves', w.nested, subgroups(w, w.group, { delete: JSON.stringify([w.inner]) }))).includes('stream/delete'));
  // Someone who sees the channel anyway: state stays right and no stream event comes.
  const sub = await guard(w, 'subscriber joins', w.subscriber, members(w, w.group, { add: JSON.stringify([w.subscriber.id]) }));
  assert.ok(!types(sub).some((s) => s.startsWith('stream/')));
  const subLeft = await guard(w, 'subscriber leaves', w.subscriber, members(w, w.group, { delete: JSON.stringify([w.subscriber.id]) }));
  assert.ok(!types(subLeft).some((s) => s.startsWith('stream/')));
});

test('349: a group granting access, directly or as a subgroup, cannot be deactivated, so deactivation never changes access', async () => {
  await subgroups(w, w.group, { add: JSON.stringify([w.inner]) })();
  w.log.clear();
  for (const g of [w.group, w.inner]) {
    const r = await w.t.api('POST', `/api/v1/user_groups/${g}/deactivate`, { as: w.t.owner });
    assert.equal(r.body.msg, 'Cannot deactivate user group in use.');
  }
  assert.deepEqual(w.log.find('stream'), []);
  await subgroups(w, w.group, { delete: JSON.stringify([w.inner]) })();
});

test('349 guard: role:fullmembers granting access follows the waiting period (PATCH /realm), with delete then create', async () => {
  const system = (assertOk(await w.t.api('GET', '/api/v1/user_groups', { as: w.t.owner })).user_groups as Array<{ id: number; name: string }>);
  const full = system.find((g) => g.name === 'role:fullmembers')!.id;
  const id = await subscribe(w.t, w.subscriber, 'full-vault', { invite_only: true });
  assertOk(await w.t.api('PATCH', `/api/v1/streams/${id}`, { as: w.t.owner, params: { can_subscribe_group: JSON.stringify(full) } }));
  const realm = (waiting_period_threshold: number) => async () => assertOk(await w.t.api('PATCH', '/api/v1/realm', { as: w.t.owner, params: { waiting_period_threshold } }));
  const lost = await guard(w, 'waiting period starts', w.other, realm(10));
  assert.deepEqual(lost.filter((e) => e.type === 'stream').map((e) => [e.op, e.stream_ids]), [['delete', [id]]]);
  const regained = await guard(w, 'waiting period ends', w.other, realm(0));
  assert.deepEqual(regained.filter((e) => e.type === 'stream').map((e) => [e.op, (e.streams as Array<{ stream_id: number }>).map((s) => s.stream_id)]), [['create', [id]]]);
});
