import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, asTestUser, FEATURE_LEVEL, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';

/**
 * Managing bots (issue 21): GET, PATCH, DELETE /bots, key regeneration and reactivation,
 * with Zulip's access rules (owner or administrator) and realm_bot events to the owner and
 * administrators only.
 */
let t: TestApp;
let log: EventLog;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  alice = await t.createUser({ name: 'Alice Smith' });
  bob = await t.createUser({ name: 'Bob Jones' });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  await createStreams(t, { lobby: [alice, bob], secret: { subscribers: [bob], inviteOnly: true } });
});
after(() => t.close());

const err = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
let n = 0;
async function newBot(owner: TestUser, params: Record<string, unknown> = {}): Promise<TestUser & { botId: number }> {
  n += 1;
  const r = await t.api('POST', '/api/v1/bots', { as: owner, params: { full_name: `Bot Number ${n}`, short_name: `b${n}`, ...params } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const row = await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', r.body.user_id).executeTakeFirstOrThrow();
  return { ...asTestUser(row), botId: row.id };
}
const userIdsOf = (type: string, op: string) => log.find(type, op).flatMap((e) => e.userIds).sort((a, b) => a - b);
const sorted = (...ids: number[]) => [...ids].sort((a, b) => a - b);

test('POST /bots takes default streams by name, checked as the creator sees them', async () => {
  const r = await t.api('POST', '/api/v1/bots', { as: alice, params: {
    full_name: 'Lobby Bot', short_name: 'lobby', default_sending_stream: 'LOBBY', default_events_register_stream: 'lobby', default_all_public_streams: true,
  } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['api_key', 'avatar_url', 'default_all_public_streams', 'default_events_register_stream', 'default_sending_stream', 'msg', 'result', 'user_id']);
  assert.equal(r.body.default_sending_stream, 'lobby');
  assert.equal(r.body.default_events_register_stream, 'lobby');
  assert.equal(r.body.default_all_public_streams, true);
  const cases: Array<[TestUser, Record<string, unknown>, string]> = [
    [alice, { full_name: 'S Bot', short_name: 's1', default_sending_stream: 'secret' }, "Invalid stream name 'secret'"],
    [alice, { full_name: 'S Bot', short_name: 's2', default_events_register_stream: 'nowhere' }, "Invalid stream name 'nowhere'"],
    [alice, { full_name: 'Lobby Bot', short_name: 's3' }, 'Name is already in use!'],
    [alice, { full_name: 'Bob Jones', short_name: 's4' }, 'Name is already in use!'],
    [alice, { full_name: 'S Bot', short_name: 's5', bot_type: 3, payload_url: 'not a url' }, 'payload_url is not a URL'],
    [alice, { full_name: 'S Bot', short_name: 's6', bot_type: 3, payload_url: 'http://localhost/x', interface_type: 7 }, 'Invalid interface type'],
    [alice, { full_name: 'S Bot', short_name: 's7', default_all_public_streams: '"yes"' }, 'default_all_public_streams is not a boolean'],
  ];
  for (const [as, params, msg] of cases) assert.deepEqual((await t.api('POST', '/api/v1/bots', { as, params })).body, err(msg), msg);
  // Bob is subscribed to the private stream, so his bot may default to it.
  const secret = await t.api('POST', '/api/v1/bots', { as: bob, params: { full_name: 'Secret Bot', short_name: 'secretbot', default_sending_stream: 'secret' } });
  assert.equal(secret.body.default_sending_stream, 'secret');
});

test('bots may not manage bots; guests may not either', async () => {
  const bot = await newBot(alice);
  for (const [m, p] of [['GET', '/bots'], ['POST', '/bots'], ['PATCH', `/bots/${bot.id}`], ['DELETE', `/bots/${bot.id}`], ['POST', `/bots/${bot.id}/api_key/regenerate`]] as const) {
    assert.deepEqual((await t.api(m, `/api/v1${p}`, { as: bot, params: { full_name: 'X', short_name: 'x' } })).body, err('This endpoint does not accept bot requests.'), `${m} ${p}`);
    assert.deepEqual((await t.api(m, `/api/v1${p}`, { as: guest, params: { full_name: 'X', short_name: 'x' } })).body, err('Not allowed for guest users'), `${m} ${p}`);
  }
});

test("GET /bots: a member's own active bots; every active bot for an administrator", async () => {
  const mine = await newBot(alice, { default_events_register_stream: 'lobby' });
  const theirs = await newBot(bob);
  const gone = await newBot(alice);
  assert.equal((await t.api('DELETE', `/api/v1/bots/${gone.id}`, { as: alice })).status, 200);
  const r = await t.api('GET', '/api/v1/bots', { as: alice });
  assert.equal(r.status, 200);
  const ids = r.body.bots.map((b: any) => b.user_id);
  assert.ok(ids.includes(mine.id) && !ids.includes(theirs.id) && !ids.includes(gone.id));
  const listed = r.body.bots.find((b: any) => b.user_id === mine.id);
  assert.deepEqual(listed, {
    username: mine.email, user_id: mine.id, full_name: mine.row.full_name, api_key: mine.apiKey, avatar_url: listed.avatar_url,
    default_sending_stream: null, default_events_register_stream: 'lobby', default_all_public_streams: false,
  });
  assert.match(listed.avatar_url, /^https:\/\/secure\.gravatar\.com\//);
  const all = (await t.api('GET', '/api/v1/bots', { as: admin })).body.bots.map((b: any) => b.user_id);
  assert.ok(all.includes(mine.id) && all.includes(theirs.id) && !all.includes(gone.id));
  // No system bot is anyone's to manage.
  assert.ok((await t.api('GET', '/api/v1/bots', { as: t.owner })).body.bots.every((b: any) => !String(b.username).endsWith('.zulip.com') && b.username !== undefined));
});

test("register's realm_bots: a member sees only their own bots, deactivated ones included", async () => {
  const mine = await newBot(alice);
  const theirs = await newBot(bob);
  await t.api('DELETE', `/api/v1/bots/${mine.id}`, { as: alice });
  const reg = await t.api('POST', '/api/v1/register', { as: alice, params: { fetch_event_types: ['realm_bot'] } });
  const ids = reg.body.realm_bots.map((b: any) => b.user_id);
  assert.ok(ids.includes(mine.id) && !ids.includes(theirs.id));
  assert.equal(reg.body.realm_bots.find((b: any) => b.user_id === mine.id).is_active, false);
  assert.ok(reg.body.realm_bots.every((b: any) => b.owner_id === alice.id));
});

test('PATCH /bots/{bot_id}: name, default streams and the answer', async () => {
  const bot = await newBot(alice);
  log.clear();
  const r = await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: alice, params: {
    full_name: 'Renamed Bot', default_sending_stream: 'lobby', default_events_register_stream: 'Lobby', default_all_public_streams: true,
  } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual({ ...r.body, avatar_url: 'x' }, {
    result: 'success', msg: '', full_name: 'Renamed Bot', avatar_url: 'x', service_interface: 1, service_payload_url: null, config_data: null,
    default_sending_stream: 'lobby', default_events_register_stream: 'lobby', default_all_public_streams: true, bot_owner: alice.email,
  });
  const updates = log.find('realm_bot', 'update').map((e) => e.event as any);
  assert.deepEqual(updates.map((e) => Object.keys(e.bot).sort().join()), [
    'full_name,user_id', 'default_sending_stream,user_id', 'default_events_register_stream,user_id', 'default_all_public_streams,user_id']);
  // The owner and administrators hear of it; Bob does not.
  for (const e of log.find('realm_bot', 'update')) assert.deepEqual(sorted(...e.userIds), sorted(t.owner.id, admin.id, alice.id));
  assert.ok(log.one('realm_user', 'update').userIds.includes(bob.id), 'everyone hears a new name');
  // '' clears a default stream.
  const cleared = await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: admin, params: { default_sending_stream: '' } });
  assert.equal(cleared.body.default_sending_stream, null);
  // An unchanged name is accepted silently, as Zulip's web app resends it.
  log.clear();
  assert.equal((await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: alice, params: { full_name: 'Renamed Bot' } })).status, 200);
  assert.equal(log.find('realm_bot').length, 0);
});

test('PATCH /bots/{bot_id}: owner change sends delete to the old owner, add to the new, update to administrators', async () => {
  const bot = await newBot(alice);
  log.clear();
  const r = await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: alice, params: { bot_owner_id: bob.id } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.bot_owner, bob.email);
  assert.deepEqual(log.one('realm_bot', 'delete').event, { type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } });
  assert.deepEqual(log.one('realm_bot', 'delete').userIds, [alice.id]);
  const add = log.one('realm_bot', 'add');
  assert.deepEqual(add.userIds, [bob.id]);
  assert.equal((add.event as any).bot.owner_id, bob.id);
  const update = log.one('realm_bot', 'update');
  assert.deepEqual(update.event, { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, owner_id: bob.id } });
  assert.deepEqual(sorted(...update.userIds), sorted(t.owner.id, admin.id));
  assert.deepEqual((log.one('realm_user', 'update').event as any).person, { user_id: bot.id, bot_owner_id: bob.id });
  // Alice no longer owns it.
  assert.deepEqual((await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: alice, params: { full_name: 'Mine Again' } })).body, err('Insufficient permission'));
  // To an administrator owner: no add for them (they list every bot), a delete for Bob.
  log.clear();
  await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: bob, params: { bot_owner_id: admin.id } });
  assert.deepEqual(log.one('realm_bot', 'delete').userIds, [bob.id]);
  assert.equal(log.find('realm_bot', 'add').length, 0);
  assert.deepEqual(sorted(...log.one('realm_bot', 'update').userIds), sorted(t.owner.id, admin.id));
});

test('PATCH /bots/{bot_id}: outgoing webhook service', async () => {
  const bot = await newBot(alice, { bot_type: 3, payload_url: 'http://localhost/one' });
  log.clear();
  const r = await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: alice, params: { service_payload_url: 'https://hooks.example.com/two', service_interface: 2 } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.service_payload_url, 'https://hooks.example.com/two');
  assert.equal(r.body.service_interface, 2);
  const services = (log.one('realm_bot', 'update').event as any).bot.services;
  assert.equal(services.length, 1);
  assert.equal(services[0].base_url, 'https://hooks.example.com/two');
  assert.equal(services[0].interface, 2);
  assert.match(services[0].token, /^[A-Za-z0-9]{32}$/);
  const reg = await t.api('POST', '/api/v1/register', { as: alice, params: { fetch_event_types: ['realm_bot'] } });
  assert.deepEqual(reg.body.realm_bots.find((b: any) => b.user_id === bot.id).services, services);
});

test('PATCH /bots/{bot_id} errors', async () => {
  const bot = await newBot(alice);
  const generic = await newBot(alice);
  const outgoing = await newBot(alice, { bot_type: 3, payload_url: 'http://localhost/x' });
  const deactivated = await t.createUser({ name: 'Dee Gone' });
  await t.api('DELETE', `/api/v1/users/${deactivated.id}`, { as: t.owner });
  const cases: Array<[TestUser, number, Record<string, unknown>, string]> = [
    [alice, 999999, { full_name: 'X' }, 'No such bot'],
    [alice, bob.id, { full_name: 'X' }, 'No such bot'],
    [bob, bot.id, { full_name: 'X' }, 'Insufficient permission'],
    [alice, bot.id, { bot_owner_id: 999999 }, 'Failed to change owner, no such user'],
    [alice, bot.id, { bot_owner_id: deactivated.id }, 'Failed to change owner, user is deactivated'],
    [alice, bot.id, { bot_owner_id: generic.id }, "Failed to change owner, bots can't own other bots"],
    [alice, bot.id, { full_name: 'Bob Jones' }, 'Name is already in use!'],
    [alice, bot.id, { full_name: '' }, 'Name too short!'],
    [alice, bot.id, { default_sending_stream: 'secret' }, "Invalid stream name 'secret'"],
    [alice, bot.id, { default_events_register_stream: 'nowhere' }, "Invalid stream name 'nowhere'"],
    [alice, bot.id, { default_all_public_streams: 'maybe' }, 'Argument "default_all_public_streams" is not valid JSON.'],
    [alice, outgoing.id, { service_payload_url: 'nope' }, 'service_payload_url is not a URL'],
    [alice, outgoing.id, { service_payload_url: 'http://localhost/y', service_interface: 5 }, 'Invalid interface type'],
    [alice, generic.id, { service_payload_url: 'http://localhost/y' }, 'This bot has no outgoing webhook service'],
    [alice, bot.id, { bot_owner_id: 'x' }, 'bot_owner_id is not an integer'],
  ];
  for (const [as, id, params, msg] of cases) assert.deepEqual((await t.api('PATCH', `/api/v1/bots/${id}`, { as, params })).body, err(msg), msg);
  // A failure leaves nothing half-done: the name change before the bad owner is rolled back.
  await t.api('PATCH', `/api/v1/bots/${bot.id}`, { as: alice, params: { full_name: 'Half Done', bot_owner_id: 999999 } });
  assert.notEqual((await t.api('GET', `/api/v1/users/${bot.id}`, { as: alice })).body.user.full_name, 'Half Done');
});

test('DELETE /bots/{bot_id} deactivates; reactivation through POST /users/{id}/reactivate', async () => {
  const bot = await newBot(alice);
  log.clear();
  assert.deepEqual((await t.api('DELETE', `/api/v1/bots/${bot.id}`, { as: bob })).body, err('Insufficient permission'));
  assert.equal((await t.api('DELETE', `/api/v1/bots/${bot.id}`, { as: alice })).status, 200);
  // From level 222 a deactivation is an update with is_active (test/users/deactivation-events.test.ts).
  if (FEATURE_LEVEL >= 222) {
    assert.deepEqual(log.one('realm_bot', 'update').event, { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: false } });
    assert.deepEqual(userIdsOf('realm_bot', 'update'), sorted(t.owner.id, admin.id, alice.id));
    assert.ok(log.one('realm_user', 'update').userIds.includes(bob.id));
  } else {
    assert.deepEqual(log.one('realm_bot', 'remove').event, { type: 'realm_bot', op: 'remove', bot: { user_id: bot.id, full_name: bot.row.full_name } });
    assert.deepEqual(userIdsOf('realm_bot', 'remove'), sorted(t.owner.id, admin.id, alice.id));
    assert.ok(log.one('realm_user', 'remove').userIds.includes(bob.id));
  }
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: bot })).status, 401, 'a deactivated bot cannot authenticate');
  // Again: nothing to do, as in Zulip.
  log.clear();
  assert.equal((await t.api('DELETE', `/api/v1/bots/${bot.id}`, { as: alice })).status, 200);
  assert.equal(log.events.length, 0);
  // DELETE /users/{id} is for humans.
  assert.deepEqual((await t.api('DELETE', `/api/v1/users/${bot.id}`, { as: t.owner })).body, err('No such user'));
  assert.deepEqual((await t.api('DELETE', '/api/v1/bots/999999', { as: alice })).body, err('No such bot'));
  assert.deepEqual((await t.api('DELETE', `/api/v1/bots/${bob.id}`, { as: t.owner })).body, err('No such bot'));
  log.clear();
  assert.equal((await t.api('POST', `/api/v1/users/${bot.id}/reactivate`, { as: admin })).status, 200);
  const add = log.one('realm_bot', FEATURE_LEVEL >= 222 ? 'update' : 'add');
  assert.deepEqual(sorted(...add.userIds), sorted(t.owner.id, admin.id, alice.id));
  assert.equal((add.event as any).bot.is_active, true);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: bot })).status, 200);
});

test("deactivating a human deactivates the bots they own", async () => {
  const owner = await t.createUser({ name: 'Owen Owner' });
  const bot = await newBot(owner);
  log.clear();
  assert.equal((await t.api('DELETE', `/api/v1/users/${owner.id}`, { as: t.owner })).status, 200);
  assert.equal(log.one('realm_bot', FEATURE_LEVEL >= 222 ? 'update' : 'remove').event.bot.user_id, bot.id);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: bot })).status, 401);
});

test('POST /bots/{bot_id}/api_key/regenerate: the old key stops working at once', async () => {
  const bot = await newBot(alice);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: bot })).status, 200, 'the old key is cached as verified');
  log.clear();
  const r = await t.api('POST', `/api/v1/bots/${bot.id}/api_key/regenerate`, { as: alice });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.body).sort(), ['api_key', 'msg', 'result']);
  assert.match(r.body.api_key, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(r.body.api_key, bot.apiKey);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: bot })).status, 401);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: { ...bot, apiKey: r.body.api_key } })).status, 200);
  assert.deepEqual(log.one('realm_bot', 'update').event, { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, api_key: r.body.api_key } });
  assert.deepEqual(userIdsOf('realm_bot', 'update'), sorted(t.owner.id, admin.id, alice.id));
  assert.deepEqual((await t.api('POST', `/api/v1/bots/${bot.id}/api_key/regenerate`, { as: bob })).body, err('Insufficient permission'));
  assert.deepEqual((await t.api('POST', `/api/v1/bots/${alice.id}/api_key/regenerate`, { as: t.owner })).body, err('No such bot'));
  // An administrator may.
  assert.equal((await t.api('POST', `/api/v1/bots/${bot.id}/api_key/regenerate`, { as: admin })).status, 200);
});

test('a bot registers with its default events stream and default_all_public_streams', async () => {
  const narrowBot = await newBot(alice, { default_events_register_stream: 'lobby' });
  // A narrow filters what the bot receives; it still has to be subscribed to the stream.
  await t.api('POST', '/api/v1/users/me/subscriptions', { as: t.owner, params: { subscriptions: [{ name: 'lobby' }, { name: 'elsewhere' }], principals: [narrowBot.id] } });
  const reg = await t.api('POST', '/api/v1/register', { as: narrowBot, params: { event_types: ['message'] } });
  assert.equal(reg.status, 200);
  await t.api('POST', '/api/v1/messages', { as: t.owner, params: { type: 'stream', to: 'elsewhere', topic: 't', content: 'elsewhere' } });
  await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: [narrowBot.id], content: 'not in lobby' } });
  await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'lobby', topic: 't', content: 'in lobby' } });
  const ev = await t.api('GET', '/api/v1/events', { as: narrowBot, params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
  assert.deepEqual(ev.body.events.filter((e: any) => e.type === 'message').map((e: any) => e.message.content), ['in lobby']);

  const publicBot = await newBot(alice, { default_all_public_streams: true });
  const reg2 = await t.api('POST', '/api/v1/register', { as: publicBot, params: { event_types: ['message'] } });
  await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'lobby', topic: 't', content: 'public' } });
  const ev2 = await t.api('GET', '/api/v1/events', { as: publicBot, params: { queue_id: reg2.body.queue_id, last_event_id: -1, dont_block: true } });
  assert.deepEqual(ev2.body.events.filter((e: any) => e.type === 'message').map((e: any) => e.message.content), ['public']);
});

test('every bot endpoint requires authentication', async () => {
  for (const [m, p] of [['GET', '/bots'], ['POST', '/bots'], ['PATCH', '/bots/1'], ['DELETE', '/bots/1'], ['POST', '/bots/1/api_key/regenerate'],
    ['GET', '/bot_storage'], ['PUT', '/bot_storage'], ['DELETE', '/bot_storage']]) {
    assert.equal((await t.api(m!, `/api/v1${p}`, { as: null })).status, 401, `${m} ${p}`);
  }
  assert.ok(HOST);
});

test("a stream message without `to` goes to the sender's default sending stream (Zulip 5's legacy addressee)", async () => {
  const bot = await newBot(alice, { default_sending_stream: 'lobby' });
  await t.api('POST', '/api/v1/users/me/subscriptions', { as: t.owner, params: { subscriptions: [{ name: 'lobby' }], principals: [bot.id] } });
  const sent = await t.api('POST', '/api/v1/messages', { as: bot, params: { type: 'stream', topic: 'defaults', content: 'by default' } });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const got = await t.api('GET', `/api/v1/messages/${sent.body.id}`, { as: alice });
  assert.equal(got.body.message.display_recipient, 'lobby');
  const plain = await newBot(alice);
  assert.deepEqual((await t.api('POST', '/api/v1/messages', { as: plain, params: { type: 'stream', topic: 't', content: 'x' } })).body, err('Missing stream'));
});
