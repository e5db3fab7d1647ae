import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { subscribe } from '../helpers/streams.js';
import { uploadOne, fetchUpload } from '../helpers/multipart.js';
import { until } from '../helpers/until.js';
import { Role } from '../../src/lib/roles.js';

// Zulip 10's channel access model (levels 342/349/354): the members of a private channel's
// can_administer_channel_group, can_add_subscribers_group and can_subscribe_group see its
// metadata; those of the last two read its shared history without subscribing. Everyone
// else (guests in those groups included) still sees nothing; level 277 keeps the old rules.
const anon = (...users: TestUser[]) => ({ direct_members: users.map((u) => u.id), direct_subgroups: [] });

interface World {
  t: TestApp;
  admin: TestUser; subscriber: TestUser; adder: TestUser; joiner: TestUser; chanAdmin: TestUser; outsider: TestUser; guest: TestUser;
  id: number; mid: number; uri: string;
}

async function world(featureLevel: number, historyPublic = true): Promise<World> {
  const t = await testApp({ featureLevel });
  const admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const subscriber = await t.createUser({ name: 'Sue Subscriber' });
  const adder = await t.createUser({ name: 'Al Adder' });
  const joiner = await t.createUser({ name: 'Jo Joiner' });
  const chanAdmin = await t.createUser({ name: 'Cha Admin' });
  const outsider = await t.createUser({ name: 'Otto Outsider' });
  const guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  const id = await subscribe(t, subscriber, 'secret', { invite_only: true, history_public_to_subscribers: historyPublic });
  // The guest is in every group: guests never hold these settings.
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: {
    can_add_subscribers_group: JSON.stringify(anon(adder, guest)),
    can_subscribe_group: JSON.stringify(anon(joiner, guest)),
    can_administer_channel_group: JSON.stringify(anon(chanAdmin, guest)),
  } }));
  const uri = await uploadOne(t, subscriber, 'plan.txt', 'the plan');
  const mid = assertOk(await t.api('POST', '/api/v1/messages', { as: subscriber, params: { type: 'stream', to: id, topic: 'plans', content: `[plan](${uri})` } })).id;
  return { t, admin, subscriber, adder, joiner, chanAdmin, outsider, guest, id, mid, uri };
}

let w: World, old: World, protectedHistory: World;
before(async () => {
  w = await world(371);
  old = await world(277);
  protectedHistory = await world(371, false);
});
after(async () => { await w.t.close(); await old.t.close(); await protectedHistory.t.close(); });

const streamNames = async (x: World, as: TestUser, query: Record<string, unknown> = {}) =>
  assertOk(await x.t.api('GET', '/api/v1/streams', { as, query })).streams.map((s: { name: string }) => s.name) as string[];
const register = async (x: World, as: TestUser) => assertOk(await x.t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['subscription', 'stream'], include_subscribers: true } }));
const neverNames = (reg: { never_subscribed: Array<{ name: string }> }) => reg.never_subscribed.map((s) => s.name);

test('349: metadata access for the three groups\' members: GET /streams (include_all), GET /streams/{id}, members, register', async () => {
  for (const u of [w.adder, w.joiner, w.chanAdmin]) {
    assert.ok((await streamNames(w, u, { include_all: true })).includes('secret'), u.email);
    assert.equal(assertOk(await w.t.api('GET', `/api/v1/streams/${w.id}`, { as: u })).stream.name, 'secret');
    assert.deepEqual(assertOk(await w.t.api('GET', `/api/v1/streams/${w.id}/members`, { as: u })).subscribers, [w.subscriber.id]);
    const reg = await register(w, u);
    assert.ok(neverNames(reg).includes('secret'), u.email);
    assert.deepEqual(reg.never_subscribed.find((s: { name: string }) => s.name === 'secret').subscribers, [w.subscriber.id]);
    assert.ok(reg.streams.some((s: { name: string }) => s.name === 'secret'));
    // Metadata access alone does not list the stream by default (not subscribed, not public).
    assert.ok(!(await streamNames(w, u)).includes('secret'));
  }
  // Nobody else: an outsider, and a guest even though it is in every group.
  for (const u of [w.outsider, w.guest]) {
    assert.ok(!(await streamNames(w, u, { include_all: true })).includes('secret'), u.email);
    assertError(await w.t.api('GET', `/api/v1/streams/${w.id}`, { as: u }), 'Invalid stream id');
    assertError(await w.t.api('GET', `/api/v1/streams/${w.id}/members`, { as: u }), 'Invalid stream id');
    const reg = await register(w, u);
    assert.ok(!neverNames(reg).includes('secret'), u.email);
    assert.ok(!reg.streams.some((s: { name: string }) => s.name === 'secret'));
  }
});

test('349 not at 277: group members have no metadata access', async () => {
  for (const u of [old.adder, old.joiner, old.chanAdmin]) {
    assertError(await old.t.api('GET', `/api/v1/streams/${old.id}`, { as: u }), 'Invalid stream id');
    assert.ok(!neverNames(await register(old, u)).includes('secret'));
  }
});

test('349: stream events reach the members of the metadata-granting groups, nobody else', async () => {
  const log = new EventLog(w.t);
  const holders = [w.adder.id, w.joiner.id, w.chanAdmin.id];
  const strangers = [w.outsider.id, w.guest.id];
  // An update.
  assertOk(await w.t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.admin, params: { description: 'new words' } }));
  const upd = log.one('stream', 'update', (e) => e.event.property === 'description');
  for (const id of holders) assert.ok(upd.userIds.includes(id));
  for (const id of strangers) assert.ok(!upd.userIds.includes(id));
  // A new member of can_add_subscribers_group hears `stream create` (and its subscribers); leaving it, `stream delete`.
  log.clear();
  const late = await w.t.createUser({ name: 'Lee Late' });
  assertOk(await w.t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.admin, params: { can_add_subscribers_group: JSON.stringify({ new: anon(w.adder, w.guest, late), old: anon(w.adder, w.guest) }) } }));
  assert.deepEqual(log.one('stream', 'create').userIds, [late.id]);
  assert.deepEqual(log.one('subscription', 'peer_add').userIds, [late.id]);
  assert.ok(log.one('stream', 'update').userIds.includes(late.id));
  assert.ok(neverNames(await register(w, late)).includes('secret'));
  log.clear();
  assertOk(await w.t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.admin, params: { can_add_subscribers_group: JSON.stringify(anon(w.adder, w.guest)) } }));
  assert.deepEqual(log.one('stream', 'delete').userIds, [late.id]);
  assert.ok(!neverNames(await register(w, late)).includes('secret'));
  // Peers: a new subscriber is announced to the group members too.
  log.clear();
  const third = await w.t.createUser({ name: 'Thea Third' });
  assertOk(await w.t.api('POST', '/api/v1/users/me/subscriptions', { as: w.subscriber, params: { subscriptions: JSON.stringify([{ name: 'secret' }]), principals: JSON.stringify([third.id]) } }));
  const peer = log.one('subscription', 'peer_add');
  for (const id of holders) assert.ok(peer.userIds.includes(id));
  for (const id of strangers) assert.ok(!peer.userIds.includes(id));
  // Creation of a private stream with a group: its members hear of it; deletion likewise.
  log.clear();
  const created = assertOk(await w.t.api('POST', '/api/v1/users/me/subscriptions', { as: w.subscriber, params: {
    subscriptions: JSON.stringify([{ name: 'secret-two' }]), invite_only: true, can_add_subscribers_group: JSON.stringify(anon(w.adder, w.guest)) } }));
  assert.ok(created);
  // (The creator hears it in its own event, as a subscriber.)
  const creates = log.find('stream', 'create');
  const told = new Set(creates.flatMap((e) => e.userIds));
  assert.ok(told.has(w.adder.id));
  for (const id of [...strangers, w.joiner.id]) assert.ok(!told.has(id));
  const twoId = (creates[0]!.event.streams as Array<{ stream_id: number }>)[0]!.stream_id;
  log.clear();
  assertOk(await w.t.api('DELETE', `/api/v1/streams/${twoId}`, { as: w.admin }));
  await until(() => log.find('stream', 'delete').length > 0);
  const del = log.one('stream', 'delete');
  assert.ok(del.userIds.includes(w.adder.id));
  for (const id of strangers) assert.ok(!del.userIds.includes(id));
});

const narrowIds = async (x: World, as: TestUser) => {
  const r = await x.t.api('GET', '/api/v1/messages', { as, query: { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: x.id }]) } });
  return r.status === 200 ? (r.body.messages as Array<{ id: number }>).map((m) => m.id) : [];
};

test('354: can_add_subscribers_group / can_subscribe_group members read shared history without subscribing', async () => {
  for (const u of [w.adder, w.joiner]) {
    assert.deepEqual(await narrowIds(w, u), [w.mid], u.email);
    const got = assertOk(await w.t.api('GET', `/api/v1/messages/${w.mid}`, { as: u })).message;
    assert.equal(got.id, w.mid);
    assertOk(await w.t.api('GET', `/api/v1/messages/${w.mid}/read_receipts`, { as: u }));
    assert.equal((await fetchUpload(w.t, w.uri, u)).status, 200);
    assert.ok((await streamNames(w, u, { include_can_access_content: true })).includes('secret'));
    assertOk(await w.t.api('POST', `/api/v1/messages/${w.mid}/reactions`, { as: u, params: { emoji_name: 'smile' } }));
  }
});

test('354: metadata access alone, outsiders and guests in the groups read nothing', async () => {
  for (const u of [w.chanAdmin, w.outsider, w.guest]) {
    assert.deepEqual(await narrowIds(w, u), [], u.email);
    assertError(await w.t.api('GET', `/api/v1/messages/${w.mid}`, { as: u }), 'Invalid message(s)');
    assertError(await w.t.api('GET', `/api/v1/messages/${w.mid}/read_receipts`, { as: u }), 'Invalid message(s)');
    assert.notEqual((await fetchUpload(w.t, w.uri, u)).status, 200);
    assert.ok(!(await streamNames(w, u, { include_can_access_content: true })).includes('secret'));
    assertError(await w.t.api('POST', `/api/v1/messages/${w.mid}/reactions`, { as: u, params: { emoji_name: 'smile' } }), 'Invalid message(s)');
  }
});

test('354: protected history stays closed to the group members; at 277 group members read nothing', async () => {
  for (const x of [protectedHistory, old]) {
    for (const u of [x.adder, x.joiner]) {
      assert.deepEqual(await narrowIds(x, u), [], u.email);
      assertError(await x.t.api('GET', `/api/v1/messages/${x.mid}`, { as: u }), 'Invalid message(s)');
      assert.notEqual((await fetchUpload(x.t, x.uri, u)).status, 200);
    }
  }
});

test('349/354: a named group and its subgroups grant access; leaving the subgroup takes it away', async () => {
  const t = w.t;
  const nested = await t.createUser({ name: 'Nia Nested' });
  const inner = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: t.owner, params: { name: 'inner-371', description: 'i', members: JSON.stringify([nested.id]) } })).group_id as number;
  const outer = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: t.owner, params: { name: 'outer-371', description: 'o', members: JSON.stringify([]), subgroups: JSON.stringify([inner]) } })).group_id as number;
  const id = await subscribe(t, w.subscriber, 'nested-secret', { invite_only: true, history_public_to_subscribers: true });
  const mid = assertOk(await t.api('POST', '/api/v1/messages', { as: w.subscriber, params: { type: 'stream', to: id, topic: 't', content: 'deep' } })).id;
  assertError(await t.api('GET', `/api/v1/messages/${mid}`, { as: nested }), 'Invalid message(s)');
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: w.admin, params: { can_subscribe_group: outer } }));
  assert.equal(assertOk(await t.api('GET', `/api/v1/messages/${mid}`, { as: nested })).message.id, mid);
  assert.equal(assertOk(await t.api('GET', `/api/v1/streams/${id}`, { as: nested })).stream.name, 'nested-secret');
  assertError(await t.api('GET', `/api/v1/messages/${mid}`, { as: w.outsider }), 'Invalid message(s)');
  assertOk(await t.api('POST', `/api/v1/user_groups/${inner}/members`, { as: t.owner, params: { delete: JSON.stringify([nested.id]) } }));
  assertError(await t.api('GET', `/api/v1/messages/${mid}`, { as: nested }), 'Invalid message(s)');
  assertError(await t.api('GET', `/api/v1/streams/${id}`, { as: nested }), 'Invalid stream id');
});

test('349: a channel administrator edits a private channel\'s metadata without content access; others learn nothing', async () => {
  const t = w.t;
  assertOk(await t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.chanAdmin, params: { description: 'by the channel admin' } }));
  assertError(await t.api('GET', `/api/v1/messages/${w.mid}`, { as: w.chanAdmin }), 'Invalid message(s)');
  // Content access without administration: told so; no access at all (a guest in the group too): the stream is unknown.
  assertError(await t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.adder, params: { description: 'x' } }), 'You do not have permission to administer this channel.', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.outsider, params: { description: 'x' } }), 'Invalid stream id');
  assertError(await t.api('PATCH', `/api/v1/streams/${w.id}`, { as: w.guest, params: { description: 'x' } }), 'Invalid stream id');
});

test('349: a channel administrator unsubscribes others without content access; an outsider cannot', async () => {
  const t = w.t;
  const leaver = await t.createUser({ name: 'Lou Leaver' });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: w.subscriber, params: { subscriptions: JSON.stringify([{ name: 'secret' }]), principals: JSON.stringify([leaver.id]) } }));
  const remove = (as: TestUser) => t.api('DELETE', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: JSON.stringify(['secret']), principals: JSON.stringify([leaver.id]) } });
  assertError(await remove(w.outsider), "Stream 'secret' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'secret' });
  assertOk(await remove(w.chanAdmin));
  assert.ok(!assertOk(await t.api('GET', `/api/v1/streams/${w.id}/members`, { as: w.chanAdmin })).subscribers.includes(leaver.id));
});
