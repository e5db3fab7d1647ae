import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, FEATURE_LEVEL, HOST, OWNER_EMAIL, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { assertOk } from '../helpers/assert.js';
import { until } from '../helpers/until.js';
import { fakeBouncer, type BouncerCall, type FakeBouncer } from '../helpers/bouncer.js';
import { sendMissedMessagePushes } from '../../src/notifications/push.js';
import { derivedUuid } from '../../src/notifications/push-identity.js';
import { startPushOutbox } from '../../src/notifications/push-outbox.js';
import { avatarUrl } from '../../src/presenters/user.js';
import { nowSeconds } from '../../src/lib/time.js';
import type { MissedMessage } from '../../src/notifications/triggers.js';
import { scaledMs } from '../helpers/machine.js';

/**
 * Mobile push through Zulip's push notification service (zerver/lib/push_notifications.py,
 * zilencer/views.py), against a fake service: registration, devices, the payloads the
 * Zulip apps read, the remove push, and a service that fails or hangs.
 */
let bouncer: FakeBouncer;
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let org: { id: string; key: string };

const FCM = '/api/v1/users/me/android_gcm_reg_id';
const APNS = '/api/v1/users/me/apns_device_token';
const APNS_TOKEN = 'a1b2c3d4'.repeat(8);

before(async () => {
  bouncer = await fakeBouncer();
  t = await testApp({ pushBouncerUrl: bouncer.url });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  carol = await t.createUser({ name: 'Carol' });
  await createStreams(t, { Denmark: [alice, bob, carol] });
  const row = await t.app.ctx.store.db.selectFrom('push_server').selectAll().executeTakeFirstOrThrow();
  org = { id: row.zulip_org_id, key: row.zulip_org_key };
  assertOk(await t.api('POST', FCM, { as: bob, params: { token: 'fcm-bob' } }));
  assertOk(await t.api('POST', APNS, { as: bob, params: { token: APNS_TOKEN, appid: 'org.zulip.Zulip' } }));
});
after(async () => {
  await t.close();
  await bouncer.close();
});
beforeEach(() => bouncer.setMode('ok'));

const push = () => t.app.ctx.push!;
const notifies = (userId: number) => bouncer.ok('push/notify').filter((c) => c.body.user_id === userId);
const realmUuid = () => derivedUuid(org.id, 'realm', t.realm.id);
const userUuid = (u: TestUser) => derivedUuid(org.id, 'user', u.id);
const base = (u: TestUser) => ({
  server: HOST, realm_id: t.realm.id, realm_uri: `http://${HOST}`,
  ...(FEATURE_LEVEL >= 257 ? { realm_url: `http://${HOST}` } : {}),
  realm_name: t.realm.name, user_id: u.id,
});
const messageRow = (id: number) => t.app.ctx.store.db.selectFrom('message').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const missed = (messageId: number, trigger: MissedMessage['trigger']): MissedMessage => ({ messageId, trigger, mentionedUserGroupId: null });

/**
 * Queues bob's push for the message and waits for the service to have it. The server's own
 * notification worker may have queued it first (bob is away): a message is pushed once either way.
 */
async function pushToBob(messageId: number, trigger: MissedMessage['trigger']): Promise<BouncerCall> {
  // The worker's own notification of the message is handled first, so that none is left to
  // arrive later (after the test has marked the message unread again, say).
  await t.app.ctx.notifications!.decideNow();
  await t.app.ctx.notifications!.runDue();
  const db = t.app.ctx.store.db;
  await until(async () => (await db.selectFrom('missed_message_notification').select('id').where('user_id', '=', bob.id).where('kind', '=', 'push').execute()).length === 0);
  await sendMissedMessagePushes(t.app.ctx, bob.row, [missed(messageId, trigger)]);
  await push().runDue();
  return until(() => notifies(bob.id).find((c) => c.body.gcm_payload.event === 'message' && c.body.gcm_payload.zulip_message_id === messageId));
}

test('at start the server registers itself (Zulip\'s register_server) and then reports push notifications enabled', async () => {
  const reg = await until(() => bouncer.ok('server/register')[0]);
  assert.equal(reg.auth, null);
  assert.match(reg.contentType, /^application\/x-www-form-urlencoded/);
  assert.deepEqual(reg.body, { zulip_org_id: org.id, zulip_org_key: org.key, hostname: HOST, contact_email: OWNER_EMAIL });
  assert.match(org.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(org.key, /^[A-Za-z0-9]{64}$/);
  await until(async () => assertOk(await t.api('GET', '/api/v1/server_settings', { as: null })).push_notifications_enabled === true);
  const state = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['realm'] } }));
  assert.equal(state.realm_push_notifications_enabled, true);
});

test('devices added and removed are forwarded with basic auth (push/register, push/unregister)', async () => {
  const fcm = await until(() => bouncer.ok('push/register').find((c) => c.body.token === 'fcm-bob'));
  assert.equal(fcm.auth, `${org.id}:${org.key}`);
  assert.deepEqual(fcm.body, {
    server_uuid: org.id, user_uuid: userUuid(bob), realm_uuid: realmUuid(), user_id: String(bob.id), token: 'fcm-bob', token_kind: '2',
  });
  const apns = await until(() => bouncer.ok('push/register').find((c) => c.body.token === APNS_TOKEN));
  assert.deepEqual(apns.body, {
    server_uuid: org.id, user_uuid: userUuid(bob), realm_uuid: realmUuid(), user_id: String(bob.id), token: APNS_TOKEN, token_kind: '1', ios_app_id: 'org.zulip.Zulip',
  });
  assertOk(await t.api('POST', FCM, { as: carol, params: { token: 'fcm-carol' } }));
  assertOk(await t.api('DELETE', FCM, { as: carol, params: { token: 'fcm-carol' } }));
  const gone = await until(() => bouncer.ok('push/unregister').find((c) => c.body.token === 'fcm-carol'));
  assert.equal(gone.auth, `${org.id}:${org.key}`);
  assert.deepEqual(gone.body, { server_uuid: org.id, user_uuid: userUuid(carol), realm_uuid: realmUuid(), user_id: String(carol.id), token: 'fcm-carol', token_kind: '2' });
});

test('a mention in a stream: Zulip\'s gcm_payload, gcm_options and apns_payload', async () => {
  // Zulip's :smile: is U+1F642; the push shows the character.
  const id = await sendMessage(t, alice, { type: 'stream', to: 'Denmark', topic: 'greetings', content: '@**Bob** hello :smile:' });
  const m = await messageRow(id);
  const call = await pushToBob(id, 'mentioned');
  assert.equal(call.auth, `${org.id}:${org.key}`);
  assert.match(call.contentType, /^application\/json/);
  const message = {
    ...base(bob), sender_id: alice.id, sender_email: alice.row.email, time: m.date_sent,
    recipient_type: 'stream', stream: 'Denmark', stream_id: m.stream_id, topic: 'greetings',
  };
  assert.deepEqual(call.body, {
    user_uuid: userUuid(bob), user_id: bob.id, realm_uuid: realmUuid(),
    gcm_payload: {
      ...message, event: 'message', zulip_message_id: id, content: '@Bob hello 🙂', content_truncated: false,
      sender_full_name: 'Alice', sender_avatar_url: avatarUrl(alice.row, false),
    },
    gcm_options: { priority: 'high' },
    apns_payload: {
      alert: { title: '#Denmark > greetings', subtitle: 'Alice mentioned you:', body: '@Bob hello 🙂' },
      sound: 'default', badge: 0, custom: { zulip: { ...message, message_ids: [id] } },
    },
    android_devices: ['fcm-bob'], apple_devices: [APNS_TOKEN],
  });
  // Pushed once: a second notification of the same message calls nothing.
  await sendMissedMessagePushes(t.app.ctx, bob.row, [missed(id, 'mentioned')]);
  assert.equal(await push().runDue(), 0);
  assert.equal(notifies(bob.id).filter((c) => c.body.gcm_payload.zulip_message_id === id).length, 1);
});

test('a stream message and a long one: the sender as subtitle; content cut at 200 characters with an ellipsis', async () => {
  const id = await sendMessage(t, alice, { type: 'stream', to: 'Denmark', topic: 'long', content: 'x'.repeat(250) });
  const call = await pushToBob(id, 'stream_push_notify');
  assert.equal(call.body.gcm_payload.content, `${'x'.repeat(200)}…`);
  assert.equal(call.body.gcm_payload.content_truncated, true);
  assert.deepEqual(call.body.apns_payload.alert, { title: '#Denmark > long', subtitle: 'Alice:', body: `${'x'.repeat(200)}…` });
});

test('PARLEY_PUSH_REDACT_CONTENT: "New message" instead of the content, in both payloads', async () => {
  const config = t.app.ctx.config as { pushRedactContent: boolean };
  config.pushRedactContent = true;
  try {
    const id = await sendMessage(t, alice, { type: 'stream', to: 'Denmark', topic: 'secret', content: 'the launch code is 1234' });
    const call = await pushToBob(id, 'stream_push_notify');
    assert.equal(call.body.gcm_payload.content, 'New message');
    assert.equal(call.body.gcm_payload.content_truncated, false);
    assert.equal(call.body.apns_payload.alert.body, 'New message');
    assert.ok(!JSON.stringify(call.body).includes('1234'));
  } finally {
    config.pushRedactContent = false;
  }
});

test('a direct message: the sender as title, no subtitle, no pm_users', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'hi **Bob**' });
  const m = await messageRow(id);
  const call = await pushToBob(id, 'private_message');
  const message = { ...base(bob), sender_id: alice.id, sender_email: alice.row.email, time: m.date_sent, recipient_type: 'private' };
  assert.deepEqual(call.body.gcm_payload, {
    ...message, event: 'message', zulip_message_id: id, content: 'hi Bob', content_truncated: false,
    sender_full_name: 'Alice', sender_avatar_url: avatarUrl(alice.row, false),
  });
  assert.deepEqual(call.body.gcm_options, { priority: 'high' });
  assert.deepEqual(call.body.apns_payload, {
    alert: { title: 'Alice', subtitle: '', body: 'hi Bob' }, sound: 'default', badge: 0, custom: { zulip: { ...message, message_ids: [id] } },
  });
});

test('a group direct message: everyone\'s names as title, pm_users', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id, carol.id]), content: 'all of us' });
  const call = await pushToBob(id, 'private_message');
  const pmUsers = [alice.id, bob.id, carol.id].sort((a, b) => a - b).join(',');
  assert.equal(call.body.gcm_payload.pm_users, pmUsers);
  assert.equal(call.body.gcm_payload.recipient_type, 'private');
  assert.deepEqual(call.body.apns_payload.alert, { title: 'Alice, Bob, Carol', subtitle: 'Alice:', body: 'all of us' });
  assert.equal(call.body.apns_payload.custom.zulip.pm_users, pmUsers);
});

test('reading a pushed message sends Zulip\'s remove push; reading it again sends nothing', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'read me' });
  await pushToBob(id, 'private_message');
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'add', flag: 'read' } }));
  await push().runDue();
  const remove = await until(() => notifies(bob.id).find((c) => c.body.gcm_payload.event === 'remove' && c.body.gcm_payload.zulip_message_ids === String(id)));
  assert.deepEqual(remove.body.gcm_payload, { ...base(bob), event: 'remove', zulip_message_ids: String(id), zulip_message_id: id });
  assert.deepEqual(remove.body.gcm_options, { priority: 'normal' });
  assert.deepEqual(remove.body.apns_payload, { badge: 0, custom: { zulip: { ...base(bob), event: 'remove', zulip_message_ids: String(id) } } });
  const removes = () => notifies(bob.id).filter((c) => c.body.gcm_payload.event === 'remove').length;
  const n = removes();
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'remove', flag: 'read' } }));
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'add', flag: 'read' } }));
  await push().runDue();
  assert.equal(removes(), n);
  // Marking everything read removes every push still shown (the earlier tests' too).
  const a = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'one' });
  const b = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'two' });
  await pushToBob(a, 'private_message');
  await pushToBob(b, 'private_message');
  assertOk(await t.api('POST', '/api/v1/mark_all_as_read', { as: bob }));
  await push().runDue();
  await until(() => notifies(bob.id).find((c) => c.body.gcm_payload.event === 'remove' && c.body.gcm_payload.zulip_message_ids.endsWith(`,${a},${b}`)));
  assertOk(await t.api('POST', '/api/v1/mark_all_as_read', { as: bob }));
  assert.equal((await t.app.ctx.store.db.selectFrom('push_active').selectAll().where('user_id', '=', bob.id).execute()).length, 0);
});

test('two workers on one database (a cluster\'s nodes): each call is made once', async () => {
  const second = startPushOutbox(t.app.ctx);
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: `twice? ${i}` }));
  await sendMissedMessagePushes(t.app.ctx, bob.row, ids.map((id) => missed(id, 'private_message')));
  await Promise.all([push().runDue(), second.runDue(), push().runDue(), second.runDue()]);
  await until(async () => (await t.app.ctx.store.db.selectFrom('push_outbox').selectAll().execute()).length === 0);
  for (const id of ids) assert.equal(notifies(bob.id).filter((c) => c.body.gcm_payload.zulip_message_id === id).length, 1);
});

test('a failing service (500) is retried with backoff and the push delivered once', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'retry me' });
  const mine = (c: BouncerCall) => c.endpoint === 'push/notify' && c.body.gcm_payload?.zulip_message_id === id;
  bouncer.setMode('fail', (_e, body) => body.gcm_payload?.zulip_message_id === id);
  await sendMissedMessagePushes(t.app.ctx, bob.row, [missed(id, 'private_message')]);
  await push().runDue();
  await until(() => bouncer.calls.some((c) => mine(c) && c.status === 500));
  const row = await t.app.ctx.store.db.selectFrom('push_outbox').selectAll().where('endpoint', '=', 'push/notify').executeTakeFirstOrThrow();
  assert.equal(row.attempts, 1);
  assert.ok(row.due > nowSeconds(), 'the retry waits');
  bouncer.setMode('ok');
  await push().runDue(row.due);
  assert.equal(bouncer.calls.filter((c) => mine(c) && c.status === 200).length, 1);
  await push().runDue(nowSeconds() + 86_400);
  assert.equal(bouncer.calls.filter((c) => mine(c) && c.status === 200).length, 1);
  assert.equal((await t.app.ctx.store.db.selectFrom('push_outbox').selectAll().execute()).length, 0);
});

test('refused credentials (401) are retried too; a service refusing for a day is given up', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'refused' });
  bouncer.setMode('refuse', (_e, body) => body.gcm_payload?.zulip_message_id === id);
  await sendMissedMessagePushes(t.app.ctx, bob.row, [missed(id, 'private_message')]);
  await push().runDue();
  await until(() => bouncer.calls.some((c) => c.status === 401));
  await push().runDue(nowSeconds() + 86_400 + 60);
  assert.equal((await t.app.ctx.store.db.selectFrom('push_outbox').selectAll().execute()).length, 0);
});

test('a hanging service delays no send and no other call', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'hang' });
  bouncer.setMode('hang', (e, body) => e === 'push/notify' && body.gcm_payload?.zulip_message_id === id);
  await sendMissedMessagePushes(t.app.ctx, bob.row, [missed(id, 'private_message')]);
  await until(() => bouncer.calls.some((c) => c.status === 0));
  const started = Date.now();
  for (let i = 0; i < 10; i++) await sendMessage(t, alice, { type: 'stream', to: 'Denmark', topic: 'busy', content: `m${i}` });
  // Below the bouncer's 10 s timeout, which a send waiting on the hanging call would take.
  assert.ok(Date.now() - started < scaledMs(5000, 9000), 'sends go on');
  assertOk(await t.api('POST', FCM, { as: carol, params: { token: 'fcm-carol-2' } }));
  await until(() => bouncer.ok('push/register').find((c) => c.body.token === 'fcm-carol-2'));
});

test('deactivating a user and regenerating an API key unregister their devices (push/unregister/all)', async () => {
  const dave = await t.createUser({ name: 'Dave' });
  assertOk(await t.api('POST', FCM, { as: dave, params: { token: 'fcm-dave' } }));
  assertOk(await t.api('POST', '/api/v1/users/me/api_key/regenerate', { as: dave }));
  const all = await until(() => bouncer.ok('push/unregister/all').find((c) => c.body.user_id === String(dave.id)));
  assert.deepEqual(all.body, { server_uuid: org.id, user_uuid: userUuid(dave), realm_uuid: realmUuid(), user_id: String(dave.id) });
  assertOk(await t.api('POST', FCM, { as: carol, params: { token: 'fcm-carol-3' } }));
  assertOk(await t.api('DELETE', `/api/v1/users/${carol.id}`));
  await until(() => bouncer.ok('push/unregister/all').find((c) => c.body.user_id === String(carol.id)));
});
