import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, httpClient, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { eventQueues, type Listener } from '../helpers/events.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { until } from '../helpers/until.js';
import { createWebhookBot, fixture, postWebhook } from '../helpers/webhooks.js';

// Levels 334 (the empty topic), 370 ("(no topic)" sent or scheduled means "") and 372 (the same
// on POST /typing), end to end over HTTP: what is stored, what each kind of client is shown in
// answers, register and events, and the older levels' behaviour.
let t: TestApp;
let base: string;
let alice: TestUser;
let bob: TestUser;
let dave: TestUser;
let general: number;

before(async () => {
  t = await testApp({ featureLevel: 372 });
  ({ alice, bob, dave } = await t.createUsers(people('alice', 'bob', 'dave')));
  general = (await createStreams(t, { general: [alice, bob] })).general.id;
  base = await t.listen();
});
after(() => t.close());

const http = httpClient(() => base);
const queues = eventQueues(http);
const CAPS = { notification_settings_null: true, bulk_message_deletion: true, stream_typing_notifications: true };
const listen = (user: TestUser, emptyTopic: boolean, eventTypes?: string[]): Promise<Listener> =>
  queues.listen(user, { ...(eventTypes ? { event_types: eventTypes } : {}), client_capabilities: { ...CAPS, empty_topic_name: emptyTopic } });
const send = async (as: TestUser, topic: string, content = 'hi', app: TestApp = t) =>
  assertOk(await app.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: String(general), topic, content } })).id as number;
const fetchOne = async (as: TestUser, id: number, allow?: boolean, app: TestApp = t) =>
  assertOk(await app.api('GET', `/api/v1/messages/${id}`, { as, params: allow === undefined ? {} : { allow_empty_topic_name: allow } })).message;
const narrowed = async (as: TestUser, narrow: unknown[], allow?: boolean) =>
  assertOk(await t.api('GET', '/api/v1/messages', {
    as, params: { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify(narrow), ...(allow === undefined ? {} : { allow_empty_topic_name: allow }) },
  })).messages as Array<{ id: number; subject: string }>;
const stored = async (id: number, app: TestApp = t) =>
  (await app.app.ctx.store.db.selectFrom('message').select('topic').where('id', '=', id).executeTakeFirstOrThrow()).topic;

test('sending to "", "general chat" or "(no topic)" stores the empty topic; reads show it as "" only when allowed', async () => {
  const ids = [await send(alice, ''), await send(alice, '  '), await send(alice, 'general chat'), await send(alice, '(no topic)')];
  for (const id of ids) assert.equal(await stored(id), '');
  assert.equal((await fetchOne(bob, ids[0]!)).subject, 'general chat', 'GET /messages/{id} shows the display name by default');
  assert.equal((await fetchOne(bob, ids[0]!, false)).subject, 'general chat');
  assert.equal((await fetchOne(bob, ids[0]!, true)).subject, '');
  const all = await narrowed(bob, [{ operator: 'channel', operand: general }]);
  assert.deepEqual(all.filter((m) => ids.includes(m.id)).map((m) => m.subject), ['general chat', 'general chat', 'general chat', 'general chat']);
  const raw = await narrowed(bob, [{ operator: 'channel', operand: general }], true);
  assert.deepEqual(raw.filter((m) => ids.includes(m.id)).map((m) => m.subject), ['', '', '', '']);
  // A topic term naming the display name, or "", finds the empty topic.
  for (const operand of ['general chat', '']) {
    const found = await narrowed(bob, [{ operator: 'channel', operand: general }, { operator: 'topic', operand }], true);
    assert.deepEqual(found.map((m) => m.id), ids, `topic ${JSON.stringify(operand)}`);
  }
  // A private message keeps its "" subject whatever the client says.
  const pm = assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'dm' } })).id;
  assert.equal((await fetchOne(bob, pm)).subject, '');
});

test('GET /users/me/{stream_id}/topics names the empty topic unless allow_empty_topic_name', async () => {
  const id = await send(alice, '');
  const named = assertOk(await t.api('GET', `/api/v1/users/me/${general}/topics`, { as: bob })).topics;
  assert.deepEqual(named[0], { name: 'general chat', max_id: id });
  const raw = assertOk(await t.api('GET', `/api/v1/users/me/${general}/topics`, { as: bob, params: { allow_empty_topic_name: true } })).topics;
  assert.deepEqual(raw[0], { name: '', max_id: id });
});

test('edit history names the empty topic unless allow_empty_topic_name; moving to and from it', async () => {
  const id = await send(alice, 'before');
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { topic: 'general chat' } }));
  assert.equal(await stored(id), '', '"general chat" as the new topic is the empty topic');
  const named = assertOk(await t.api('GET', `/api/v1/messages/${id}/history`, { as: bob })).message_history;
  assert.deepEqual(named.map((v: any) => [v.topic, v.prev_topic]), [['before', undefined], ['general chat', 'before']]);
  const raw = assertOk(await t.api('GET', `/api/v1/messages/${id}/history`, { as: bob, params: { allow_empty_topic_name: true } })).message_history;
  assert.deepEqual(raw.map((v: any) => [v.topic, v.prev_topic]), [['before', undefined], ['', 'before']]);
  assert.deepEqual((await fetchOne(bob, id)).edit_history.map((e: any) => e.topic), ['general chat']);
  assert.deepEqual((await fetchOne(bob, id, true)).edit_history.map((e: any) => e.topic), ['']);
  assertError(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { topic: '✔ general chat' } }), 'General chat cannot be marked as resolved');
  assertError(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { topic: '✔' } }), 'General chat cannot be marked as resolved');
});

test('topics required: neither "" nor "(no topic)" may be sent, scheduled or moved to', async () => {
  const id = await send(alice, 'kept');
  await setRealmSettings(t, { mandatory_topics: true });
  try {
    for (const topic of ['', '(no topic)', 'general chat']) {
      assertError(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: String(general), topic, content: 'x' } }),
        'Topics are required in this organization');
    }
    assertError(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { topic: '' } }), 'Topics are required in this organization.');
    assertError(await t.api('POST', '/api/v1/scheduled_messages', {
      as: alice, params: { type: 'stream', to: String(general), topic: '(no topic)', content: 'x', scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 600 },
    }), 'Topics are required in this organization');
  } finally {
    await setRealmSettings(t, { mandatory_topics: false });
  }
});

test('level 370: "(no topic)" scheduled means ""', async () => {
  const at = Math.floor(Date.now() / 1000) + 600;
  const id = assertOk(await t.api('POST', '/api/v1/scheduled_messages', {
    as: alice, params: { type: 'stream', to: String(general), topic: '(no topic)', content: 'later', scheduled_delivery_timestamp: at },
  })).scheduled_message_id;
  const list = assertOk(await t.api('GET', '/api/v1/scheduled_messages', { as: alice })).scheduled_messages;
  assert.equal(list.find((m: any) => m.scheduled_message_id === id).topic, '');
  assertOk(await t.api('PATCH', `/api/v1/scheduled_messages/${id}`, { as: alice, params: { topic: 'named' } }));
  assertOk(await t.api('PATCH', `/api/v1/scheduled_messages/${id}`, { as: alice, params: { topic: '(no topic)' } }));
  const after = assertOk(await t.api('GET', '/api/v1/scheduled_messages', { as: alice })).scheduled_messages;
  assert.equal(after.find((m: any) => m.scheduled_message_id === id).topic, '');
  assertOk(await t.api('DELETE', `/api/v1/scheduled_messages/${id}`, { as: alice }));
});

test('level 370 maps "(no topic)" only for POST /messages and scheduling: an integration\'s default topic stays "(no topic)"', async () => {
  const hook = await createWebhookBot(t);
  // slack_incoming posts to "(no topic)" when the URL names no topic (Zulip's default there).
  const r = await postWebhook(t, 'slack_incoming', { key: hook.apiKey, query: { stream: 'general' }, body: fixture('slack_incoming', 'text') });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = (await t.app.ctx.store.db.selectFrom('message').select('id').where('sender_id', '=', hook.id).orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
  assert.equal(await stored(id), '(no topic)');
  // The same bot through POST /messages gets the level-370 mapping.
  const sent = assertOk(await t.api('POST', '/api/v1/messages', { as: hook, params: { type: 'stream', to: String(general), topic: ' (no topic) ', content: 'x' } })).id as number;
  assert.equal(await stored(sent), '');
});

test('register: realm_empty_topic_display_name; unread_msgs and user_topics follow empty_topic_name', async () => {
  const id = await send(alice, '');
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: bob, params: { stream_id: general, topic: 'general chat', visibility_policy: 3 } }));
  const reg = async (capable: boolean) => assertOk(await t.api('POST', '/api/v1/register', {
    as: bob, params: { fetch_event_types: JSON.stringify(['realm', 'message', 'update_message_flags', 'user_topic']), client_capabilities: JSON.stringify({ empty_topic_name: capable }) },
  }));
  const plain = await reg(false);
  assert.equal(plain.realm_empty_topic_display_name, 'general chat');
  const entry = (r: any) => r.unread_msgs.streams.find((s: any) => s.unread_message_ids.includes(id));
  assert.equal(entry(plain).topic, 'general chat');
  assert.deepEqual(plain.user_topics.filter((u: any) => u.stream_id === general).map((u: any) => u.topic_name), ['general chat']);
  const capable = await reg(true);
  assert.equal(entry(capable).topic, '');
  assert.deepEqual(capable.user_topics.filter((u: any) => u.stream_id === general).map((u: any) => u.topic_name), ['']);
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: bob, params: { stream_id: general, topic: '', visibility_policy: 0 } }));
});

test('events: a client without empty_topic_name sees the display name in every topic field; one with it sees ""', async () => {
  const [plain, capable, outsider] = await Promise.all([listen(bob, false), listen(bob, true), listen(dave, false)]);
  const drainBoth = async (n: number) => Promise.all([plain, capable].map((l) => until(async () => {
    const got: any[] = [];
    while (got.length < n) {
      const more = await queues.drain(l);
      if (more.length === 0) return undefined;
      got.push(...more);
    }
    return got;
  })));

  const id = await send(alice, '');
  let [p, c] = await drainBoth(1);
  assert.deepEqual([p![0].type, p![0].message.subject], ['message', 'general chat']);
  assert.deepEqual([c![0].type, c![0].message.subject], ['message', '']);

  // Typing: "(no topic)" (level 372) and "general chat" both mean "".
  for (const topic of ['(no topic)', 'general chat', '']) {
    assertOk(await t.api('POST', '/api/v1/typing', { as: alice, params: { type: 'stream', op: 'start', stream_id: general, topic } }));
    [p, c] = await drainBoth(1);
    assert.equal(p![0].topic, 'general chat', `typing ${topic}`);
    assert.equal(c![0].topic, '', `typing ${topic}`);
  }

  // Marking unread: message_details.
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'add', flag: 'read' } }));
  await drainBoth(1);
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'remove', flag: 'read' } }));
  [p, c] = await drainBoth(1);
  assert.equal(p![0].message_details[String(id)].topic, 'general chat');
  assert.equal(c![0].message_details[String(id)].topic, '');

  // user_topic.
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: bob, params: { stream_id: general, topic: '', visibility_policy: 1 } }));
  [p, c] = await drainBoth(1);
  const ut = (es: any[]) => es.find((e) => e.type === 'user_topic');
  assert.equal(ut(p!).topic_name, 'general chat');
  assert.equal(ut(c!).topic_name, '');
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: bob, params: { stream_id: general, topic: '', visibility_policy: 0 } }));
  await drainBoth(1);

  // Moving out of and back into the empty topic.
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { topic: 'moved' } }));
  [p, c] = await drainBoth(1);
  const um = (es: any[]) => es.find((e) => e.type === 'update_message');
  assert.deepEqual([um(p!).orig_subject, um(p!).subject], ['general chat', 'moved']);
  assert.deepEqual([um(c!).orig_subject, um(c!).subject], ['', 'moved']);
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { topic: '' } }));
  [p, c] = await drainBoth(1);
  assert.deepEqual([um(p!).orig_subject, um(p!).subject], ['moved', 'general chat']);
  assert.deepEqual([um(c!).orig_subject, um(c!).subject], ['moved', '']);

  // Deleting.
  assertOk(await t.api('DELETE', `/api/v1/messages/${id}`, { as: t.owner }));
  [p, c] = await drainBoth(1);
  assert.equal(p![0].type, 'delete_message');
  assert.equal(p![0].topic, 'general chat');
  assert.equal(c![0].topic, '');
  assert.deepEqual(await queues.drain(outsider), [], 'a non-subscriber hears none of it');
});

test('below level 334: "" is stored as "(no topic)", no display name, and the parameters change nothing', async () => {
  const old = await testApp({ featureLevel: 277 });
  try {
    const { carol: erin } = await old.createUsers(people('carol'));
    general = (await createStreams(old, { general: [erin] })).general.id;
    const id = await send(erin, '', 'old', old);
    assert.equal(await stored(id, old), '(no topic)');
    const literal = await send(erin, 'general chat', 'old', old);
    assert.equal(await stored(literal, old), 'general chat', 'below 334 "general chat" is an ordinary topic');
    assert.equal((await fetchOne(erin, id, true, old)).subject, '(no topic)');
    const reg = assertOk(await old.api('POST', '/api/v1/register', { as: erin, params: { fetch_event_types: JSON.stringify(['realm']) } }));
    assert.equal('realm_empty_topic_display_name' in reg, false);
  } finally {
    await old.close();
  }
});

test('levels 334-369: "(no topic)" is an ordinary topic, but not allowed when topics are required', async () => {
  const mid = await testApp({ featureLevel: 369 });
  try {
    const { carol: erin } = await mid.createUsers(people('carol'));
    general = (await createStreams(mid, { general: [erin] })).general.id;
    assert.equal(await stored(await send(erin, '(no topic)', 'x', mid), mid), '(no topic)');
    assert.equal(await stored(await send(erin, '', 'x', mid), mid), '');
    await setRealmSettings(mid, { mandatory_topics: true });
    assertError(await mid.api('POST', '/api/v1/messages', { as: erin, params: { type: 'stream', to: String(general), topic: '(no topic)', content: 'x' } }),
      'Topics are required in this organization');
  } finally {
    await mid.close();
  }
});
