import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

/**
 * receives_typing_notifications (level 253; Zulip's do_send_typing_notification and
 * do_send_stream_typing_notification): no typing events, direct or channel, to users who
 * turned it off; the others still hear them. The event's message_type stays "private"
 * (level 215 decision, docs/api-coverage.md).
 */
let t: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser;
let general: number;
before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  general = (await createStreams(t, { general: [alice, bob, carol] })).general.id;
});
after(() => t.close());

test('a user with receives_typing_notifications off hears no typing; the setting is in register from 253', async () => {
  const state = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['user_settings'] } }));
  assert.equal(state.user_settings.receives_typing_notifications, true);
  const log = new EventLog(t);
  assertOk(await t.api('POST', '/api/v1/typing', { as: alice, params: { op: 'start', to: JSON.stringify([bob.id, carol.id]) } }));
  assert.deepEqual(log.one('typing').userIds.sort(), [alice.id, bob.id, carol.id].sort());
  assert.equal(log.one('typing').event.message_type, 'private');
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { receives_typing_notifications: false } }));
  log.clear();
  assertOk(await t.api('POST', '/api/v1/typing', { as: alice, params: { op: 'start', to: JSON.stringify([bob.id, carol.id]) } }));
  assert.deepEqual(log.one('typing').userIds.sort(), [alice.id, carol.id].sort());
  log.clear();
  assertOk(await t.api('POST', '/api/v1/typing', { as: alice, params: { type: 'channel', op: 'start', stream_id: general, topic: 'x' } }));
  assert.deepEqual(log.one('typing').userIds.sort(), [alice.id, carol.id].sort());
  // Bob still sends his own.
  log.clear();
  assertOk(await t.api('POST', '/api/v1/typing', { as: bob, params: { op: 'stop', to: JSON.stringify([alice.id]) } }));
  assert.deepEqual(log.one('typing').userIds.sort(), [alice.id]);
});
