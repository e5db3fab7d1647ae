import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, httpClient, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { eventQueues, type Listener } from '../helpers/events.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { until } from '../helpers/until.js';

// Levels 351/361: typing while editing a message, at POST /message_edit_typing (351, the
// message in the body) and POST /messages/{id}/typing (361); the typing_edit_message event
// reaches those an edit would notify who want typing events, and no one else.
let t: TestApp;
let base: string;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let general: number;
let streamMsg: number;
let dmMsg: number;
let groupMsg: number;

before(async () => {
  t = await testApp({ featureLevel: 371 });
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  general = (await createStreams(t, { general: [alice, bob, carol] })).general.id;
  const send = async (params: Record<string, unknown>) => assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params })).id as number;
  streamMsg = await send({ type: 'stream', to: String(general), topic: '', content: 'draft' });
  dmMsg = await send({ type: 'private', to: JSON.stringify([bob.id]), content: 'dm' });
  groupMsg = await send({ type: 'private', to: JSON.stringify([bob.id, carol.id]), content: 'group' });
  base = await t.listen();
});
after(() => t.close());

const http = httpClient(() => base);
const queues = eventQueues(http);
const listen = (user: TestUser, emptyTopic = true): Promise<Listener> =>
  queues.listen(user, { event_types: ['typing_edit_message'], client_capabilities: { empty_topic_name: emptyTopic } });
const next = (l: Listener) => until(async () => {
  const got = await queues.drain(l);
  return got.length > 0 ? got : undefined;
});
const byBody = (as: TestUser | null, id: number, op: string) => http(as, 'POST', '/message_edit_typing', { message_id: id, op });
const byPath = (as: TestUser | null, id: number, op: string) => http(as, 'POST', `/messages/${id}/typing`, { op });

test('a stream message: its subscribers hear it, with the topic as their client shows it; others do not', async () => {
  const [a, b, c, d] = await Promise.all([listen(alice), listen(bob), listen(carol, false), listen(dave)]);
  for (const [call, op] of [[byBody, 'start'], [byPath, 'stop']] as const) {
    assert.deepEqual(await call(alice, streamMsg, op), { status: 200, body: { result: 'success', msg: '' } });
    for (const l of [a, b]) {
      const [e, ...rest] = await next(l);
      assert.deepEqual(rest, []);
      assert.deepEqual({ ...e, id: 0 }, {
        type: 'typing_edit_message', id: 0, op, sender_id: alice.id, message_id: streamMsg, recipient: { type: 'channel', channel_id: general, topic: '' },
      });
    }
    const [named] = await next(c);
    assert.equal(named.recipient.topic, 'general chat', 'a client without empty_topic_name sees the display name');
  }
  assert.deepEqual(await queues.drain(d), [], 'a non-subscriber hears nothing');
});

test('direct messages: the conversation\'s members hear it, listed in user_ids', async () => {
  const [a, b, c, d] = await Promise.all([listen(alice), listen(bob), listen(carol), listen(dave)]);
  assertOk((await byPath(alice, dmMsg, 'start')) as any);
  for (const l of [a, b]) {
    const [e] = await next(l);
    assert.deepEqual(e.recipient, { type: 'direct', user_ids: sorted([alice.id, bob.id]) });
    assert.equal(e.message_id, dmMsg);
  }
  assert.deepEqual(await queues.drain(c), []);
  assertOk((await byBody(alice, groupMsg, 'start')) as any);
  for (const l of [a, b, c]) assert.deepEqual((await next(l))[0].recipient, { type: 'direct', user_ids: sorted([alice.id, bob.id, carol.id]) });
  assert.deepEqual(await queues.drain(d), [], 'outside the conversation: nothing');
});

test('who does not want typing events is left out', async () => {
  assertOk((await http(bob, 'PATCH', '/settings', { receives_typing_notifications: false })) as any);
  try {
    const [a, b] = await Promise.all([listen(alice), listen(bob)]);
    assertOk((await byPath(alice, dmMsg, 'start')) as any);
    assert.deepEqual((await next(a))[0].recipient, { type: 'direct', user_ids: [alice.id] });
    assert.deepEqual(await queues.drain(b), []);
  } finally {
    assertOk((await http(bob, 'PATCH', '/settings', { receives_typing_notifications: true })) as any);
  }
});

test('errors: Zulip\'s, and nothing is sent', async () => {
  const b = await listen(bob);
  const check = (r: { status: number; body: any }, msg: string) => assertError(r as any, msg);
  check(await byPath(bob, streamMsg, 'start'), "You don't have permission to edit this message");
  check(await byBody(dave, dmMsg, 'start'), 'Invalid message(s)');
  check(await byPath(alice, 999_999, 'start'), 'Invalid message(s)');
  check(await byPath(alice, streamMsg, 'typing'), 'Invalid op');
  assertError((await http(alice, 'POST', '/message_edit_typing', { op: 'start' })) as any, "Missing 'message_id' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'message_id' });
  await setRealmSettings(t, { allow_message_editing: false });
  try {
    check(await byPath(alice, streamMsg, 'start'), 'Your organization has turned off message editing');
  } finally {
    await setRealmSettings(t, { allow_message_editing: true });
  }
  assertOk((await http(alice, 'PATCH', '/settings', { send_stream_typing_notifications: false, send_private_typing_notifications: false })) as any);
  try {
    check(await byPath(alice, streamMsg, 'start'), 'User has disabled typing notifications for channel messages');
    check(await byBody(alice, dmMsg, 'start'), 'User has disabled typing notifications for direct messages');
  } finally {
    assertOk((await http(alice, 'PATCH', '/settings', { send_stream_typing_notifications: true, send_private_typing_notifications: true })) as any);
  }
  assertUnauthenticated((await byPath(null, streamMsg, 'start')) as any);
  assertUnauthenticated((await byBody(null, streamMsg, 'start')) as any);
  assert.deepEqual(await queues.drain(b), []);
});
