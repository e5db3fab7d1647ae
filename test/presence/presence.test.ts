import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { EventLog } from '../helpers/events.js';
import { untilEpochShows } from '../helpers/epoch.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let log: EventLog;
const presenceEvents = () => log.find('presence');

before(async () => {
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { name: 'Alice' }, bob: { name: 'Bob' } }));
  log = new EventLog(t);
});
after(() => t.close());
beforeEach(() => log.clear());

const setPresenceTimes = (userId: number, active: number, connected: number) =>
  t.app.ctx.store.db.updateTable('user_presence').set({ last_active_time: active, last_connected_time: connected }).where('user_id', '=', userId).execute();

test('POST /users/me/presence records the client and answers the realm presences keyed by email', async () => {
  const r = await t.api('POST', '/api/v1/users/me/presence', { as: alice, params: { status: 'active' }, headers: { 'user-agent': 'ZulipTerminal/0.7.0 Linux' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(typeof r.body.server_timestamp, 'number');
  const mine = r.body.presences[alice.email];
  assert.equal(mine.aggregated.status, 'active');
  // From level 178 the server keeps no client: the legacy format names every entry `website`.
  const client = FEATURE_LEVEL >= 178 ? 'website' : 'ZulipTerminal';
  assert.equal(mine.aggregated.client, client);
  assert.deepEqual(Object.keys(mine).sort(), [client, 'aggregated'].sort());
  assert.deepEqual(Object.keys(mine[client]).sort(), ['client', 'pushable', 'status', 'timestamp']);
  assert.equal(mine[client].pushable, false);
  assert.equal(r.body.presences[bob.email], undefined, 'users who never reported are absent');
});

test('slim_presence keys by user id; ping_only answers without presences', async () => {
  const slim = await t.api('POST', '/api/v1/users/me/presence', { as: alice, params: { status: 'active', slim_presence: true } });
  assert.ok(slim.body.presences[String(alice.id)]);
  assert.equal(slim.body.presences[alice.email], undefined);
  const ping = await t.api('POST', '/api/v1/users/me/presence', { as: alice, params: { status: 'idle', ping_only: true } });
  assert.deepEqual(ping.body, { result: 'success', msg: '' });
  const realm = await t.api('GET', '/api/v1/realm/presence', { as: bob, params: { slim_presence: true } });
  assert.equal(realm.status, 200);
  assert.ok(realm.body.presences[String(alice.id)]);
});

test('a presence event reaches every active user when someone comes online, not on every ping', async () => {
  const carol = await t.createUser({ name: 'Carol' });
  await t.api('POST', '/api/v1/users/me/presence', { as: carol, params: { status: 'active' }, headers: { 'user-agent': 'ZulipPython/0.8.2' } });
  const events = presenceEvents();
  assert.equal(events.length, 1);
  const e = events[0]!;
  assert.equal(e.event.user_id, carol.id);
  assert.equal(e.event.email, carol.email);
  assert.equal(typeof e.event.server_timestamp, 'number');
  assert.deepEqual(Object.keys(e.event.presence as object), ['ZulipPython']);
  assert.equal((e.event.presence as any).ZulipPython.status, 'active');
  assert.ok(e.userIds.includes(alice.id) && e.userIds.includes(bob.id) && e.userIds.includes(t.owner.id));

  log.clear();
  await t.api('POST', '/api/v1/users/me/presence', { as: carol, params: { status: 'active' } });
  assert.equal(presenceEvents().length, 0, 'a repeated report changes nothing anyone displays');

  // Idle for five minutes, then active again: that is news.
  const now = Math.floor(Date.now() / 1000);
  await setPresenceTimes(carol.id, now - 300, now - 30);
  await t.api('POST', '/api/v1/users/me/presence', { as: carol, params: { status: 'active' } });
  assert.equal(presenceEvents().length, 1);
});

test('a deactivated user never receives presence events and is not listed', async () => {
  const dave = await t.createUser({ name: 'Dave' });
  await t.api('POST', '/api/v1/users/me/presence', { as: dave, params: { status: 'active' } });
  assert.equal((await t.api('DELETE', `/api/v1/users/${dave.id}`)).status, 200);
  log.clear();
  const erin = await t.createUser({ name: 'Erin' });
  await t.api('POST', '/api/v1/users/me/presence', { as: erin, params: { status: 'active' } });
  const [e] = presenceEvents();
  assert.ok(e && !e.userIds.includes(dave.id));
  const r = await t.api('GET', '/api/v1/realm/presence', { as: erin });
  assert.equal(r.body.presences[dave.email], undefined);
});

test('GET /users/{id or email}/presence shows status and timestamp, offline after 140 s', async () => {
  await t.api('POST', '/api/v1/users/me/presence', { as: bob, params: { status: 'active' } });
  // From level 302 (Zulip 10's access_user_by_email) an address of the dummy form `user<id>@<host>`
  // names that id, and the test's real addresses have that form (Bob's `user2@…` is someone else's
  // id): there, Bob is named by the dummy address of his own id.
  const host = bob.email.split('@')[1]!;
  const address = FEATURE_LEVEL >= 302 ? `user${bob.id}@${host}` : bob.email;
  const byEmail = await t.api('GET', `/api/v1/users/${address}/presence`, { as: alice });
  assert.equal(byEmail.status, 200);
  assert.equal(byEmail.body.presence.aggregated.status, 'active');
  assert.deepEqual(Object.keys(byEmail.body.presence.aggregated).sort(), ['status', 'timestamp']);
  const now = Math.floor(Date.now() / 1000);
  await setPresenceTimes(bob.id, now - 1000, now - 500);
  const byId = await t.api('GET', `/api/v1/users/${bob.id}/presence`, { as: alice });
  assert.equal(byId.body.presence.aggregated.status, 'offline');
});

test('presence errors: bad status, bots, unknown users, no data, no credentials', async () => {
  const bad = await t.api('POST', '/api/v1/users/me/presence', { as: alice, params: { status: 'dancing' } });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { result: 'error', msg: 'Invalid status: dancing', code: 'BAD_REQUEST' });
  const missing = await t.api('POST', '/api/v1/users/me/presence', { as: alice, params: {} });
  assert.equal(missing.body.msg, "Missing 'status' argument");

  const asBot = await t.createBot(alice, { fullName: 'Pinger', shortName: 'pinger' });
  const bot = asBot.row;
  const botPost = await t.api('POST', '/api/v1/users/me/presence', { as: asBot, params: { status: 'active' } });
  assert.deepEqual(botPost.body, { result: 'error', msg: 'This endpoint does not accept bot requests.', code: 'BAD_REQUEST' });
  const botGet = await t.api('GET', `/api/v1/users/${bot.email}/presence`, { as: alice });
  assert.equal(botGet.body.msg, 'Presence is not supported for bot users.');

  const nobody = await t.api('GET', '/api/v1/users/nobody@parley.test/presence', { as: alice });
  assert.equal(nobody.body.msg, 'No such user');
  const quiet = await t.createUser({ name: 'Quiet' });
  const noData = await t.api('GET', `/api/v1/users/${quiet.id}/presence`, { as: alice });
  assert.equal(noData.status, 400);
  assert.equal(noData.body.msg, `No presence data for ${quiet.email}`);

  for (const [m, p] of [['POST', '/api/v1/users/me/presence'], ['GET', '/api/v1/realm/presence'], ['GET', `/api/v1/users/${bob.id}/presence`]] as const) {
    const r = await t.api(m, p, { as: null, params: m === 'POST' ? { status: 'active' } : undefined });
    assert.equal(r.status, 401, p);
  }
});

test('an organization with presence disabled shows no presences and sends no events', async () => {
  const listed = async () => Object.keys((await t.api('GET', '/api/v1/realm/presence', { as: alice })).body.presences);
  assert.ok((await listed()).includes(alice.email), 'presences are listed while presence is enabled');
  await t.app.ctx.store.db.updateTable('realm').set({ settings: JSON.stringify({ presence_disabled: true }) }).where('id', '=', t.realm.id).execute();
  try {
    // The realm row is cached by authentication until the store's epoch poll sees the change.
    await untilEpochShows(async () => (await listed()).length === 0, 'the realm presence list to empty');
    const frank = await t.createUser({ name: 'Frank' });
    log.clear();
    const r = await t.api('POST', '/api/v1/users/me/presence', { as: frank, params: { status: 'active' } });
    assert.deepEqual(r.body.presences, {});
    assert.equal(presenceEvents().length, 0);
  } finally {
    await t.app.ctx.store.db.updateTable('realm').set({ settings: '{}' }).where('id', '=', t.realm.id).execute();
  }
});
