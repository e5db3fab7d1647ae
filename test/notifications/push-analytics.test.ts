import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, FEATURE_LEVEL, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { assertOk } from '../helpers/assert.js';
import { until } from '../helpers/until.js';
import { fakeBouncer, type FakeBouncer } from '../helpers/bouncer.js';
import { sendMissedMessagePushes } from '../../src/notifications/push.js';
import { derivedUuid, realmOwnerSecret } from '../../src/notifications/push-identity.js';
import { ANALYTICS_ENDPOINT, queueServerDataUpload } from '../../src/notifications/push-analytics.js';
import { pushOutbox } from '../../src/store/repos/push-outbox.js';
import { zulipVersionOf } from '../../src/lib/version.js';
import { nowSeconds } from '../../src/lib/time.js';
import { validateEvent } from '../../src/events/schemas.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';

/**
 * Zulip's send_server_data_to_push_bouncer against a fake service: the fields uploaded after
 * registering, the answer setting the organization's push status (register and events), and
 * the remove push of deleted messages.
 */
let bouncer: FakeBouncer;
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let org: { id: string; key: string };

before(async () => {
  bouncer = await fakeBouncer();
  t = await testApp({ pushBouncerUrl: bouncer.url });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  carol = await t.createUser({ name: 'Carol' });
  await createStreams(t, { Denmark: [alice, bob, carol] });
  const row = await t.app.ctx.store.db.selectFrom('push_server').selectAll().executeTakeFirstOrThrow();
  org = { id: row.zulip_org_id, key: row.zulip_org_key };
  assertOk(await t.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: bob, params: { token: 'fcm-bob' } }));
  assertOk(await t.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: carol, params: { token: 'fcm-carol' } }));
});
after(async () => {
  await t.close();
  await bouncer.close();
});

const push = () => t.app.ctx.push!;
const realmUuid = () => derivedUuid(org.id, 'realm', t.realm.id);
const uploads = () => bouncer.ok('server/analytics');

async function register(as: TestUser): Promise<Record<string, any>> {
  return assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm'] } }));
}

test('after registering, the server uploads its organizations with Zulip\'s fields, each a JSON text', async () => {
  let call = await until(() => uploads()[0]);
  if ((JSON.parse(call.body.realms) as unknown[]).length === 0) {
    // The service's registration may answer before the test has made its organization (testApp
    // makes it once the app has started): that first upload lists none, and the next one has it.
    await until(async () => !(await pushOutbox.hasPending(t.app.ctx.store.db, ANALYTICS_ENDPOINT)), { message: 'the first upload has left' });
    const sent = uploads().length;
    assert.equal(await queueServerDataUpload(t.app.ctx, nowSeconds() + 3600), true);
    await push().runDue(nowSeconds() + 3600);
    call = await until(() => uploads()[sent]);
  }
  assert.equal(call.auth, `${org.id}:${org.key}`);
  assert.match(call.contentType, /^application\/x-www-form-urlencoded/);
  assert.deepEqual(Object.keys(call.body).sort(),
    ['api_feature_level', 'installation_counts', 'merge_base', 'realm_counts', 'realmauditlog_rows', 'realms', 'version']);
  const { version, mergeBase } = zulipVersionOf(FEATURE_LEVEL);
  assert.equal(call.body.realm_counts, '[]');
  assert.equal(call.body.installation_counts, '[]');
  assert.equal(call.body.realmauditlog_rows, '[]');
  assert.equal(call.body.version, JSON.stringify(version));
  assert.equal(call.body.merge_base, JSON.stringify(mergeBase));
  assert.equal(call.body.api_feature_level, String(FEATURE_LEVEL));
  const realm = t.realm;
  assert.deepEqual(JSON.parse(call.body.realms), [{
    id: realm.id, host: HOST, url: `http://${HOST}`, name: realm.name, org_type: 0, date_created: realm.date_created,
    deactivated: false, is_system_bot_realm: false, authentication_methods: { Email: true },
    uuid: realmUuid(), uuid_owner_secret: realmOwnerSecret(org.key, realm.id),
  }]);
  // The realm UUID is the one of the push calls; the owner secret is stable, Zulip's form, and not the key.
  const reg = await until(() => bouncer.ok('push/register').find((c) => c.body.token === 'fcm-bob'));
  assert.equal(reg.body.realm_uuid, realmUuid());
  assert.match(realmOwnerSecret(org.key, realm.id), /^zuliprealm_[0-9a-f]{32}$/);
  assert.ok(!realmOwnerSecret(org.key, realm.id).includes(org.key));
  // Queued once per hour: asking again at once queues nothing.
  assert.equal(await queueServerDataUpload(t.app.ctx), false);
  const state = await register(bob);
  assert.equal(state.realm_push_notifications_enabled, true);
  if (FEATURE_LEVEL >= 231) assert.equal(state.realm_push_notifications_enabled_end_timestamp, null);
});

test('the service\'s answer sets the push status: register follows it and realm/update events tell it', async () => {
  const end = nowSeconds() + 30 * 86_400;
  // An upload an earlier test queued may still be in the outbox (under load it leaves later):
  // while one is pending no other is queued, so this test starts once it has gone. Its clocks
  // run hours ahead, past the one after registration, which a loaded machine may queue late.
  await push().runDue(nowSeconds());
  await until(async () => !(await pushOutbox.hasPending(t.app.ctx.store.db, ANALYTICS_ENDPOINT)), { message: 'the earlier upload has left' });
  const before = uploads().length;
  const state = await register(bob);
  bouncer.realmStatus = () => ({ can_push: false, expected_end_timestamp: end });
  assert.equal(await queueServerDataUpload(t.app.ctx, nowSeconds() + 2 * 3600), true);
  await push().runDue(nowSeconds() + 2 * 3600);
  await until(() => uploads().length > before);
  await until(async () => (await register(bob)).realm_push_notifications_enabled === false);
  const fresh = await register(bob);
  if (FEATURE_LEVEL >= 231) assert.equal(fresh.realm_push_notifications_enabled_end_timestamp, end);
  const polled = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true } }));
  const events = (polled.events as Array<Record<string, any>>).filter((e) => e.type === 'realm');
  const expected: Array<Record<string, unknown>> = [{ type: 'realm', op: 'update', property: 'push_notifications_enabled', value: false }];
  if (FEATURE_LEVEL >= 231) expected.push({ type: 'realm', op: 'update', property: 'push_notifications_enabled_end_timestamp', value: end });
  assert.deepEqual(events.map(({ id: _id, ...e }) => e), expected);
  // The guard's rule: the events applied to the old state give the fresh one, in each event's schema.
  for (const e of events) {
    assert.deepEqual(validateEvent(e as Record<string, unknown> & { type: string }), []);
    applyEvent(state, e as ClientEvent, bob.id);
  }
  for (const key of ['realm_push_notifications_enabled', 'realm_push_notifications_enabled_end_timestamp']) assert.deepEqual(state[key], fresh[key]);
  // The same answer again changes nothing and tells nothing.
  const again = await register(bob);
  assert.equal(await queueServerDataUpload(t.app.ctx, nowSeconds() + 4 * 3600), true);
  await push().runDue(nowSeconds() + 4 * 3600);
  await until(() => uploads().length > before + 1);
  const quiet = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: again.queue_id, last_event_id: -1, dont_block: true } }));
  assert.equal((quiet.events as Array<{ type: string }>).filter((e) => e.type === 'realm').length, 0);
  // Back on: the service's plan renewed.
  bouncer.realmStatus = () => ({ can_push: true, expected_end_timestamp: null });
  assert.equal(await queueServerDataUpload(t.app.ctx, nowSeconds() + 6 * 3600), true);
  await push().runDue(nowSeconds() + 6 * 3600);
  await until(async () => (await register(bob)).realm_push_notifications_enabled === true);
});

test('deleting a pushed message sends the remove push to the user it was pushed to, and no one else', async () => {
  const id = await sendMessage(t, alice, { type: 'stream', to: 'Denmark', topic: 'gone', content: 'delete me' });
  const other = await sendMessage(t, alice, { type: 'stream', to: 'Denmark', topic: 'gone', content: 'keep me' });
  await sendMissedMessagePushes(t.app.ctx, bob.row, [{ messageId: id, trigger: 'stream_push_notify', mentionedUserGroupId: null }]);
  await sendMissedMessagePushes(t.app.ctx, carol.row, [{ messageId: other, trigger: 'stream_push_notify', mentionedUserGroupId: null }]);
  await push().runDue();
  const notifies = (userId: number) => bouncer.ok('push/notify').filter((c) => c.body.user_id === userId);
  await until(() => notifies(bob.id).length > 0 && notifies(carol.id).length > 0);
  assertOk(await t.api('DELETE', `/api/v1/messages/${id}`));
  await push().runDue();
  const remove = await until(() => notifies(bob.id).find((c) => c.body.gcm_payload.event === 'remove'));
  assert.equal(remove.body.gcm_payload.zulip_message_ids, String(id));
  assert.deepEqual(remove.body.android_devices, ['fcm-bob']);
  assert.equal(notifies(carol.id).filter((c) => c.body.gcm_payload.event === 'remove').length, 0);
  const active = await t.app.ctx.store.db.selectFrom('push_active').selectAll().execute();
  assert.deepEqual(active.map((r) => [r.user_id, r.message_id]), [[carol.id, other]]);
  // Deleting the topic removes carol's.
  const streamId = (await t.app.ctx.store.db.selectFrom('message').select('stream_id').where('id', '=', other).executeTakeFirstOrThrow()).stream_id;
  assertOk(await t.api('POST', `/api/v1/streams/${streamId}/delete_topic`, { params: { topic_name: 'gone' } }));
  await push().runDue();
  const carolRemove = await until(() => notifies(carol.id).find((c) => c.body.gcm_payload.event === 'remove'));
  assert.equal(carolRemove.body.gcm_payload.zulip_message_ids, String(other));
  assert.equal(notifies(bob.id).filter((c) => c.body.gcm_payload.event === 'remove').length, 1);
});
