import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, FEATURE_LEVEL, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { setRealmSettings, subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

// Level 289: the subscribe answer keys users by id, not email.
const subKey = (u: { id: number; email: string }) => (FEATURE_LEVEL >= 289 ? String(u.id) : u.email);

/** An unknown principal: 400 "No such user" from level 208, 403 UNAUTHORIZED_PRINCIPAL before. */
function assertUnknownPrincipal(r: ApiResult, principal: string | number): void {
  if (FEATURE_LEVEL >= 208) assertError(r, 'No such user');
  else assertError(r, `User not authorized to execute queries on behalf of '${principal}'`, 'UNAUTHORIZED_PRINCIPAL', 403, { principal });
}

let t: TestApp;
let admin: TestUser, member: TestUser, other: TestUser, guest: TestUser;
let log: EventLog;
const SUBS = '/api/v1/users/me/subscriptions';
before(async () => {
  t = await testApp();
  ({ admin, member, other, guest } = await t.createUsers(ROLES));
  log = new EventLog(t);
});
after(async () => { await t.close(); });

const post = (as: TestUser | null, params: Record<string, unknown>) => t.api('POST', SUBS, { as, params });

test('POST /users/me/subscriptions creates a stream and subscribes the caller', async () => {
  log.clear();
  const r = assertOk(await post(member, { subscriptions: [{ name: ' design ', description: 'Pixels *and* more' }] }));
  assert.deepEqual(r.subscribed, { [subKey(member)]: ['design'] });
  assert.deepEqual(r.already_subscribed, {});
  assert.ok(!('unauthorized' in r));
  const again = assertOk(await post(member, { subscriptions: [{ name: 'DESIGN' }] }));
  assert.deepEqual(again.subscribed, {});
  assert.deepEqual(again.already_subscribed, { [subKey(member)]: ['design'] });
  const list = assertOk(await t.api('GET', SUBS, { as: member }));
  const sub = list.subscriptions.find((s: any) => s.name === 'design');
  assert.equal(sub.description, 'Pixels *and* more');
  assert.equal(sub.rendered_description, '<p>Pixels <em>and</em> more</p>');
  assert.equal(sub.invite_only, false);
  assert.equal(sub.history_public_to_subscribers, true);
  assert.match(sub.color, /^#[0-9a-f]{6}$/);
  assert.equal(sub.is_muted, false);
  assert.equal(sub.in_home_view, true);
  assert.ok(!('subscribers' in sub));
  for (const k of ['stream_id', 'date_created', 'first_message_id', 'stream_post_policy', 'message_retention_days', 'is_web_public',
    'is_announcement_only', 'pin_to_top', 'desktop_notifications', 'audible_notifications', 'push_notifications',
    'email_notifications', 'wildcard_mentions_notify', 'stream_weekly_traffic']) assert.ok(k in sub, k);
  // Subscription objects lose email_address from level 226 (GET /streams/{id}/email_address replaces it).
  assert.equal('email_address' in sub, FEATURE_LEVEL < 226);
  const create = log.one('stream', 'create');
  assert.deepEqual(sorted(create.userIds), sorted([t.owner.id, admin.id, member.id, other.id]));
  assert.equal((create.event.streams as any[])[0].name, 'design');
  const add = log.one('subscription', 'add');
  assert.deepEqual(add.userIds, [member.id]);
  assert.deepEqual((add.event.subscriptions as any[])[0].subscribers, [member.id]);
});

test('POST with principals (ids or emails) subscribes others and tells peers', async () => {
  await subscribe(t, member, 'crew');
  log.clear();
  const r = assertOk(await post(member, { subscriptions: [{ name: 'crew' }], principals: [other.id, member.id] }));
  assert.deepEqual(r.subscribed, { [subKey(other)]: ['crew'] });
  assert.deepEqual(r.already_subscribed, { [subKey(member)]: ['crew'] });
  const add = log.one('subscription', 'add');
  assert.deepEqual(add.userIds, [other.id]);
  assert.deepEqual((add.event.subscriptions as any[])[0].subscribers, sorted([member.id, other.id]));
  const peer = log.one('subscription', 'peer_add');
  assert.deepEqual(peer.event.user_ids, [other.id]);
  // Every non-guest except the new subscriber: the guest may not see a public stream's members.
  assert.deepEqual(sorted(peer.userIds), sorted([t.owner.id, admin.id, member.id]));
  const byEmail = assertOk(await post(member, { subscriptions: [{ name: 'crew' }], principals: [admin.email] }));
  assert.deepEqual(byEmail.subscribed, { [subKey(admin)]: ['crew'] });
  const members = assertOk(await t.api('GET', SUBS, { as: member, params: { include_subscribers: true } }));
  assert.deepEqual(members.subscriptions.find((s: any) => s.name === 'crew').subscribers, sorted([admin.id, member.id, other.id]));
});

test('POST creates private and web-public streams with their settings', async () => {
  const r = assertOk(await post(member, { subscriptions: [{ name: 'hush' }], invite_only: true, stream_post_policy: 2 }));
  assert.deepEqual(r.subscribed, { [subKey(member)]: ['hush'] });
  const s = assertOk(await t.api('GET', SUBS, { as: member })).subscriptions.find((x: any) => x.name === 'hush');
  assert.equal(s.invite_only, true);
  assert.equal(s.history_public_to_subscribers, false);
  assert.equal(s.stream_post_policy, 2);
  assert.equal(s.is_announcement_only, true);
  assertOk(await post(member, { subscriptions: [{ name: 'hush-shared' }], invite_only: true, history_public_to_subscribers: true }));
  const h = assertOk(await t.api('GET', SUBS, { as: member })).subscriptions.find((x: any) => x.name === 'hush-shared');
  assert.equal(h.history_public_to_subscribers, true);
  assertOk(await post(t.owner, { subscriptions: [{ name: 'kept' }], message_retention_days: 30 }));
  assertOk(await post(t.owner, { subscriptions: [{ name: 'forever' }], message_retention_days: 'unlimited' }));
  const own = assertOk(await t.api('GET', SUBS, { as: t.owner })).subscriptions;
  assert.equal(own.find((x: any) => x.name === 'kept').message_retention_days, 30);
  assert.equal(own.find((x: any) => x.name === 'forever').message_retention_days, -1);
  await setRealmSettings(t, { enable_spectator_access: true });
  assertOk(await post(t.owner, { subscriptions: [{ name: 'open-web' }], is_web_public: true }));
  const w = assertOk(await t.api('GET', SUBS, { as: t.owner })).subscriptions.find((x: any) => x.name === 'open-web');
  assert.equal(w.is_web_public, true);
  assertError(await post(admin, { subscriptions: [{ name: 'web2' }], is_web_public: true }), 'Insufficient permission');
  assertError(await post(t.owner, { subscriptions: [{ name: 'web3' }], is_web_public: true, invite_only: true }), 'Invalid parameters');
  await setRealmSettings(t, { enable_spectator_access: false });
  assertError(await post(t.owner, { subscriptions: [{ name: 'web4' }], is_web_public: true }), 'Web-public streams are not enabled.');
});

test('POST validation errors use Zulip wording', async () => {
  assertError(await post(member, {}), "Missing 'subscriptions' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'subscriptions' });
  assertError(await t.api('POST', SUBS, { as: member, params: { subscriptions: 'nope' } }), 'Argument "subscriptions" is not valid JSON.');
  assertError(await post(member, { subscriptions: { name: 'x' } }), 'subscriptions is not a list');
  assertError(await post(member, { subscriptions: ['x'] }), 'subscriptions[0] is not a dict');
  assertError(await post(member, { subscriptions: [{ description: 'x' }] }), 'name key is missing from subscriptions[0]');
  assertError(await post(member, { subscriptions: [{ name: 5 }] }), 'subscriptions[0]["name"] is not a string');
  assertError(await post(member, { subscriptions: [{ name: 'd', description: 'x'.repeat(1025) }] }),
    'subscriptions[0]["description"] is too long (limit: 1024 characters)');
  assertError(await post(member, { subscriptions: [{ name: '   ' }] }), "Stream name can't be empty!");
  assertError(await post(member, { subscriptions: [{ name: 'n'.repeat(61) }] }), 'Stream name too long (limit: 60 characters).');
  assertError(await post(member, { subscriptions: [{ name: 'bad\u0007name' }] }), 'Invalid character in stream name, at position 4!');
  assertError(await post(member, { subscriptions: [{ name: 'x' }], principals: [1, 'a'] }), 'principals is not an allowed_type');
  assertUnknownPrincipal(await post(member, { subscriptions: [{ name: 'x' }], principals: ['ghost@nowhere.test'] }), 'ghost@nowhere.test');
  assertUnknownPrincipal(await post(member, { subscriptions: [{ name: 'x' }], principals: [999999] }), 999999);
  assertError(await post(member, { subscriptions: [{ name: 'x' }], stream_post_policy: 9 }), 'Invalid stream_post_policy');
  assertError(await post(t.owner, { subscriptions: [{ name: 'x' }], message_retention_days: 0 }), "Bad value for 'message_retention_days': 0");
  assertError(await post(admin, { subscriptions: [{ name: 'x' }], message_retention_days: 10 }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await post(member, { subscriptions: [{ name: 'x' }], invite_only: 'yes' }), 'Argument "invite_only" is not valid JSON.');
  assertUnauthenticated(await post(null, { subscriptions: [{ name: 'x' }] }));
  // Nothing of a failed request is left behind.
  assert.equal((await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'x' } })).status, 400);
});

test('POST permissions: organization policies, guests and private streams', async () => {
  assertError(await post(guest, { subscriptions: [{ name: 'guest-made' }] }), 'Insufficient permission');
  assertError(await post(guest, { subscriptions: [{ name: 'design' }] }), 'Unable to access stream (design).');
  await setRealmSettings(t, { create_public_stream_policy: 2, create_private_stream_policy: 4 });
  assertError(await post(member, { subscriptions: [{ name: 'policy-pub' }] }), 'Insufficient permission');
  assertError(await post(member, { subscriptions: [{ name: 'policy-priv' }], invite_only: true }), 'Insufficient permission');
  assertOk(await post(admin, { subscriptions: [{ name: 'policy-pub' }] }));
  await setRealmSettings(t, { create_public_stream_policy: 3, waiting_period_threshold: 10 });
  assertError(await post(member, { subscriptions: [{ name: 'policy-full' }] }), 'Insufficient permission');
  await setRealmSettings(t, { create_public_stream_policy: 1, create_private_stream_policy: 1, waiting_period_threshold: 0, invite_to_stream_policy: 2 });
  // Asked by `other`, not member: from level 349 the creator (member) administers design and may add anyone.
  assertError(await post(other, { subscriptions: [{ name: 'design' }], principals: [admin.id] }), 'Insufficient permission');
  await setRealmSettings(t, { invite_to_stream_policy: 1 });
  // Private stream the caller is not on: fatal by default, listed when not.
  await subscribe(t, other, 'other-secret', { invite_only: true });
  assertError(await post(member, { subscriptions: [{ name: 'other-secret' }] }), 'Unable to access stream (other-secret).');
  assertError(await post(admin, { subscriptions: [{ name: 'other-secret' }], principals: [member.id] }), 'Unable to access stream (other-secret).');
  const soft = assertOk(await post(member, { subscriptions: [{ name: 'other-secret' }, { name: 'design' }], authorization_errors_fatal: false }));
  assert.deepEqual(soft.unauthorized, ['other-secret']);
  assert.deepEqual(soft.already_subscribed, { [subKey(member)]: ['design'] });
  // A subscriber may add others to a private stream.
  const add = assertOk(await post(other, { subscriptions: [{ name: 'other-secret' }], principals: [member.email] }));
  assert.deepEqual(add.subscribed, { [subKey(member)]: ['other-secret'] });
});

test('DELETE /users/me/subscriptions: removed, not_removed and missing streams', async () => {
  await subscribe(t, member, 'leave-me');
  log.clear();
  const r = assertOk(await t.api('DELETE', SUBS, { as: member, params: { subscriptions: ['leave-me'] } }));
  assert.deepEqual(r, { result: 'success', msg: '', removed: ['leave-me'], not_removed: [] });
  const rm = log.one('subscription', 'remove');
  assert.deepEqual(rm.userIds, [member.id]);
  assert.equal((rm.event.subscriptions as any[])[0].name, 'leave-me');
  const peer = log.one('subscription', 'peer_remove');
  assert.deepEqual(peer.event.user_ids, [member.id]);
  assert.ok(!peer.userIds.includes(member.id));
  const again = assertOk(await t.api('DELETE', SUBS, { as: member, params: { subscriptions: ['leave-me'] } }));
  assert.deepEqual(again.removed, []);
  assert.deepEqual(again.not_removed, ['leave-me']);
  assertError(await t.api('DELETE', SUBS, { as: member, params: { subscriptions: ['no-such-stream'] } }),
    "Stream 'no-such-stream' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'no-such-stream' });
  assertError(await t.api('DELETE', SUBS, { as: member, params: {} }), "Missing 'subscriptions' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'subscriptions' });
  assertError(await t.api('DELETE', SUBS, { as: member, params: { subscriptions: [1] } }), 'subscriptions[0] is not a string');
  assertUnauthenticated(await t.api('DELETE', SUBS, { as: null, params: { subscriptions: ['design'] } }));
  // Resubscribing restores the old color.
  const before = assertOk(await t.api('GET', SUBS, { as: member })).subscriptions.length;
  await subscribe(t, member, 'leave-me');
  assert.equal(assertOk(await t.api('GET', SUBS, { as: member })).subscriptions.length, before + 1);
});

test('DELETE for other users needs an administrator, also on private streams', async () => {
  // Created by `other`: from level 349 the creator, a channel administrator, may remove subscribers.
  await subscribe(t, other, 'kick', { invite_only: true, principals: [member.id, other.id] });
  // Level 161 (can_remove_subscribers_group) answers Zulip's "Insufficient permission"; Parley's older wording below.
  const refused = await t.api('DELETE', SUBS, { as: member, params: { subscriptions: ['kick'], principals: [other.id] } });
  if (FEATURE_LEVEL >= 161) assertError(refused, 'Insufficient permission');
  else assertError(refused, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const r = assertOk(await t.api('DELETE', SUBS, { as: admin, params: { subscriptions: ['kick'], principals: [other.email] } }));
  assert.deepEqual(r.removed, ['kick']);
  // Own principal alone is not "someone else".
  assertOk(await t.api('DELETE', SUBS, { as: member, params: { subscriptions: ['kick'], principals: [member.id] } }));
  assertUnknownPrincipal(await t.api('DELETE', SUBS, { as: admin, params: { subscriptions: ['kick'], principals: [424242] } }), 424242);
});

test('GET /users/me/subscriptions needs authentication and lists only active subscriptions', async () => {
  assertUnauthenticated(await t.api('GET', SUBS, { as: null }));
  const g = assertOk(await t.api('GET', SUBS, { as: guest }));
  assert.deepEqual(g.subscriptions, []);
  assertError(await t.api('GET', SUBS, { as: member, query: { include_subscribers: 'x' } }), 'Argument "include_subscribers" is not valid JSON.');
});

test('PATCH /users/me/subscriptions adds and deletes in one request', async () => {
  await subscribe(t, member, 'swap-out');
  const r = assertOk(await t.api('PATCH', SUBS, { as: member, params: { add: [{ name: 'swap-in' }], delete: ['swap-out'] } }));
  assert.deepEqual(r.subscribed, { [subKey(member)]: ['swap-in'] });
  assert.deepEqual(r.already_subscribed, {});
  assert.deepEqual(r.removed, ['swap-out']);
  assert.deepEqual(r.not_removed, []);
  // One half alone still answers both halves' keys, as Zulip's merged views do.
  const addOnly = assertOk(await t.api('PATCH', SUBS, { as: member, params: { add: [{ name: 'swap-out' }] } }));
  assert.deepEqual([addOnly.subscribed, addOnly.already_subscribed, addOnly.removed, addOnly.not_removed], [{ [subKey(member)]: ['swap-out'] }, {}, [], []]);
  const deleteOnly = assertOk(await t.api('PATCH', SUBS, { as: member, params: { delete: ['swap-out'] } }));
  assert.deepEqual([deleteOnly.subscribed, deleteOnly.already_subscribed, deleteOnly.removed, deleteOnly.not_removed], [{}, {}, ['swap-out'], []]);
  assertError(await t.api('PATCH', SUBS, { as: member, params: {} }), 'Nothing to do. Specify at least one of "add" or "delete".');
  assertError(await t.api('PATCH', SUBS, { as: member, params: { add: [], delete: [] } }), 'Nothing to do. Specify at least one of "add" or "delete".');
  assertError(await t.api('PATCH', SUBS, { as: member, params: { add: [{}] } }), 'name key is missing from add[0]');
  // A failing half undoes the other.
  assertError(await t.api('PATCH', SUBS, { as: member, params: { add: [{ name: 'swap-never' }], delete: ['no-such'] } }),
    "Stream 'no-such' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'no-such' });
  assert.equal((await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'swap-never' } })).status, 400);
  assertUnauthenticated(await t.api('PATCH', SUBS, { as: null, params: { delete: ['swap-in'] } }));
});
