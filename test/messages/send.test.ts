import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, HOST, testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let log: EventLog;
const messageEvents = () => log.find('message');

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, guest } = await t.createUsers(people('alice', 'bob', 'carol', 'guest')));
  await createStreams(t, {
    general: [alice, bob],
    secret: { inviteOnly: true, subscribers: [alice] },
    announce: { streamPostPolicy: 2, subscribers: [alice, bob] },
  });
  log = new EventLog(t);
});
after(() => t.close());
beforeEach(() => log.clear());

const send = (as: TestUser, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.api('POST', '/api/v1/messages', { as, params, headers });
const get = (as: TestUser, id: number, query: Record<string, unknown> = {}) => t.api('GET', `/api/v1/messages/${id}`, { as, params: query });

// Level 333: can_send_message_group decides who may post, with Zulip 10's error.
const ADMINS_ONLY = FEATURE_LEVEL >= 333 ? 'You do not have permission to post in this channel.' : 'Only organization administrators can send to this stream.';

test('a stream message is stored, rendered, and delivered to subscribers and the sender', async () => {
  const r = await send(alice, { type: 'stream', to: 'general', topic: 'greetings', content: 'hello **world**' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(typeof r.body.id, 'number');
  const m = await get(bob, r.body.id);
  assert.equal(m.status, 200);
  assert.equal(m.body.raw_content, 'hello **world**');
  const msg = m.body.message;
  assert.equal(msg.type, 'stream');
  assert.equal(msg.display_recipient, 'general');
  assert.equal(msg.subject, 'greetings');
  assert.equal(msg.sender_id, alice.id);
  assert.equal(msg.sender_email, alice.email);
  assert.equal(msg.sender_full_name, 'Alice Smith');
  assert.equal(msg.sender_realm_str, '');
  assert.equal(msg.content_type, 'text/html');
  assert.equal(typeof msg.stream_id, 'number');
  assert.equal(typeof msg.recipient_id, 'number');
  assert.deepEqual(msg.reactions, []);
  assert.deepEqual(msg.submessages, []);
  assert.deepEqual(msg.topic_links, []);
  assert.equal(msg.is_me_message, false);
  assert.equal(msg.avatar_url, null, 'client_gravatar defaults to true');
  assert.equal(msg.last_edit_timestamp, undefined);
  assert.deepEqual(msg.flags, []);

  const [e] = messageEvents();
  assert.ok(e);
  assert.deepEqual([...e.userIds].sort((a, b) => a - b), [alice.id, bob.id].sort((a, b) => a - b));
  assert.equal(carol.id in (e.event.flags_by_user as object), false);
  assert.equal((e.event.message as any).id, r.body.id);
  assert.equal(e.event.raw_content, 'hello **world**');
});

test('mentions set flags; apply_markdown=false returns the raw text', async () => {
  const r = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'ping @**Bob Jones** and @**all**' });
  const m = await get(bob, r.body.id, { apply_markdown: false });
  // Level 224 names the stream wildcard flag stream_wildcard_mentioned, the deprecated wildcard_mentioned kept beside it.
  const wildcard = FEATURE_LEVEL >= 224 ? ['stream_wildcard_mentioned', 'wildcard_mentioned'] : ['wildcard_mentioned'];
  assert.deepEqual(m.body.message.flags.sort(), ['mentioned', ...wildcard]);
  assert.equal(m.body.message.content, 'ping @**Bob Jones** and @**all**');
  assert.equal(m.body.message.content_type, 'text/x-markdown');
  const mine = await get(alice, r.body.id);
  assert.deepEqual(mine.body.message.flags, wildcard, 'an API client leaves the sender\'s copy unread');
});

test('a message sent from a human-facing client starts read for its sender only', async () => {
  const r = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'typed by hand' }, { 'user-agent': 'ZulipTerminal/0.7.0' });
  assert.deepEqual((await get(alice, r.body.id)).body.message.flags, ['read']);
  assert.deepEqual((await get(bob, r.body.id)).body.message.flags, []);
  assert.equal((await get(bob, r.body.id)).body.message.client, 'ZulipTerminal');
  const viaParam = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'web', client: 'website' });
  assert.deepEqual((await get(alice, viaParam.body.id)).body.message.flags, ['read']);
});

test('stream `to` accepts a name, an id, and JSON forms; `subject` is the topic alias; `channel` type works', async () => {
  const id = (await t.api('GET', '/api/v1/get_stream_id', { as: alice, params: { stream: 'general' } })).body.stream_id as number;
  for (const to of ['general', String(id), '"general"', '["general"]', `[${id}]`]) {
    const r = await send(alice, { type: 'stream', to, subject: 'alias', content: `to=${to}` });
    assert.equal(r.status, 200, `${to}: ${JSON.stringify(r.body)}`);
    assert.equal((await get(alice, r.body.id)).body.message.subject, 'alias');
  }
  assert.equal((await send(alice, { type: 'channel', to: 'general', topic: 'x', content: 'channel' })).status, 200);
  const many = await send(alice, { type: 'stream', to: '["general","secret"]', topic: 'x', content: 'x' });
  assert.equal(many.body.msg, 'Cannot send to multiple streams');
});

test('private messages: ids, emails, comma-separated, group conversations and self', async () => {
  const one = await send(alice, { type: 'private', to: [bob.id], content: 'hi bob' });
  assert.equal(one.status, 200);
  const dm = (await get(bob, one.body.id)).body.message;
  assert.equal(dm.type, 'private');
  assert.equal(dm.subject, '');
  assert.equal(dm.stream_id, undefined);
  assert.deepEqual(dm.display_recipient.map((u: any) => u.id), [alice.id, bob.id].sort((a, b) => a - b));
  assert.deepEqual(Object.keys(dm.display_recipient[0]).sort(), ['email', 'full_name', 'id', 'is_mirror_dummy']);
  const [e] = messageEvents();
  assert.deepEqual([...e!.userIds].sort(), [alice.id, bob.id].sort());

  const byEmail = await send(alice, { type: 'direct', to: [bob.email], content: 'by email' });
  assert.equal((await get(bob, byEmail.body.id)).body.message.recipient_id, dm.recipient_id, 'the same conversation');
  const comma = await send(alice, { type: 'private', to: `${bob.email}, ${carol.email}`, content: 'group' });
  const group = (await get(carol, comma.body.id)).body.message;
  assert.equal(group.display_recipient.length, 3);
  const again = await send(bob, { type: 'private', to: [carol.id, alice.id], content: 'same group' });
  assert.equal((await get(alice, again.body.id)).body.message.recipient_id, group.recipient_id);
  const self = await send(alice, { type: 'private', to: [alice.id], content: 'note to self' });
  assert.deepEqual((await get(alice, self.body.id)).body.message.display_recipient.map((u: any) => u.id), [alice.id]);
});

test('privacy: nobody reads a private message they are not part of, or a private stream they cannot see', async () => {
  const pm = await send(alice, { type: 'private', to: [bob.id], content: 'just us' });
  const notMine = await get(carol, pm.body.id);
  assert.equal(notMine.status, 400);
  assert.deepEqual(notMine.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
  const secret = await send(alice, { type: 'stream', to: 'secret', topic: 't', content: 'classified' });
  assert.equal((await get(bob, secret.body.id)).body.msg, 'Invalid message(s)');
  assert.equal((await get(bob, 99999999)).body.msg, 'Invalid message(s)', 'the same answer as for no message');
  // Public stream history is readable without a copy: marked historical.
  const pub = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'open' });
  assert.deepEqual((await get(carol, pub.body.id)).body.message.flags, ['read', 'historical']);
  assert.equal((await get(guest, pub.body.id)).body.msg, 'Invalid message(s)', 'guests see only their streams');
});

test('send errors: exact codes and messages', async () => {
  const missing = await send(alice, { type: 'stream', to: 'nowhere', topic: 't', content: 'x' });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, { result: 'error', msg: "Stream 'nowhere' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nowhere' });
  const hidden = await send(bob, { type: 'stream', to: 'secret', topic: 't', content: 'x' });
  assert.deepEqual(hidden.body, { result: 'error', msg: "Stream 'secret' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'secret' }, 'a hidden stream looks missing');
  const badId = await send(alice, { type: 'stream', to: '987654', topic: 't', content: 'x' });
  assert.equal(badId.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(badId.body.msg, "Stream with ID '987654' does not exist");
  const email = await send(alice, { type: 'private', to: ['nobody@parley.test'], content: 'x' });
  assert.deepEqual(email.body, { result: 'error', msg: "Invalid email 'nobody@parley.test'", code: 'BAD_REQUEST' });
  assert.equal((await send(alice, { type: 'private', to: [987654], content: 'x' })).body.msg, 'Invalid user ID 987654');
  assert.equal((await send(alice, { type: 'stream', to: 'general', topic: 't', content: '   ' })).body.msg, 'Message must not be empty');
  assert.equal((await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'a\u0000b' })).body.msg, 'Message must not contain null bytes');
  assert.equal((await send(alice, { type: 'stream', to: 'general', content: 'x' })).body.msg, 'Missing topic');
  assert.equal((await send(alice, { type: 'stream', to: 'general', topic: 'a\u0000', content: 'x' })).body.msg, 'Invalid character in topic, at position 2!');
  // Zulip's printable check: control characters and unassigned code points, counted after trimming.
  assert.equal((await send(alice, { type: 'stream', to: 'general', topic: '  😀a\u0001b', content: 'x' })).body.msg, 'Invalid character in topic, at position 3!');
  assert.equal((await send(alice, { type: 'stream', to: 'general', topic: 'new\nline', content: 'x' })).body.msg, 'Invalid character in topic, at position 4!');
  assert.equal((await send(alice, { type: 'stream', to: 'general', topic: 'x\u0378', content: 'x' })).body.msg, 'Invalid character in topic, at position 2!');
  assert.equal((await send(alice, { type: 'smoke', to: 'general', topic: 't', content: 'x' })).body.msg, 'Invalid message type');
  assert.equal((await send(alice, { type: 'private', to: [], content: 'x' })).body.msg, 'Message must have recipients');
  assert.equal((await send(bob, { type: 'stream', to: 'announce', topic: 't', content: 'x' })).body.msg, ADMINS_ONLY);
  const noLocal = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'x', queue_id: 'q1' });
  assert.equal(noLocal.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await send(alice, { to: 'general', content: 'x' })).body.msg, "Missing 'type' argument");
  assert.equal((await t.api('POST', '/api/v1/messages', { as: null, params: { type: 'stream', to: 'general', topic: 't', content: 'x' } })).status, 401);
  assert.equal((await t.api('GET', '/api/v1/messages/1', { as: null })).status, 401);
  assert.equal(messageEvents().length, 0, 'failed sends publish nothing');
});

test('limits: long content is truncated with a marker, long topics with an ellipsis; empty topic becomes (no topic)', async () => {
  const long = await send(alice, { type: 'stream', to: 'general', topic: 'x'.repeat(80), content: 'é'.repeat(6000) });
  const m = await get(alice, long.body.id, { apply_markdown: false });
  assert.ok(Buffer.byteLength(m.body.raw_content) <= 10000);
  assert.ok(m.body.raw_content.endsWith('\n[message truncated]'));
  assert.equal(m.body.message.subject, `${'x'.repeat(57)}...`);
  const empty = await send(alice, { type: 'stream', to: 'general', topic: '  ', content: 'x' });
  // Level 334: the empty topic is a topic of its own, shown by its display name without allow_empty_topic_name.
  assert.equal((await get(alice, empty.body.id)).body.message.subject, FEATURE_LEVEL >= 334 ? 'general chat' : '(no topic)');
});

test('/me messages; queue_id and local_id travel on the event for the sender\'s queue', async () => {
  const r = await send(alice, { type: 'stream', to: 'general', topic: 't', content: '/me waves', queue_id: 'abc', local_id: '1.01' });
  assert.equal((await get(alice, r.body.id)).body.message.is_me_message, true);
  const [e] = messageEvents();
  assert.equal(e!.event.sender_queue_id, 'abc');
  assert.equal(e!.event.local_id, '1.01');
});

test('alert words: add, list, remove, and the has_alert_word flag', async () => {
  const add = await t.api('POST', '/api/v1/users/me/alert_words', { as: bob, params: { alert_words: ['Deploy', 'outage'] } });
  assert.deepEqual(add.body.alert_words, ['Deploy', 'outage']);
  const ev = log.events.find((e) => e.event.type === 'alert_words');
  assert.deepEqual(ev?.userIds, [bob.id]);
  const r = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'the DEPLOY is done' });
  assert.deepEqual((await get(bob, r.body.id)).body.message.flags, ['has_alert_word']);
  const inside = await send(alice, { type: 'stream', to: 'general', topic: 't', content: 'redeployment' });
  assert.deepEqual((await get(bob, inside.body.id)).body.message.flags, [], 'whole words only');
  const del = await t.api('DELETE', '/api/v1/users/me/alert_words', { as: bob, params: { alert_words: ['deploy'] } });
  assert.deepEqual(del.body.alert_words, ['outage']);
  assert.deepEqual((await t.api('GET', '/api/v1/users/me/alert_words', { as: bob })).body.alert_words, ['outage']);
  const bad = await t.api('POST', '/api/v1/users/me/alert_words', { as: bob, params: { alert_words: 'x' } });
  assert.equal(bad.status, 400);
  assert.equal((await t.api('GET', '/api/v1/users/me/alert_words', { as: null })).status, 401);
});

test('GET /users/me max_message_id follows new messages', async () => {
  const before = (await t.api('GET', '/api/v1/users/me', { as: carol })).body.max_message_id;
  const r = await send(alice, { type: 'private', to: [carol.id], content: 'for carol' });
  const afterSend = (await t.api('GET', '/api/v1/users/me', { as: carol })).body.max_message_id;
  assert.notEqual(before, afterSend);
  assert.equal(afterSend, r.body.id);
});

test('a bot may send to a stream its owner is subscribed to, and under its owner\'s standing', async () => {
  const made = await t.api('POST', '/api/v1/bots', { as: alice, params: { full_name: 'Alice Bot', short_name: 'alicebot' } });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const bot: TestUser = { id: made.body.user_id, email: `alicebot-bot@${HOST}`, apiKey: made.body.api_key, row: null as never };
  const secret = await send(bot, { type: 'stream', to: 'secret', topic: 'report', content: 'from the bot' });
  assert.equal(secret.status, 200, JSON.stringify(secret.body));
  // Alice is subscribed to `secret`; the bot, not subscribed, gets it as its sender.
  const ev = messageEvents().at(-1)!;
  assert.deepEqual([...ev.userIds].sort((a, b) => a - b), [alice.id, bot.id]);
  // Bob's bot is no better placed than Bob: `secret` still looks missing.
  const bobs = await t.api('POST', '/api/v1/bots', { as: bob, params: { full_name: 'Bob Bot', short_name: 'bobbot' } });
  const bobBot: TestUser = { id: bobs.body.user_id, email: `bobbot-bot@${HOST}`, apiKey: bobs.body.api_key, row: null as never };
  assert.equal((await send(bobBot, { type: 'stream', to: 'secret', topic: 't', content: 'x' })).body.code, 'STREAM_DOES_NOT_EXIST');
  // stream_post_policy: a member's bot may not post to an admins-only stream, an owner's bot may.
  assert.equal((await send(bobBot, { type: 'stream', to: 'announce', topic: 't', content: 'x' })).body.msg, ADMINS_ONLY);
  const ownerBot = await t.api('POST', '/api/v1/bots', { as: t.owner, params: { full_name: 'Owner Bot', short_name: 'ownerbot' } });
  const oBot: TestUser = { id: ownerBot.body.user_id, email: `ownerbot-bot@${HOST}`, apiKey: ownerBot.body.api_key, row: null as never };
  assert.equal((await send(oBot, { type: 'stream', to: 'announce', topic: 't', content: 'x' })).status, 200);
});
