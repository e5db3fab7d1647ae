import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { sendMessage } from '../helpers/messages.js';
import { assertOk } from '../helpers/assert.js';
import { sendMissedMessagePushes } from '../../src/notifications/push.js';

/** Without PARLEY_PUSH_BOUNCER_URL there is no mobile push: nothing queued, nothing reported. */
let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await testApp({ pushBouncerUrl: undefined });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
after(() => t.close());

test('push off: push_notifications_enabled false, devices stored but nothing queued, no worker', async () => {
  assert.equal(t.app.ctx.push, undefined);
  assert.equal(assertOk(await t.api('GET', '/api/v1/server_settings', { as: null })).push_notifications_enabled, false);
  const state = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['realm'] } }));
  assert.equal(state.realm_push_notifications_enabled, false);
  assertOk(await t.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: bob, params: { token: 'fcm-bob' } }));
  const id = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'hi' });
  await sendMissedMessagePushes(t.app.ctx, bob.row, [{ messageId: id, trigger: 'private_message', mentionedUserGroupId: null }]);
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'add', flag: 'read' } }));
  const db = t.app.ctx.store.db;
  assert.equal((await db.selectFrom('push_outbox').selectAll().execute()).length, 0);
  assert.equal((await db.selectFrom('push_active').selectAll().execute()).length, 0);
  assert.equal((await db.selectFrom('push_server').selectAll().execute()).length, 0);
});
