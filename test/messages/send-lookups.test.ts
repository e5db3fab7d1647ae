/**
 * A send reads its stream, the sender's subscription, the subscriber list and the alert
 * words from a cache (src/actions/send-lookups.ts). Each test sends once to fill that
 * cache, changes something through the API, and sends again: the second send must see
 * the change at once.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { sql } from 'kysely';

let t: TestApp;
let log: EventLog;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let streamId: number;

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  const { kitchen: s } = await createStreams(t, { kitchen: [alice, bob] });
  // The owner administers the stream as a subscriber, so that it can also make it public again.
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: t.owner, params: { subscriptions: [{ name: 'kitchen' }] } }));
  streamId = s.id;
  log = new EventLog(t);
});
after(() => t.close());
beforeEach(() => log.clear());

const sendTo = (as: TestUser, to: string, content = 'hello') => sendMessage(t, as, { type: 'stream', to, topic: 'cache', content });

/** Who the message event for `id` went to, sorted. */
function audience(id: number): number[] {
  const e = log.one('message', undefined, (x) => (x.event.message as { id: number }).id === id);
  return [...e.userIds].sort((a, b) => a - b);
}

const sorted = (...users: TestUser[]) => users.map((u) => u.id).sort((a, b) => a - b);

test('a new subscriber receives the very next message, and one who left does not', async () => {
  assert.deepEqual(audience(await sendTo(alice, 'kitchen')), sorted(t.owner, alice, bob));
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: carol, params: { subscriptions: [{ name: 'kitchen' }] } }));
  const second = await sendTo(alice, 'kitchen');
  assert.deepEqual(audience(second), sorted(t.owner, alice, bob, carol));
  const m = assertOk(await t.api('GET', `/api/v1/messages/${second}`, { as: carol }));
  assert.ok(!m.message.flags.includes('historical'), 'carol received it');

  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: bob, params: { subscriptions: ['kitchen'] } }));
  assert.deepEqual(audience(await sendTo(alice, 'kitchen')), sorted(t.owner, alice, carol));
  // The sender's own subscription is cached too: after leaving, bob posts as a non-subscriber
  // (allowed on a public stream) and is the sender, not a subscriber, of his message.
  assert.deepEqual(audience(await sendTo(bob, 'kitchen')), sorted(t.owner, alice, bob, carol));
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: bob, params: { subscriptions: [{ name: 'kitchen' }] } }));
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: carol, params: { subscriptions: ['kitchen'] } }));
});

test('a renamed stream is found by its new name at once, and not by its old one', async () => {
  await sendTo(alice, 'kitchen');
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { new_name: 'galley' } }));
  assert.ok(await sendTo(alice, 'galley'));
  assertError(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'kitchen', topic: 'x', content: 'y' } }),
    "Stream 'kitchen' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'kitchen' });
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { new_name: 'kitchen' } }));
});

test('a stream made private is closed to non-subscribers from the next send', async () => {
  await sendTo(dave, 'kitchen');
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { is_private: true } }));
  assertError(await t.api('POST', '/api/v1/messages', { as: dave, params: { type: 'stream', to: 'kitchen', topic: 'x', content: 'y' } }),
    "Stream 'kitchen' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'kitchen' });
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { is_private: false } }));
  assert.ok(await sendTo(dave, 'kitchen'));
});

test('a changed stream_post_policy applies to the next send', async () => {
  await sendTo(alice, 'kitchen');
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { stream_post_policy: 2 } }));
  assertError(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'kitchen', topic: 'x', content: 'y' } }),
    // Level 333: can_send_message_group decides, with Zulip 10's error.
    FEATURE_LEVEL >= 333 ? 'You do not have permission to post in this channel.' : 'Only organization administrators can send to this stream.');
  assertOk(await t.api('PATCH', `/api/v1/streams/${streamId}`, { as: t.owner, params: { stream_post_policy: 1 } }));
  assert.ok(await sendTo(alice, 'kitchen'));
});

test('alert words added or removed apply to the next message', async () => {
  await sendTo(alice, 'kitchen', 'pineapple pizza');
  assertOk(await t.api('POST', '/api/v1/users/me/alert_words', { as: bob, params: { alert_words: ['pineapple'] } }));
  const flagged = await sendTo(alice, 'kitchen', 'pineapple pizza');
  assert.ok(assertOk(await t.api('GET', `/api/v1/messages/${flagged}`, { as: bob })).message.flags.includes('has_alert_word'));
  assertOk(await t.api('DELETE', '/api/v1/users/me/alert_words', { as: bob, params: { alert_words: ['pineapple'] } }));
  const plain = await sendTo(alice, 'kitchen', 'pineapple pizza');
  assert.ok(!assertOk(await t.api('GET', `/api/v1/messages/${plain}`, { as: bob })).message.flags.includes('has_alert_word'));
});

test('a deactivated subscriber is dropped from the next message, and comes back on reactivation', async () => {
  const erin = await t.createUser({ name: 'Erin Ash' });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: erin, params: { subscriptions: [{ name: 'kitchen' }] } }));
  assert.ok(audience(await sendTo(alice, 'kitchen')).includes(erin.id));
  assertOk(await t.api('DELETE', `/api/v1/users/${erin.id}`, { as: t.owner }));
  assert.ok(!audience(await sendTo(alice, 'kitchen')).includes(erin.id));
  assertOk(await t.api('POST', `/api/v1/users/${erin.id}/reactivate`, { as: t.owner }));
  assert.ok(audience(await sendTo(alice, 'kitchen')).includes(erin.id));
});

test('an archived stream takes no more messages; first_message_id is announced once', async () => {
  const { pantry: s } = await createStreams(t, { pantry: [alice] });
  const first = await sendTo(alice, 'pantry');
  assert.deepEqual(log.find('stream', 'update').map((e) => e.event.value), [first]);
  log.clear();
  await sendTo(alice, 'pantry');
  assert.equal(log.find('stream', 'update').length, 0);
  const info = assertOk(await t.api('GET', `/api/v1/streams/${s.id}`, { as: alice }));
  assert.equal(info.stream.first_message_id, first);
  assertOk(await t.api('DELETE', `/api/v1/streams/${s.id}`, { as: t.owner }));
  assertError(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'pantry', topic: 'x', content: 'y' } }),
    "Stream 'pantry' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'pantry' });
  assertError(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: String(s.id), topic: 'x', content: 'y' } }),
    `Stream with ID '${s.id}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: s.id });
});

test("another node's change is seen as soon as its event arrives on the bus", async () => {
  const frank = await t.createUser({ name: 'Frank Oak' });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: frank, params: { subscriptions: [{ name: 'kitchen' }] } }));
  assert.ok(audience(await sendTo(alice, 'kitchen')).includes(frank.id));
  // What another node's unsubscribe looks like from here: the row changes under this
  // process's feet, then the node's event arrives on the shared bus.
  await sql`UPDATE subscription SET active = 0 WHERE user_id = ${frank.id} AND stream_id = ${streamId}`.execute(t.app.ctx.store.db);
  t.app.ctx.bus.publish({ realmId: t.realm.id, event: { type: 'subscription', op: 'remove', subscriptions: [{ stream_id: streamId, name: 'kitchen' }] }, userIds: [frank.id] });
  assert.ok(!audience(await sendTo(alice, 'kitchen')).includes(frank.id));
});
