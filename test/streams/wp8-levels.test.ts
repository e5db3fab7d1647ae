import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams, setRealmSettings, subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';
import { until } from '../helpers/until.js';
import { Role } from '../../src/lib/roles.js';

// Streams and subscriptions between feature levels 136 and 256 (issue 31, WP8): each test
// names its level and, where the answer differs, checks 122 (the spec) beside 277.
let old: TestApp, now: TestApp;
const u = {} as Record<'alice' | 'bob' | 'guest' | 'admin', TestUser>;
const o = {} as Record<'alice' | 'bob' | 'admin', TestUser>;
let log: EventLog;

before(async () => {
  old = await testApp({ featureLevel: 122 });
  now = await testApp({ featureLevel: 277 });
  u.alice = await now.createUser({ name: 'Alice' });
  u.bob = await now.createUser({ name: 'Bob' });
  u.guest = await now.createUser({ name: 'Guest', role: Role.GUEST });
  u.admin = await now.createUser({ name: 'Admin', role: Role.ADMINISTRATOR });
  o.alice = await old.createUser({ name: 'Alice' });
  o.bob = await old.createUser({ name: 'Bob' });
  o.admin = await old.createUser({ name: 'Admin', role: Role.ADMINISTRATOR });
  await setRealmSettings(now, { enable_spectator_access: true });
  log = new EventLog(now);
});
after(async () => { await old.close(); await now.close(); });

// Lazy: the apps exist only once before() ran.
const api = (app: () => TestApp) => ({
  get: (as: TestUser, path: string, query: Record<string, unknown> = {}) => app().api('GET', `/api/v1${path}`, { as, query }),
  patch: (as: TestUser, path: string, params: Record<string, unknown>) => app().api('PATCH', `/api/v1${path}`, { as, params }),
  post: (as: TestUser, path: string, params: Record<string, unknown>) => app().api('POST', `/api/v1${path}`, { as, params }),
  del: (as: TestUser, path: string, params: Record<string, unknown>) => app().api('DELETE', `/api/v1${path}`, { as, params }),
});
const N = api(() => now);
const O = api(() => old);
const streamOf = async (t: TestApp, id: number) => assertOk(await t.api('GET', `/api/v1/streams/${id}`, { as: t.owner })).stream;

test('136: a public stream cannot get protected history; history_public_to_subscribers alone changes history', async () => {
  const pub = await subscribe(now, now.owner, 'wp8-136-public');
  assertError(await N.patch(now.owner, `/streams/${pub}`, { history_public_to_subscribers: false }), 'Invalid parameters');
  assert.equal((await streamOf(now, pub)).history_public_to_subscribers, true);
  const priv = await subscribe(now, now.owner, 'wp8-136-private', { invite_only: true });
  assert.equal((await streamOf(now, priv)).history_public_to_subscribers, false);
  log.clear();
  assertOk(await N.patch(now.owner, `/streams/${priv}`, { history_public_to_subscribers: true }));
  const s = await streamOf(now, priv);
  assert.equal(s.history_public_to_subscribers, true);
  assert.equal(s.invite_only, true);
  const ev = await until(() => log.find('stream', 'update', (e) => e.event.stream_id === priv)[0]);
  assert.equal(ev.event.history_public_to_subscribers, true);
  assert.equal(ev.event.value, true);
});

test('145: a user may unsubscribe the bots they own from 145, not other users; at 122 only administrators', async () => {
  const bot = await now.createBot(u.alice, { fullName: 'Alice Bot', shortName: 'alice-bot' });
  await subscribe(now, now.owner, 'wp8-145', { principals: [bot.id, u.bob.id, u.alice.id] });
  // From 161 the refusal is can_remove_subscribers_group's (Zulip's "Insufficient permission").
  assertError(await N.del(u.alice, '/users/me/subscriptions', { subscriptions: ['wp8-145'], principals: [bot.id, u.bob.id] }),
    'Insufficient permission', 'BAD_REQUEST');
  const r = assertOk(await N.del(u.alice, '/users/me/subscriptions', { subscriptions: ['wp8-145'], principals: [bot.id, u.alice.id] }));
  assert.deepEqual(r.removed, ['wp8-145', 'wp8-145']);
  // Someone else's bot stays out of reach.
  const bobBot = await now.createBot(u.bob, { fullName: 'Bob Bot', shortName: 'bob-bot' });
  await subscribe(now, now.owner, 'wp8-145', { principals: [bobBot.id] });
  assertError(await N.del(u.alice, '/users/me/subscriptions', { subscriptions: ['wp8-145'], principals: [bobBot.id] }),
    'Insufficient permission', 'BAD_REQUEST');
  const oldBot = await old.createBot(o.alice, { fullName: 'Old Bot', shortName: 'old-bot' });
  await subscribe(old, old.owner, 'wp8-145', { principals: [oldBot.id] });
  assertError(await O.del(o.alice, '/users/me/subscriptions', { subscriptions: ['wp8-145'], principals: [oldBot.id] }),
    'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertUnauthenticated(await now.api('DELETE', '/api/v1/users/me/subscriptions', { as: null, params: { subscriptions: ['wp8-145'] } }));
});

test('192: a guest subscribed to a new public stream hears stream create before subscription add; other guests nothing', async () => {
  const other = await now.createUser({ name: 'Other Guest', role: Role.GUEST });
  log.clear();
  const id = await subscribe(now, u.admin, 'wp8-192', { principals: [u.guest.id, u.admin.id] });
  const create = await until(() => log.find('stream', 'create', (e) => e.event.streams[0].stream_id === id && e.userIds.includes(u.guest.id))[0]);
  assert.deepEqual(create.userIds, [u.guest.id]);
  const toGuest = log.events.filter((e) => e.userIds.includes(u.guest.id) && ['stream', 'subscription'].includes(e.event.type)).map((e) => `${e.event.type}/${e.event.op}`);
  assert.deepEqual(toGuest.slice(0, 2), ['stream/create', 'subscription/add']);
  assert.ok(!log.recipientsMentioning(id).has(other.id));
  // Members heard of the public stream when it was made, not from their subscription.
  assert.ok(log.find('stream', 'create', (e) => e.event.streams[0].stream_id === id && e.userIds.includes(u.bob.id)).length === 1);
});

test('200: is_default_stream on PATCH /streams/{id}', async () => {
  const id = await subscribe(now, now.owner, 'wp8-200');
  const defaults = async () => assertOk(await N.get(now.owner, '/default_streams')).default_streams.map((s: any) => s.stream_id);
  assertOk(await N.patch(now.owner, `/streams/${id}`, { is_default_stream: true }));
  assert.ok((await defaults()).includes(id));
  assertError(await N.patch(now.owner, `/streams/${id}`, { is_private: true }), 'A default stream cannot be private.');
  // Private and no longer default, together: allowed.
  assertOk(await N.patch(now.owner, `/streams/${id}`, { is_private: true, is_default_stream: false }));
  assert.ok(!(await defaults()).includes(id));
  assert.equal((await streamOf(now, id)).invite_only, true);
  assertError(await N.patch(now.owner, `/streams/${id}`, { is_default_stream: true }), 'A default stream cannot be private.');
  // At 122 the spec's string for making a default stream private.
  const oid = await subscribe(old, old.owner, 'wp8-200');
  assertOk(await O.post(old.owner, '/default_streams', { stream_id: oid }));
  assertError(await O.patch(old.owner, `/streams/${oid}`, { is_private: true }), 'Default streams cannot be made private.');
});

test('200: is_default_stream on POST /users/me/subscriptions makes the created streams default', async () => {
  await subscribe(now, now.owner, 'wp8-200-existing');
  log.clear();
  assertOk(await N.post(u.admin, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-200-new' }, { name: 'wp8-200-existing' }], is_default_stream: true }));
  const names = assertOk(await N.get(now.owner, '/default_streams')).default_streams.map((s: any) => s.name);
  assert.ok(names.includes('wp8-200-new'));
  assert.ok(!names.includes('wp8-200-existing'));
  const ev = await until(() => log.find('default_streams')[0]);
  assert.ok(ev.event.default_streams.some((s: any) => s.name === 'wp8-200-new'));
  assert.ok(ev.userIds.includes(u.bob.id) && !ev.userIds.includes(u.guest.id));
  assertError(await N.post(u.alice, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-200-x' }], is_default_stream: true }), 'Insufficient permission');
  assertError(await N.post(u.admin, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-200-y' }], is_default_stream: true, invite_only: true }),
    'A default stream cannot be private.');
});

test('205: register gives guests the web-public streams', async () => {
  const web = await subscribe(now, now.owner, 'wp8-205-web', { is_web_public: true });
  const pub = await subscribe(now, now.owner, 'wp8-205-public');
  const reg = assertOk(await N.post(u.guest, '/register', { fetch_event_types: ['stream'] }));
  const ids = reg.streams.map((s: any) => s.stream_id);
  assert.ok(ids.includes(web));
  assert.ok(!ids.includes(pub));
});

test('205: a role change sends the user stream create (with peer_add) and stream delete for what it shows and hides', async () => {
  const [member, sub] = [await now.createUser({ name: 'Role Member' }), await now.createUser({ name: 'Role Subscriber' })];
  const { 'wp8-205-pub': pub, 'wp8-205-priv': priv } = await createStreams(now, {
    'wp8-205-pub': [sub], 'wp8-205-priv': { inviteOnly: true, subscribers: [sub] },
  });
  log.clear();
  assertOk(await N.patch(now.owner, `/users/${member.id}`, { role: Role.GUEST }));
  const del = await until(() => log.find('stream', 'delete', (e) => e.userIds.includes(member.id))[0]);
  assert.deepEqual(del.userIds, [member.id]);
  const gone = del.event.streams.map((s: any) => s.stream_id);
  assert.ok(gone.includes(pub.id) && !gone.includes(priv.id));
  assert.deepEqual(del.event.stream_ids, gone);
  log.clear();
  assertOk(await N.patch(now.owner, `/users/${member.id}`, { role: Role.ADMINISTRATOR }));
  const create = await until(() => log.find('stream', 'create', (e) => e.userIds.includes(member.id))[0]);
  assert.deepEqual(create.userIds, [member.id]);
  const got = create.event.streams.map((s: any) => s.stream_id);
  assert.ok(got.includes(pub.id) && got.includes(priv.id));
  for (const s of [pub, priv]) {
    const peer = log.one('subscription', 'peer_add', (e) => e.event.stream_ids[0] === s.id);
    assert.deepEqual(peer.userIds, [member.id]);
    assert.deepEqual(peer.event.user_ids, [sub.id]);
  }
  // And a fresh register agrees with what the events said.
  const reg = assertOk(await N.post(member, '/register', { fetch_event_types: ['stream'] }));
  const ids = reg.streams.map((s: any) => s.stream_id);
  assert.ok(ids.includes(pub.id) && ids.includes(priv.id));
});

test('208: unknown or deactivated principals are 400 BAD_REQUEST from 208, 403 UNAUTHORIZED_PRINCIPAL at 122', async () => {
  const gone = await now.createUser({ name: 'Gone' });
  assertOk(await now.api('DELETE', `/api/v1/users/${gone.id}`, { as: now.owner }));
  await subscribe(now, now.owner, 'wp8-208');
  assertError(await N.post(now.owner, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-208' }], principals: [999999] }), 'No such user');
  assertError(await N.post(now.owner, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-208' }], principals: ['nobody@nowhere.test'] }), 'No such user');
  assertError(await N.post(now.owner, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-208' }], principals: [gone.id] }), 'User is deactivated');
  assertError(await N.del(now.owner, '/users/me/subscriptions', { subscriptions: ['wp8-208'], principals: [gone.id] }), 'User is deactivated');
  assertError(await N.del(now.owner, '/users/me/subscriptions', { subscriptions: ['wp8-208'], principals: [gone.id, 999999] }), 'No such user');
  await subscribe(old, old.owner, 'wp8-208');
  assertError(await O.post(old.owner, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-208' }], principals: [999999] }),
    "User not authorized to execute queries on behalf of '999999'", 'UNAUTHORIZED_PRINCIPAL', 403, { principal: 999999 });
});

test('220: web-public stream create to every guest; peer events to guests who may see the members', async () => {
  const other = await now.createUser({ name: 'Peer Guest', role: Role.GUEST });
  log.clear();
  const web = await subscribe(now, now.owner, 'wp8-220-web', { is_web_public: true });
  const create = await until(() => log.find('stream', 'create', (e) => e.event.streams[0].stream_id === web)[0]);
  assert.ok(create.userIds.includes(u.guest.id) && create.userIds.includes(other.id));
  const pub = await subscribe(now, now.owner, 'wp8-220-public', { principals: [now.owner.id, u.guest.id] });
  log.clear();
  assertOk(await N.post(now.owner, '/users/me/subscriptions', { subscriptions: [{ name: 'wp8-220-web' }, { name: 'wp8-220-public' }], principals: [u.bob.id] }));
  const webPeer = await until(() => log.find('subscription', 'peer_add', (e) => e.event.stream_ids[0] === web)[0]);
  assert.ok(webPeer.userIds.includes(other.id) && webPeer.userIds.includes(u.guest.id));
  const pubPeer = await until(() => log.find('subscription', 'peer_add', (e) => e.event.stream_ids[0] === pub)[0]);
  assert.ok(pubPeer.userIds.includes(u.guest.id));
  assert.ok(!pubPeer.userIds.includes(other.id));
  log.clear();
  assertOk(await N.del(now.owner, '/users/me/subscriptions', { subscriptions: ['wp8-220-web', 'wp8-220-public'], principals: [u.bob.id] }));
  const webRemove = await until(() => log.find('subscription', 'peer_remove', (e) => e.event.stream_ids[0] === web)[0]);
  assert.ok(webRemove.userIds.includes(other.id));
  const pubRemove = await until(() => log.find('subscription', 'peer_remove', (e) => e.event.stream_ids[0] === pub)[0]);
  assert.ok(pubRemove.userIds.includes(u.guest.id) && !pubRemove.userIds.includes(other.id));
});

test('226: subscription objects lose email_address from 226 (answers); events and 122 keep it', async () => {
  await subscribe(now, u.alice, 'wp8-226');
  await subscribe(old, o.alice, 'wp8-226');
  const nowSubs = assertOk(await N.get(u.alice, '/users/me/subscriptions')).subscriptions;
  assert.ok(nowSubs.length > 0 && nowSubs.every((s: any) => !('email_address' in s)));
  const nowReg = assertOk(await N.post(u.alice, '/register', { fetch_event_types: ['subscription'] }));
  assert.ok([...nowReg.subscriptions, ...nowReg.unsubscribed].every((s: any) => !('email_address' in s)));
  const oldSubs = assertOk(await O.get(o.alice, '/users/me/subscriptions')).subscriptions;
  assert.ok(oldSubs.length > 0 && oldSubs.every((s: any) => typeof s.email_address === 'string'));
  const email = assertOk(await N.get(u.alice, `/streams/${nowSubs[0].stream_id}/email_address`)).email;
  assert.match(email, /@/);
});

test('254: creator_id on stream and subscription objects from 254; null for streams made without a creator', async () => {
  log.clear();
  const id = await subscribe(now, u.alice, 'wp8-254');
  assert.equal((await streamOf(now, id)).creator_id, u.alice.id);
  const sub = assertOk(await N.get(u.alice, '/users/me/subscriptions')).subscriptions.find((s: any) => s.stream_id === id);
  assert.equal(sub.creator_id, u.alice.id);
  const ev = await until(() => log.find('stream', 'create', (e) => e.event.streams[0].stream_id === id)[0]);
  assert.equal(ev.event.streams[0].creator_id, u.alice.id);
  const { 'wp8-254-system': sys } = await createStreams(now, { 'wp8-254-system': [u.alice] });
  assert.equal((await streamOf(now, sys.id)).creator_id, null);
  const listed = assertOk(await N.get(u.alice, '/streams')).streams;
  assert.ok(listed.every((s: any) => 'creator_id' in s));
  const oid = await subscribe(old, o.alice, 'wp8-254');
  assert.ok(!('creator_id' in (await streamOf(old, oid))));
  const oldReg = assertOk(await O.post(o.alice, '/register', { fetch_event_types: ['stream', 'subscription'] }));
  assert.ok([...oldReg.streams, ...oldReg.subscriptions].every((s: any) => !('creator_id' in s)));
});

test('256: deleting a topic holding the first message sends stream update first_message_id', async () => {
  const id = await subscribe(now, now.owner, 'wp8-256', { principals: [now.owner.id, u.bob.id] });
  const send = async (topic: string) => assertOk(await N.post(now.owner, '/messages', { type: 'stream', to: id, topic, content: 'hi' })).id as number;
  const first = await send('old');
  const second = await send('new');
  assert.equal((await streamOf(now, id)).first_message_id, first);
  log.clear();
  assertOk(await N.post(now.owner, `/streams/${id}/delete_topic`, { topic_name: 'old' }));
  const ev = await until(() => log.find('stream', 'update', (e) => e.event.stream_id === id && e.event.property === 'first_message_id')[0]);
  assert.equal(ev.event.value, second);
  assert.ok(ev.userIds.includes(u.bob.id) && ev.userIds.includes(u.alice.id) && !ev.userIds.includes(u.guest.id));
  assert.equal((await streamOf(now, id)).first_message_id, second);
  log.clear();
  assertOk(await now.api('DELETE', `/api/v1/messages/${second}`, { as: now.owner }));
  const last = await until(() => log.find('stream', 'update', (e) => e.event.stream_id === id && e.event.property === 'first_message_id')[0]);
  assert.equal(last.event.value, null);
});
