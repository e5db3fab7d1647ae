import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

let t: TestApp;
let admin: TestUser, member: TestUser, other: TestUser, guest: TestUser;
let pub: number, secret: number;
let log: EventLog;
const PROPS = '/api/v1/users/me/subscriptions/properties';
const MUTE = '/api/v1/users/me/subscriptions/muted_topics';
before(async () => {
  t = await testApp();
  ({ admin, member, other, guest } = await t.createUsers(ROLES));
  pub = await subscribe(t, member, 'lobby');
  secret = await subscribe(t, other, 'vault', { invite_only: true });
  log = new EventLog(t);
});
after(async () => { await t.close(); });

const status = (as: TestUser | null, userId: number | string, streamId: number | string) =>
  t.api('GET', `/api/v1/users/${userId}/subscriptions/${streamId}`, { as });

test('GET /users/{user_id}/subscriptions/{stream_id}', async () => {
  assert.deepEqual(assertOk(await status(other, member.id, pub)), { result: 'success', msg: '', is_subscribed: true });
  assert.equal(assertOk(await status(member, other.id, pub)).is_subscribed, false);
  // Administrators may ask about private streams; members who cannot see them may not.
  assert.equal(assertOk(await status(admin, other.id, secret)).is_subscribed, true);
  assertError(await status(member, other.id, secret), 'Invalid stream id');
  assertError(await status(member, other.id, 999999), 'Invalid stream id');
  assertError(await status(guest, member.id, pub), 'Invalid stream id');
  assertError(await status(member, 999999, pub), 'No such user');
  assertError(await status(member, 'abc', pub), 'Invalid user id');
  assertError(await status(member, member.id, 'abc'), 'Invalid stream id');
  assertUnauthenticated(await status(null, member.id, pub));
});

test('POST /users/me/subscriptions/properties changes settings and notifies only the user', async () => {
  log.clear();
  const r = assertOk(await t.api('POST', PROPS, { as: member, params: { subscription_data: [
    { stream_id: pub, property: 'color', value: '#ABC' },
    { stream_id: pub, property: 'pin_to_top', value: true },
    { stream_id: pub, property: 'is_muted', value: true },
    { stream_id: pub, property: 'desktop_notifications', value: false },
    { stream_id: pub, property: 'wildcard_mentions_notify', value: true },
  ] } }));
  assert.deepEqual(r.subscription_data[0], { stream_id: pub, property: 'color', value: '#aabbcc' });
  const sub = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: member })).subscriptions.find((s: any) => s.stream_id === pub);
  assert.equal(sub.color, '#aabbcc');
  assert.equal(sub.pin_to_top, true);
  assert.equal(sub.is_muted, true);
  assert.equal(sub.in_home_view, false);
  assert.equal(sub.desktop_notifications, false);
  assert.equal(sub.wildcard_mentions_notify, true);
  assert.equal(sub.push_notifications, null);
  const updates = log.find('subscription', 'update');
  assert.ok(updates.every((e) => e.userIds.length === 1 && e.userIds[0] === member.id));
  const props = updates.map((e) => [e.event.property, e.event.value]);
  assert.deepEqual(props, [['color', '#aabbcc'], ['pin_to_top', true], ['is_muted', true], ['in_home_view', false],
    ['desktop_notifications', false], ['wildcard_mentions_notify', true]]);
  assert.equal(updates[0]!.event.stream_id, pub);
  // The legacy inverse property works too.
  assertOk(await t.api('POST', PROPS, { as: member, params: { subscription_data: [{ stream_id: pub, property: 'in_home_view', value: true }] } }));
  const again = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: member })).subscriptions.find((s: any) => s.stream_id === pub);
  assert.equal(again.is_muted, false);
});

test('subscription properties: every error', async () => {
  const call = (as: TestUser | null, subscription_data: unknown) => t.api('POST', PROPS, { as, params: { subscription_data } });
  assertError(await t.api('POST', PROPS, { as: member, params: {} }), "Missing 'subscription_data' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'subscription_data' });
  assertError(await call(member, { stream_id: pub }), 'subscription_data is not a list');
  assertError(await call(member, [1]), 'subscription_data[0] is not a dict');
  assertError(await call(member, [{ stream_id: pub, property: 'color' }]), 'value key is missing from subscription_data[0]');
  assertError(await call(member, [{ stream_id: 'x', property: 'color', value: '#fff' }]), 'subscription_data[0]["stream_id"] is not an integer');
  assertError(await call(member, [{ stream_id: pub, property: 3, value: '#fff' }]), 'subscription_data[0]["property"] is not a string');
  assertError(await call(member, [{ stream_id: pub, property: 'color', value: 7 }]), 'subscription_data[0]["value"] is not an allowed_type');
  assertError(await call(member, [{ stream_id: pub, property: 'volume', value: true }]), 'Unknown subscription property: volume');
  assertError(await call(member, [{ stream_id: pub, property: 'color', value: 'red' }]), 'color is not a valid hex color code');
  assertError(await call(member, [{ stream_id: pub, property: 'pin_to_top', value: 'yes' }]), 'pin_to_top is not a boolean');
  assertError(await call(other, [{ stream_id: pub, property: 'pin_to_top', value: true }]), `Not subscribed to stream id ${pub}`);
  assertError(await call(member, [{ stream_id: secret, property: 'pin_to_top', value: true }]), 'Invalid stream id');
  assertError(await call(member, [{ stream_id: 999999, property: 'pin_to_top', value: true }]), 'Invalid stream id');
  assertUnauthenticated(await call(null, []));
});

test('PATCH /users/me/subscriptions/muted_topics mutes and unmutes', async () => {
  log.clear();
  assertOk(await t.api('PATCH', MUTE, { as: member, params: { stream_id: pub, topic: 'Noise', op: 'add' } }));
  const ev = log.one('muted_topics');
  assert.deepEqual(ev.userIds, [member.id]);
  const entries = ev.event.muted_topics as any[];
  assert.equal(entries.length, 1);
  assert.equal(entries[0][0], 'lobby');
  assert.equal(entries[0][1], 'Noise');
  assert.equal(typeof entries[0][2], 'number');
  // Before feature level 169 muting a muted topic is an error; since, it changes nothing (test/user-topics).
  const strict = t.app.ctx.config.featureLevel < 169;
  const again = await t.api('PATCH', MUTE, { as: member, params: { stream: 'lobby', topic: 'noise', op: 'add' } });
  if (strict) assertError(again, 'Topic already muted');
  else assertOk(again);
  assertOk(await t.api('PATCH', MUTE, { as: member, params: { stream: 'lobby', topic: 'Other', op: 'add' } }));
  log.clear();
  assertOk(await t.api('PATCH', MUTE, { as: member, params: { stream: 'lobby', topic: 'NOISE', op: 'remove' } }));
  assert.deepEqual((log.one('muted_topics').event.muted_topics as any[]).map((e) => e[1]), ['Other']);
  const unmuted = await t.api('PATCH', MUTE, { as: member, params: { stream_id: pub, topic: 'noise', op: 'remove' } });
  if (strict) assertError(unmuted, 'Topic is not muted');
  else assertOk(unmuted);
});

test('muted topics: every error', async () => {
  const call = (as: TestUser | null, params: Record<string, unknown>) => t.api('PATCH', MUTE, { as, params });
  assertError(await call(member, { topic: 't', op: 'add' }), "Please supply 'stream'.");
  assertError(await call(member, { stream_id: pub, stream: 'lobby', topic: 't', op: 'add' }), "Please choose one: 'stream' or 'stream_id'.");
  assertError(await call(member, { stream_id: pub, topic: 't', op: 'toggle' }), 'Invalid op');
  assertError(await call(member, { stream_id: pub, op: 'add' }), "Missing 'topic' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'topic' });
  assertError(await call(member, { stream_id: pub, topic: 't' }), "Missing 'op' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'op' });
  assertError(await call(member, { stream_id: secret, topic: 't', op: 'add' }), 'Invalid stream id');
  assertError(await call(member, { stream_id: 999999, topic: 't', op: 'add' }), 'Invalid stream id');
  assertError(await call(member, { stream: 'vault', topic: 't', op: 'add' }), "Invalid stream name 'vault'");
  assertError(await call(member, { stream: 'nowhere', topic: 't', op: 'add' }), "Invalid stream name 'nowhere'");
  // Unmuting on a stream one cannot see answers exactly like a topic that is not muted.
  assertError(await call(member, { stream: 'vault', topic: 't', op: 'remove' }), 'Topic is not muted');
  assertError(await call(member, { stream: 'nowhere', topic: 't', op: 'remove' }), 'Topic is not muted');
  assertError(await call(guest, { stream_id: pub, topic: 't', op: 'add' }), 'Invalid stream id');
  assertUnauthenticated(await call(null, { stream_id: pub, topic: 't', op: 'add' }));
});
