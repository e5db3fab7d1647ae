import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { postWebhook } from '../helpers/webhooks.js';
import { testApp, type TestApp, type TestUser, HOST, FEATURE_LEVEL } from '../helpers/app.js';
import { Role } from '../../src/lib/roles.js';
import { EventLog } from '../helpers/events.js';

let t: TestApp;
let admin: TestUser, member: TestUser, guest: TestUser;
let log: EventLog;
before(async () => {
  t = await testApp();
  log = new EventLog(t);
  admin = await t.createUser({ role: Role.ADMINISTRATOR, name: 'Ada Admin' });
  member = await t.createUser({ name: 'Mia Member' });
  guest = await t.createUser({ role: Role.GUEST, name: 'Gus Guest' });
});
after(async () => { await t.close(); });

const USER_KEYS = ['avatar_url', 'avatar_version', 'bot_type', 'date_joined', 'email', 'full_name', 'is_active', 'is_admin',
  'is_bot', 'is_guest', 'is_owner', 'role', 'timezone', 'user_id',
  // Level 363 removed is_billing_admin from user objects.
  ...(FEATURE_LEVEL >= 363 ? [] : ['is_billing_admin'])];

test('GET /users lists every user with the User fields', async () => {
  const r = await t.api('GET', '/api/v1/users', { as: member });
  assert.equal(r.status, 200);
  const me = r.body.members.find((u: any) => u.user_id === member.id);
  for (const k of USER_KEYS) assert.ok(k in me, `missing ${k}`);
  assert.equal(me.full_name, 'Mia Member');
  assert.equal(me.role, 400);
  assert.equal(me.is_admin, false);
  assert.equal(me.bot_type, null);
  assert.match(me.date_joined, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  // client_gravatar defaults to true: gravatar users get a null avatar_url.
  assert.equal(me.avatar_url, null);
  assert.ok(!('profile_data' in me));
  const owner = r.body.members.find((u: any) => u.user_id === t.owner.id);
  assert.equal(owner.is_owner, true);
  assert.equal(owner.is_admin, true);
  assert.equal(owner.role, 100);
  const g = r.body.members.find((u: any) => u.user_id === guest.id);
  assert.equal(g.is_guest, true);
  assert.equal(g.role, 600);
});

test('GET /users with client_gravatar=false and include_custom_profile_fields', async () => {
  const r = await t.api('GET', '/api/v1/users', { as: member, params: { client_gravatar: false, include_custom_profile_fields: true } });
  const me = r.body.members.find((u: any) => u.user_id === member.id);
  assert.match(me.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
  assert.deepEqual(me.profile_data, {});
});

test('GET /users: bad boolean is a 400', async () => {
  const r = await t.api('GET', '/api/v1/users', { as: member, query: { client_gravatar: 'yes' } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: 'Argument "client_gravatar" is not valid JSON.', code: 'BAD_REQUEST' });
  const r2 = await t.api('GET', '/api/v1/users', { as: member, query: { client_gravatar: 3 } });
  assert.equal(r2.body.msg, 'client_gravatar is not a boolean');
});

test('GET /users/me answers the caller', async () => {
  const r = await t.api('GET', '/api/v1/users/me', { as: member });
  assert.equal(r.status, 200);
  assert.equal(r.body.user_id, member.id);
  assert.equal(r.body.email, member.email);
  assert.equal(r.body.delivery_email, member.email);
  assert.equal(r.body.max_message_id, -1);
  assert.match(r.body.avatar_url, /^https:/);
  assert.deepEqual(r.body.profile_data, {});
});

test('GET /users/{user_id} and /users/{email}', async () => {
  const byId = await t.api('GET', `/api/v1/users/${admin.id}`, { as: member });
  assert.equal(byId.status, 200);
  assert.equal(byId.body.user.user_id, admin.id);
  assert.equal(byId.body.user.is_admin, true);
  const byEmail = await t.api('GET', `/api/v1/users/${encodeURIComponent(admin.email)}`, { as: member });
  // The test users' real addresses are `userN@parley.test` (N a counter, not the id). From level
  // 302, as Zulip 10's access_user_by_email, an address of the dummy form `user<id>@host` names
  // the user of that id first, so this one finds user N; the dummy address finds the admin.
  const n = Number(/^user(\d+)@/.exec(admin.email)![1]);
  assert.equal(byEmail.body.user.user_id, FEATURE_LEVEL >= 302 ? n : admin.id);
  if (FEATURE_LEVEL >= 302) {
    const byDummy = await t.api('GET', `/api/v1/users/${encodeURIComponent(`user${admin.id}@${HOST}`)}`, { as: member });
    assert.equal(byDummy.body.user.user_id, admin.id);
  }
  for (const path of ['/api/v1/users/999999', '/api/v1/users/nobody%40parley.test']) {
    const r = await t.api('GET', path, { as: member });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  }
});

test('POST /users: administrators create users', async () => {
  log.clear();
  const r = await t.api('POST', '/api/v1/users', { as: admin, params: { email: 'new1@parley.test', password: 'pw-new-1234', full_name: 'New One' } });
  assert.equal(r.status, 200);
  assert.equal(typeof r.body.user_id, 'number');
  const u = await t.api('GET', `/api/v1/users/${r.body.user_id}`, { as: member });
  assert.equal(u.body.user.full_name, 'New One');
  // The new user can log in with the password.
  const f = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: 'new1@parley.test', password: 'pw-new-1234' } });
  assert.equal(f.status, 200);
  // realm_user add reaches every active user, the new one included.
  const add = log.events.find((e) => e.event.type === 'realm_user' && e.event.op === 'add');
  assert.ok(add);
  assert.equal((add.event.person as any).user_id, r.body.user_id);
  assert.ok(add.userIds.includes(member.id) && add.userIds.includes(r.body.user_id));
});

test('POST /users errors', async () => {
  const cases: Array<[any, Record<string, string>, string]> = [
    [member, { email: 'x@parley.test', password: 'p', full_name: 'X' }, 'User not authorized to create users'],
    [admin, { email: member.email, password: 'p', full_name: 'X' }, `Email '${member.email}' already in use`],
    [admin, { email: 'not-an-email', password: 'p', full_name: 'X' }, 'Bad name or username'],
    [admin, { email: 'y@parley.test', password: 'p', full_name: '' }, 'Name too short!'],
    [admin, { email: 'y@parley.test', password: 'p', full_name: 'x'.repeat(101) }, 'Name too long!'],
    [admin, { email: 'y@parley.test', password: 'p', full_name: 'Bad*Name' }, 'Invalid characters in name!'],
  ];
  for (const [as, params, msg] of cases) {
    const r = await t.api('POST', '/api/v1/users', { as, params });
    assert.equal(r.status, 400, msg);
    assert.deepEqual(r.body, { result: 'error', msg, code: 'BAD_REQUEST' });
  }
  const missing = await t.api('POST', '/api/v1/users', { as: admin, params: { email: 'z@parley.test', password: 'p' } });
  assert.equal(missing.body.msg, "Missing 'full_name' argument");
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('PATCH /users/{id}: full_name and role', async () => {
  const u = await t.createUser({ name: 'Pat Patch' });
  log.clear();
  const r = await t.api('PATCH', `/api/v1/users/${u.id}`, { as: admin, params: { full_name: 'Pat Renamed', role: Role.MODERATOR } });
  assert.equal(r.status, 200);
  const got = await t.api('GET', `/api/v1/users/${u.id}`, { as: member });
  assert.equal(got.body.user.full_name, 'Pat Renamed');
  assert.equal(got.body.user.role, 300);
  const events = log.events.filter((e) => e.event.type === 'realm_user').map((e) => e.event);
  assert.deepEqual(events, [
    { type: 'realm_user', op: 'update', person: { user_id: u.id, full_name: 'Pat Renamed' } },
    { type: 'realm_user', op: 'update', person: { user_id: u.id, role: 300 } },
  ]);
});

test('PATCH /users/{id} errors', async () => {
  const u = await t.createUser();
  const cases: Array<[TestUser, string, Record<string, unknown>, string]> = [
    [member, `/api/v1/users/${u.id}`, { full_name: 'X Y' }, 'Must be an organization administrator'],
    [admin, '/api/v1/users/999999', { full_name: 'X Y' }, 'No such user'],
    [admin, `/api/v1/users/${u.id}`, { role: 42 }, 'Invalid role'],
    [admin, `/api/v1/users/${u.id}`, { role: Role.OWNER }, 'Must be an organization owner'],
    [admin, `/api/v1/users/${t.owner.id}`, { full_name: 'Hacked' }, 'Must be an organization owner'],
    [t.owner, `/api/v1/users/${t.owner.id}`, { role: Role.MEMBER }, 'The owner permission cannot be removed from the only organization owner.'],
  ];
  for (const [as, path, params, msg] of cases) {
    const r = await t.api('PATCH', path, { as, params });
    assert.equal(r.status, 400, msg);
    assert.deepEqual(r.body, { result: 'error', msg, code: msg.startsWith('Must be an organization') ? 'UNAUTHORIZED_PRINCIPAL' : 'BAD_REQUEST' });
  }
  const notInt = await t.api('PATCH', `/api/v1/users/${u.id}`, { as: admin, params: { role: 'admin' } });
  assert.deepEqual(notInt.body, { result: 'error', msg: 'role is not an integer', code: 'BAD_REQUEST' });
});

test('DELETE /users/{id} deactivates and POST /users/{id}/reactivate restores', async () => {
  const u = await t.createUser();
  log.clear();
  assert.equal((await t.api('DELETE', `/api/v1/users/${u.id}`, { as: admin })).status, 200);
  assert.equal((await t.api('GET', `/api/v1/users/${u.id}`, { as: member })).body.user.is_active, false);
  const remove = log.events.find((e) => e.event.type === 'realm_user');
  // Level 222: a deactivation is a realm_user update with is_active: false, no longer a remove.
  assert.deepEqual(remove?.event, FEATURE_LEVEL >= 222
    ? { type: 'realm_user', op: 'update', person: { user_id: u.id, is_active: false } }
    : { type: 'realm_user', op: 'remove', person: { user_id: u.id, full_name: u.row.full_name } });
  const again = await t.api('DELETE', `/api/v1/users/${u.id}`, { as: admin });
  assert.deepEqual(again.body, { result: 'error', msg: 'User is deactivated', code: 'BAD_REQUEST' });
  assert.equal((await t.api('POST', `/api/v1/users/${u.id}/reactivate`, { as: admin })).status, 200);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: u })).status, 200);
  const twice = await t.api('POST', `/api/v1/users/${u.id}/reactivate`, { as: admin });
  assert.deepEqual(twice.body, { result: 'error', msg: 'User is already active', code: 'BAD_REQUEST' });
});

test('DELETE /users/{id} errors', async () => {
  const u = await t.createUser();
  assert.equal((await t.api('DELETE', `/api/v1/users/${u.id}`, { as: member })).body.msg, 'Must be an organization administrator');
  assert.equal((await t.api('POST', `/api/v1/users/${u.id}/reactivate`, { as: member })).body.msg, 'Must be an organization administrator');
  assert.equal((await t.api('DELETE', '/api/v1/users/999999', { as: admin })).body.msg, 'No such user');
  assert.equal((await t.api('DELETE', `/api/v1/users/${t.owner.id}`, { as: admin })).body.msg, 'Must be an organization owner');
  assert.equal((await t.api('DELETE', `/api/v1/users/${t.owner.id}`, { as: t.owner })).body.msg, 'Cannot deactivate the only organization owner');
});

test('DELETE /users/me deactivates the caller, but not the only owner', async () => {
  const u = await t.createUser();
  assert.equal((await t.api('DELETE', '/api/v1/users/me', { as: u })).status, 200);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: u })).status, 401);
  const r = await t.api('DELETE', '/api/v1/users/me', { as: t.owner });
  assert.deepEqual(r.body, { result: 'error', msg: 'Cannot deactivate the only organization owner', code: 'BAD_REQUEST' });
});

test('POST /bots creates a bot owned by the caller', async () => {
  log.clear();
  const r = await t.api('POST', '/api/v1/bots', { as: member, params: { full_name: 'Helper Bot', short_name: 'helper', bot_type: 2 } });
  assert.equal(r.status, 200);
  assert.match(r.body.api_key, /^[A-Za-z0-9]{32}$/);
  const bot = await t.api('GET', `/api/v1/users/${r.body.user_id}`, { as: member });
  assert.equal(bot.body.user.email, `helper-bot@${HOST}`);
  assert.equal(bot.body.user.is_bot, true);
  assert.equal(bot.body.user.bot_type, 2);
  assert.equal(bot.body.user.bot_owner_id, member.id);
  // An incoming-webhook bot's key posts through its webhook URL, and is refused on the rest of the API (as Zulip).
  const hooked = await postWebhook(t, 'helloworld', { key: r.body.api_key, body: { featured_title: 'T', featured_url: 'https://example.com' } });
  assert.equal(hooked.status, 200);
  const me = await t.api('GET', '/api/v1/users/me', { as: { id: r.body.user_id, email: `helper-bot@${HOST}`, apiKey: r.body.api_key, row: null as never } });
  assert.equal(me.status, 401);
  assert.equal(me.body.msg, 'This API is not available to incoming webhook bots.');
  const botEvent = log.events.find((e) => e.event.type === 'realm_bot');
  assert.ok(botEvent && botEvent.userIds.includes(member.id) && !botEvent.userIds.includes(guest.id));
});

test('POST /bots errors', async () => {
  const cases: Array<[TestUser, Record<string, unknown>, string]> = [
    [member, { full_name: 'Dup Bot', short_name: 'helper' }, 'Username already in use'],
    [member, { full_name: 'Bad Bot', short_name: 'bad name!' }, 'Bad name or username'],
    [member, { full_name: 'Type Bot', short_name: 'typebot', bot_type: 9 }, 'Invalid bot type'],
    [guest, { full_name: 'Guest Bot', short_name: 'guestbot' }, 'Not allowed for guest users'],
  ];
  for (const [as, params, msg] of cases) {
    const r = await t.api('POST', '/api/v1/bots', { as, params });
    assert.equal(r.status, 400, msg);
    assert.deepEqual(r.body, { result: 'error', msg, code: 'BAD_REQUEST' });
  }
});

test('POST /users/me/api_key/regenerate replaces the key', async () => {
  const u = await t.createUser();
  const r = await t.api('POST', '/api/v1/users/me/api_key/regenerate', { as: u });
  assert.match(r.body.api_key, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(r.body.api_key, u.apiKey);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: u })).status, 401);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: { ...u, apiKey: r.body.api_key } })).status, 200);
});

test('every endpoint here requires authentication', async () => {
  for (const [m, p] of [['GET', '/api/v1/users'], ['GET', '/api/v1/users/me'], ['GET', '/api/v1/users/1'], ['POST', '/api/v1/users'],
    ['PATCH', '/api/v1/users/1'], ['DELETE', '/api/v1/users/1'], ['POST', '/api/v1/users/1/reactivate'], ['DELETE', '/api/v1/users/me'],
    ['POST', '/api/v1/bots'], ['POST', '/api/v1/users/me/api_key/regenerate']]) {
    const r = await t.api(m!, p!, { as: null });
    assert.equal(r.status, 401, `${m} ${p}`);
  }
});
