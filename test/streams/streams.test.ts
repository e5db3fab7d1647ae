import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, FEATURE_LEVEL, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { insertStreamMessage, setRealmSettings, subscribe } from '../helpers/streams.js';

/** An unknown principal: 400 "No such user" from level 208, 403 UNAUTHORIZED_PRINCIPAL before. */
function assertUnknownPrincipal(r: ApiResult, principal: string | number): void {
  if (FEATURE_LEVEL >= 208) assertError(r, 'No such user');
  else assertError(r, `User not authorized to execute queries on behalf of '${principal}'`, 'UNAUTHORIZED_PRINCIPAL', 403, { principal });
}

let t: TestApp;
let admin: TestUser, member: TestUser, other: TestUser, guest: TestUser, bot: TestUser;
let pub: number, priv: number, web: number, protectedId: number, dflt: number;
before(async () => {
  t = await testApp();
  ({ admin, member, other, guest } = await t.createUsers(ROLES));
  bot = await t.createBot(member, { fullName: 'Helper', shortName: 'helper' });
  pub = await subscribe(t, other, 'alpha');
  priv = await subscribe(t, member, 'bravo', { invite_only: true, history_public_to_subscribers: true });
  await setRealmSettings(t, { enable_spectator_access: true });
  web = await subscribe(t, t.owner, 'charlie', { is_web_public: true });
  protectedId = await subscribe(t, other, 'delta', { invite_only: true });
  dflt = await subscribe(t, admin, 'echo');
  assertOk(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: dflt } }));
});
after(async () => { await t.close(); });

const names = (body: any) => body.streams.map((s: any) => s.name);
const list = async (as: TestUser, query: Record<string, unknown> = {}) => assertOk(await t.api('GET', '/api/v1/streams', { as, query }));

test('GET /streams defaults: public plus subscribed, sorted by name', async () => {
  assert.deepEqual(names(await list(member)), ['alpha', 'bravo', 'charlie', 'echo']);
  assert.deepEqual(names(await list(other)), ['alpha', 'charlie', 'delta', 'echo']);
  // Administrators do not see private streams they are not on without include_all_active.
  assert.deepEqual(names(await list(admin)), ['alpha', 'charlie', 'echo']);
  // Guests see only what they are subscribed to.
  assert.deepEqual(names(await list(guest)), []);
  const s = (await list(member)).streams.find((x: any) => x.name === 'bravo');
  // can_remove_subscribers_group_id from level 142, renamed can_remove_subscribers_group at 197; creator_id from 254.
  const added = [
    ...(FEATURE_LEVEL >= 197 ? ['can_remove_subscribers_group'] : FEATURE_LEVEL >= 142 ? ['can_remove_subscribers_group_id'] : []),
    ...(FEATURE_LEVEL >= 254 ? ['creator_id'] : []),
    // Zulip 10: is_archived (315), is_recently_active (323) and the stream group settings (325-357).
    ...(FEATURE_LEVEL >= 315 ? ['is_archived'] : []),
    ...(FEATURE_LEVEL >= 323 ? ['is_recently_active'] : []),
    ...(FEATURE_LEVEL >= 325 ? ['can_administer_channel_group'] : []),
    ...(FEATURE_LEVEL >= 333 ? ['can_send_message_group'] : []),
    ...(FEATURE_LEVEL >= 342 ? ['can_add_subscribers_group'] : []),
    ...(FEATURE_LEVEL >= 357 ? ['can_subscribe_group'] : []),
  ];
  assert.deepEqual(Object.keys(s).sort(), [...added, 'date_created', 'description', 'first_message_id', 'history_public_to_subscribers', 'invite_only',
    'is_announcement_only', 'is_web_public', 'message_retention_days', 'name', 'rendered_description', 'stream_id', 'stream_post_policy'].sort());
  assert.equal(s.invite_only, true);
  assert.equal(s.stream_id, priv);
});

test('GET /streams include_* parameters', async () => {
  assert.deepEqual(names(await list(member, { include_public: false })), ['bravo']);
  assert.deepEqual(names(await list(member, { include_subscribed: false })), ['alpha', 'charlie', 'echo']);
  assert.deepEqual(names(await list(member, { include_public: false, include_subscribed: false })), []);
  assert.deepEqual(names(await list(guest, { include_web_public: true })), ['charlie']);
  assert.deepEqual(names(await list(member, { include_public: false, include_subscribed: false, include_web_public: true })), ['charlie']);
  assert.deepEqual(names(await list(admin, { include_all_active: true })), ['alpha', 'bravo', 'charlie', 'delta', 'echo']);
  if (FEATURE_LEVEL >= 356) {
    // Level 356: include_all_active (renamed include_all) is for everyone: the streams one has metadata access to.
    assert.deepEqual(names(await list(member, { include_all_active: true })), ['alpha', 'bravo', 'charlie', 'echo']);
    assert.deepEqual(names(await list(guest, { include_all_active: true })), ['charlie']);
  } else {
    assertError(await t.api('GET', '/api/v1/streams', { as: member, query: { include_all_active: true } }), 'User not authorized for this query');
    assertError(await t.api('GET', '/api/v1/streams', { as: guest, query: { include_all_active: true } }), 'User not authorized for this query');
  }
  const withDefault = await list(member, { include_default: true });
  assert.deepEqual(withDefault.streams.map((s: any) => [s.name, s.is_default]),
    [['alpha', false], ['bravo', false], ['charlie', false], ['echo', true]]);
  assert.deepEqual(names(await list(member, { include_public: false, include_subscribed: false, include_default: true })), ['echo']);
  // Owner-subscribed streams for a bot: its owner is on the private stream bravo.
  assert.deepEqual(names(await list(bot, { include_public: false, include_owner_subscribed: true })), ['bravo']);
  assert.deepEqual(names(await list(bot, { include_public: false })), []);
  assertError(await t.api('GET', '/api/v1/streams', { as: member, query: { include_public: 'maybe' } }), 'Argument "include_public" is not valid JSON.');
  assertUnauthenticated(await t.api('GET', '/api/v1/streams', { as: null }));
});

test('GET /streams/{stream_id}', async () => {
  const r = assertOk(await t.api('GET', `/api/v1/streams/${pub}`, { as: member }));
  assert.equal(r.stream.name, 'alpha');
  assert.equal(r.stream.stream_id, pub);
  assert.equal(assertOk(await t.api('GET', `/api/v1/streams/${priv}`, { as: member })).stream.name, 'bravo');
  assert.equal(assertOk(await t.api('GET', `/api/v1/streams/${priv}`, { as: admin })).stream.name, 'bravo');
  assert.equal(assertOk(await t.api('GET', `/api/v1/streams/${web}`, { as: guest })).stream.is_web_public, true);
  assertError(await t.api('GET', `/api/v1/streams/${protectedId}`, { as: member }), 'Invalid stream id');
  assertError(await t.api('GET', `/api/v1/streams/${pub}`, { as: guest }), 'Invalid stream id');
  assertError(await t.api('GET', '/api/v1/streams/999999', { as: member }), 'Invalid stream id');
  assertError(await t.api('GET', '/api/v1/streams/abc', { as: member }), 'Invalid stream id');
  assertUnauthenticated(await t.api('GET', `/api/v1/streams/${pub}`, { as: null }));
});

test('GET /get_stream_id', async () => {
  assert.deepEqual(assertOk(await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'ALPHA' } })),
    { result: 'success', msg: '', stream_id: pub });
  assert.equal(assertOk(await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'bravo' } })).stream_id, priv);
  assertError(await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'delta' } }), "Invalid stream name 'delta'");
  assertError(await t.api('GET', '/api/v1/get_stream_id', { as: admin, query: { stream: 'delta' } }), "Invalid stream name 'delta'");
  assertError(await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'zulu' } }), "Invalid stream name 'zulu'");
  assertError(await t.api('GET', '/api/v1/get_stream_id', { as: member }), "Missing 'stream' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'stream' });
  assertUnauthenticated(await t.api('GET', '/api/v1/get_stream_id', { as: null, query: { stream: 'alpha' } }));
});

test('GET /streams/{stream_id}/members', async () => {
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/streams/${pub}/members`, { as: member })),
    { result: 'success', msg: '', subscribers: [other.id] });
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/streams/${protectedId}/members`, { as: admin })).subscribers, [other.id]);
  assertError(await t.api('GET', `/api/v1/streams/${protectedId}/members`, { as: member }), 'Invalid stream id');
  assertError(await t.api('GET', `/api/v1/streams/${pub}/members`, { as: guest }), 'Invalid stream id');
  assertError(await t.api('GET', '/api/v1/streams/999999/members', { as: member }), 'Invalid stream id');
  assertUnauthenticated(await t.api('GET', `/api/v1/streams/${pub}/members`, { as: null }));
});

test('GET /users/me/{stream_id}/topics: newest first, only readable messages', async () => {
  const a1 = await insertStreamMessage(t, pub, other.id, 'Lunch', [other.id]);
  const b1 = await insertStreamMessage(t, pub, other.id, 'builds', [other.id]);
  const a2 = await insertStreamMessage(t, pub, other.id, 'lunch', [other.id]);
  // Public stream: a non-subscriber reads the whole history.
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/users/me/${pub}/topics`, { as: member })).topics,
    [{ name: 'lunch', max_id: a2 }, { name: 'builds', max_id: b1 }]);
  assert.ok(a1 < b1);
  // Protected history: only messages the user received.
  await subscribe(t, other, 'delta', { principals: [member.id] });
  await insertStreamMessage(t, protectedId, other.id, 'before', [other.id]);
  const after = await insertStreamMessage(t, protectedId, other.id, 'after', [other.id, member.id]);
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/users/me/${protectedId}/topics`, { as: member })).topics, [{ name: 'after', max_id: after }]);
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/me/${protectedId}/topics`, { as: other })).topics.length, 2);
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/users/me/${web}/topics`, { as: guest })).topics, []);
  assertError(await t.api('GET', `/api/v1/users/me/${protectedId}/topics`, { as: admin }), 'Invalid stream id');
  assertError(await t.api('GET', `/api/v1/users/me/${pub}/topics`, { as: guest }), 'Invalid stream id');
  assertError(await t.api('GET', '/api/v1/users/me/999999/topics', { as: member }), 'Invalid stream id');
  assertUnauthenticated(await t.api('GET', `/api/v1/users/me/${pub}/topics`, { as: null }));
});

test('ids beyond the 32-bit id columns are simply missing streams and users (PostgreSQL refuses them)', async () => {
  const big = 99999999999;
  assertError(await t.api('GET', `/api/v1/streams/${big}`, { as: member }), 'Invalid stream id');
  assertError(await t.api('GET', `/api/v1/users/me/${big}/topics`, { as: member }), 'Invalid stream id');
  assertError(await t.api('GET', `/api/v1/users/${big}/subscriptions/${pub}`, { as: member }), 'No such user');
  assertError(await t.api('PATCH', `/api/v1/streams/${big}`, { as: admin, params: { description: 'x' } }), 'Invalid stream id');
  assertError(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: big } }), 'Invalid stream id');
  assertError(await t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as: member, params: { stream_id: big, topic: 't', op: 'remove' } }), 'Topic is not muted');
  assertError(await t.api('POST', '/api/v1/users/me/subscriptions/properties', { as: member, params: { subscription_data: [{ stream_id: big, property: 'color', value: '#fff' }] } }), 'Invalid stream id');
  assertUnknownPrincipal(await t.api('POST', '/api/v1/users/me/subscriptions', { as: member, params: { subscriptions: [{ name: 'alpha' }], principals: [big] } }), big);
});

test('GET /streams/{stream_id}/email_address', async () => {
  const r = assertOk(await t.api('GET', `/api/v1/streams/${pub}/email_address`, { as: member }));
  assert.match(r.email, /^alpha\.[0-9a-f]{32}@parley\.test$/);
  const sub = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: other })).subscriptions.find((s: any) => s.stream_id === pub);
  // Subscription objects carry the address until level 226, which leaves this endpoint its only source.
  if (FEATURE_LEVEL >= 226) assert.ok(!('email_address' in sub));
  else assert.equal(sub.email_address, r.email);
  assertError(await t.api('GET', `/api/v1/streams/${priv}/email_address`, { as: other }), 'Invalid stream id');
  assertError(await t.api('GET', `/api/v1/streams/${priv}/email_address`, { as: admin }), 'Invalid stream id');
  assertError(await t.api('GET', '/api/v1/streams/999999/email_address', { as: member }), 'Invalid stream id');
  assertUnauthenticated(await t.api('GET', `/api/v1/streams/${pub}/email_address`, { as: null }));
});
