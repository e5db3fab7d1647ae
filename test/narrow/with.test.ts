import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { assertError, assertOk } from '../helpers/assert.js';

/**
 * The `with` operator (feature level 271; Zulip's update_narrow_terms_containing_with_operator):
 * a message id standing for that message's current conversation, so that a topic link
 * still leads to the topic after its messages moved. It replaces the narrow's stream,
 * topic and direct-message terms and keeps the others, in GET /messages, in
 * POST /messages/flags/narrow and in an event queue's narrow.
 */
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
const ids: Record<string, number> = {};

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  await createStreams(t, { general: [alice, bob, carol], other: [alice, bob, carol], secret: { inviteOnly: true, subscribers: [alice] } });
  ids.t1 = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'plans', content: 'one' });
  ids.t2 = await sendMessage(t, bob, { type: 'stream', to: 'general', topic: 'plans', content: 'two' });
  ids.x1 = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'else', content: 'elsewhere' });
  ids.o1 = await sendMessage(t, alice, { type: 'stream', to: 'other', topic: 'plans', content: 'other stream' });
  ids.s1 = await sendMessage(t, alice, { type: 'stream', to: 'secret', topic: 'hidden', content: 'secret' });
  ids.p1 = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'dm one' });
  ids.p2 = await sendMessage(t, bob, { type: 'private', to: [alice.id], content: 'dm two' });
  ids.self = await sendMessage(t, bob, { type: 'private', to: [bob.id], content: 'note to self' });
  ids.h1 = await sendMessage(t, alice, { type: 'private', to: [bob.id, carol.id], content: 'group' });
  ids.pc = await sendMessage(t, alice, { type: 'private', to: [carol.id], content: 'alice and carol' });
});
after(() => t.close());

const fetchIds = async (as: TestUser, narrow: unknown[]) => messageIds(assertOk(await getMessages(t, as, { narrow })));

test('a stream message: its topic, whatever stream and topic terms say; other terms stay', async () => {
  assert.deepEqual(await fetchIds(bob, [{ operator: 'with', operand: ids.t1 }]), [ids.t1, ids.t2]);
  assert.deepEqual(await fetchIds(bob, [{ operator: 'channel', operand: 'other' }, { operator: 'topic', operand: 'else' }, { operator: 'with', operand: String(ids.t2) }]), [ids.t1, ids.t2]);
  assert.deepEqual(await fetchIds(bob, [{ operator: 'with', operand: ids.t1 }, { operator: 'sender', operand: bob.id }]), [ids.t2]);
});

test('direct messages: the conversation, for its recipient as for its sender', async () => {
  assert.deepEqual(await fetchIds(bob, [{ operator: 'with', operand: ids.p1 }]), [ids.p1, ids.p2]);
  assert.deepEqual(await fetchIds(alice, [{ operator: 'with', operand: ids.p2 }]), [ids.p1, ids.p2]);
  assert.deepEqual(await fetchIds(bob, [{ operator: 'with', operand: ids.self }]), [ids.self]);
  assert.deepEqual(await fetchIds(carol, [{ operator: 'dm', operand: [alice.id] }, { operator: 'with', operand: ids.h1 }]), [ids.h1]);
});

test('the conversation is the message\'s current one: a moved topic is followed', async () => {
  const moved = await t.api('PATCH', `/api/v1/messages/${ids.t1}`, { as: alice, params: { topic: 'plans (moved)', propagate_mode: 'change_all', send_notification_to_new_thread: false, send_notification_to_old_thread: false } });
  assertOk(moved);
  assert.deepEqual(await fetchIds(bob, [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'plans' }, { operator: 'with', operand: ids.t1 }]), [ids.t1, ids.t2]);
  assert.deepEqual(await fetchIds(bob, [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'plans' }]), []);
});

test('an unknown or inaccessible message: the narrow\'s own conversation if it names one, else BAD_NARROW', async () => {
  for (const id of [ids.s1, 999_999_999, -3]) {
    assert.deepEqual(await fetchIds(bob, [{ operator: 'channel', operand: 'other' }, { operator: 'topic', operand: 'plans' }, { operator: 'with', operand: id }]), [ids.o1], String(id));
    assert.deepEqual(await fetchIds(bob, [{ operator: 'dm', operand: [alice.id] }, { operator: 'with', operand: id }]), [ids.p1, ids.p2]);
    for (const narrow of [[{ operator: 'with', operand: id }], [{ operator: 'channel', operand: 'other' }, { operator: 'with', operand: id }]]) {
      assertError(await getMessages(t, bob, { narrow }), "Invalid narrow operator: Invalid 'with' operator", 'BAD_NARROW');
    }
  }
  // Carol may not read alice and bob's conversation.
  assertError(await getMessages(t, carol, { narrow: [{ operator: 'with', operand: ids.p1 }] }), "Invalid narrow operator: Invalid 'with' operator", 'BAD_NARROW');
});

test('errors: a non-integer operand, two with terms', async () => {
  for (const operand of ['abc', '1.5', [ids.t1]]) {
    assertError(await getMessages(t, bob, { narrow: [{ operator: 'with', operand }] }), "Invalid narrow operator: Invalid 'with' operator", 'BAD_NARROW');
  }
  assertError(await getMessages(t, bob, { narrow: [{ operator: 'with', operand: ids.t1 }, { operator: 'with', operand: ids.t2 }] }),
    "Invalid narrow operator combination: Duplicate 'with' operators.", 'BAD_NARROW');
});

test('POST /messages/flags/narrow and GET /messages/matches_narrow resolve it too', async () => {
  const r = assertOk(await t.api('POST', '/api/v1/messages/flags/narrow', { as: carol, params: {
    anchor: 'oldest', num_before: 0, num_after: 100, narrow: [{ operator: 'with', operand: ids.pc }], op: 'add', flag: 'starred',
  } }));
  assert.equal(r.processed_count, 1);
  assert.equal(r.first_processed_id, ids.pc);
  const m = assertOk(await t.api('GET', '/api/v1/messages/matches_narrow', { as: bob, params: { msg_ids: [ids.t2, ids.x1, ids.o1], narrow: [{ operator: 'with', operand: ids.t1 }] } }));
  assert.deepEqual(Object.keys(m.messages).map(Number), [ids.t2]);
});

test('an event queue narrowed with `with` hears that conversation only (the in-memory back end)', async () => {
  const q = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['message'], narrow: [{ operator: 'with', operand: ids.t2 }] } }));
  await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'else', content: 'not here' });
  const heard = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'plans (moved)', content: 'here' });
  const events = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: q.queue_id, last_event_id: -1, dont_block: true } })).events;
  assert.deepEqual(events.map((e: { message: { id: number } }) => e.message.id), [heard]);
  // A message the user cannot read: the queue is made, and hears nothing.
  const none = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['message'], narrow: [{ operator: 'with', operand: ids.s1 }] } }));
  await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'plans (moved)', content: 'still not for that queue' });
  assert.deepEqual(assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: none.queue_id, last_event_id: -1, dont_block: true } })).events, []);
});
