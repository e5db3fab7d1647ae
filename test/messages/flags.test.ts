import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';

// POST /messages/flags end to end: each flag users may change, every error, privacy, the
// historical rows Zulip gives to messages a user may read but never received, and the
// update_message_flags event (to the acting user only, message_details on marking unread).
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let guest: TestUser;
let log: EventLog;
let general: number;
const ids: Record<string, number> = {};

const send = (as: TestUser, params: Record<string, unknown>) => sendMessage(t, as, params);
const flag = (as: TestUser | null, messages: unknown, op: string, name: string) =>
  t.api('POST', '/api/v1/messages/flags', { as, params: { messages, op, flag: name } });
const flagsOf = async (as: TestUser, id: number): Promise<string[]> => {
  const r = await t.api('GET', `/api/v1/messages/${id}`, { as });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.message.flags;
};
const rowOf = (as: TestUser, id: number) => t.app.ctx.store.db.selectFrom('user_message').select('flags')
  .where('user_id', '=', as.id).where('message_id', '=', id).executeTakeFirst();

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  guest = await t.createUser({ name: 'Gus Guest', ...ROLES.guest });
  const s = await createStreams(t, {
    general: [alice, bob, carol], secret: { inviteOnly: true, subscribers: [alice] },
    shared: { inviteOnly: true, historyPublicToSubscribers: true, subscribers: [alice] },
  });
  general = s.general.id;
  ids.g1 = await send(alice, { type: 'stream', to: 'general', topic: 'lunch', content: 'pizza @**Bob Jones**' });
  ids.g2 = await send(alice, { type: 'stream', to: 'general', topic: 'lunch', content: 'tacos' });
  ids.s1 = await send(alice, { type: 'stream', to: 'secret', topic: 'plans', content: 'secret' });
  ids.sh = await send(alice, { type: 'stream', to: 'shared', topic: 'old', content: 'before carol joined' });
  ids.p1 = await send(alice, { type: 'private', to: [bob.id], content: 'hi bob' });
  ids.pc = await send(alice, { type: 'private', to: [carol.id], content: 'hi carol' });
  ids.h1 = await send(alice, { type: 'private', to: [bob.id, carol.id], content: 'group' });
  ids.n1 = await send(bob, { type: 'private', to: [bob.id], content: 'note to self' });
  log = new EventLog(t);
});
after(() => t.close());
beforeEach(() => log.clear());

test('star, unstar, collapse, read and unread: the answer echoes the ids, the flags follow', async () => {
  assert.deepEqual(assertOk(await flag(bob, [ids.g1, ids.g2], 'add', 'starred')).messages, [ids.g1, ids.g2]);
  assert.deepEqual(await flagsOf(bob, ids.g1), ['starred', 'mentioned']);
  assert.deepEqual(await flagsOf(alice, ids.g1), [], 'nobody else\'s flags change');
  assertOk(await flag(bob, [ids.g1], 'remove', 'starred'));
  assert.deepEqual(await flagsOf(bob, ids.g1), ['mentioned']);
  assert.deepEqual(await flagsOf(bob, ids.g2), ['starred']);
  assertOk(await flag(bob, [ids.p1], 'add', 'collapsed'));
  assert.deepEqual(await flagsOf(bob, ids.p1), ['collapsed']);
  assertOk(await flag(bob, [ids.p1], 'remove', 'collapsed'));
  // Ids asked for twice, or whose flag is already as asked, are answered as they were asked.
  assert.deepEqual(assertOk(await flag(bob, [ids.p1, ids.g2, ids.p1], 'add', 'read')).messages, [ids.p1, ids.g2, ids.p1]);
  assert.deepEqual(await flagsOf(bob, ids.p1), ['read']);
  assert.deepEqual(await flagsOf(bob, ids.g2), ['read', 'starred']);
  assertOk(await flag(bob, [ids.p1, ids.g2], 'remove', 'read'));
  assert.deepEqual(await flagsOf(bob, ids.p1), []);
  assertOk(await flag(bob, [ids.g2], 'remove', 'starred'));
  assertOk(await flag(bob, [], 'add', 'read'));
});

test('the event: exactly Zulip\'s shape, only to the acting user, listing the messages whose flag changed', async () => {
  assertOk(await flag(bob, [ids.g2, ids.p1], 'add', 'starred'));
  assertOk(await flag(bob, [ids.g2, ids.g1], 'add', 'starred'));
  const [first, second] = log.find('update_message_flags');
  assert.deepEqual(first, { realmId: t.realm.id, userIds: [bob.id], event: { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [ids.g2, ids.p1], all: false } });
  assert.deepEqual(second!.event.messages, [ids.g1], 'g2 was starred already');
  assertOk(await flag(bob, [ids.g1, ids.g2, ids.p1], 'remove', 'starred'));
  assert.deepEqual(log.find('update_message_flags')[2]!.event, { type: 'update_message_flags', op: 'remove', operation: 'remove', flag: 'starred', messages: [ids.g1, ids.g2, ids.p1], all: false });
  // Nothing to change still answers with an event, as Zulip does.
  assertOk(await flag(bob, [ids.g1], 'remove', 'collapsed'));
  assert.deepEqual(log.find('update_message_flags')[3]!.event.messages, []);
  assert.ok(log.events.every((e) => e.userIds.length === 1 && e.userIds[0] === bob.id));
});

test('marking read messages unread carries message_details (feature level 121) for each, and a queue gets it', async () => {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['update_message_flags'] } }));
  const other = assertOk(await t.api('POST', '/api/v1/register', { as: alice, params: { event_types: ['update_message_flags'] } }));
  assertOk(await flag(bob, [ids.g1, ids.p1, ids.h1, ids.n1], 'add', 'read'));
  // g2 is unread already: it is not in the event.
  assertOk(await flag(bob, [ids.g1, ids.p1, ids.h1, ids.n1, ids.g2], 'remove', 'read'));
  const events = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } })).events;
  assert.deepEqual(events.map((e: any) => [e.op, e.flag, e.messages, 'message_details' in e]), [
    ['add', 'read', [ids.g1, ids.p1, ids.h1, ids.n1], false], ['remove', 'read', [ids.g1, ids.p1, ids.h1, ids.n1], true]]);
  assert.deepEqual(events[1].message_details, {
    [ids.g1]: { type: 'stream', stream_id: general, topic: 'lunch', unmuted_stream_msg: true, mentioned: true },
    [ids.p1]: { type: 'private', user_ids: [alice.id] },
    [ids.h1]: { type: 'private', user_ids: [alice.id, carol.id].sort((a, b) => a - b) },
    [ids.n1]: { type: 'private', user_ids: [] },
  });
  const theirs = assertOk(await t.api('GET', '/api/v1/events', { as: alice, params: { queue_id: other.queue_id, last_event_id: -1, dont_block: true } })).events;
  assert.deepEqual(theirs.filter((e: any) => e.type !== 'heartbeat'), [], 'another user hears nothing');
  // A muted topic says so.
  assertOk(await t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as: bob, params: { stream_id: general, topic: 'LUNCH', op: 'add' } }));
  assertOk(await flag(bob, [ids.g2], 'add', 'read'));
  log.clear();
  assertOk(await flag(bob, [ids.g2], 'remove', 'read'));
  assert.deepEqual(log.one('update_message_flags', 'remove').event.message_details, { [ids.g2]: { type: 'stream', stream_id: general, topic: 'lunch', unmuted_stream_msg: false } });
  assertOk(await t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as: bob, params: { stream_id: general, topic: 'lunch', op: 'remove' } }));
});

test('each bad request gets Zulip\'s error, in Zulip\'s order, and changes nothing', async () => {
  const cases: Array<[unknown, string, string, string]> = [
    [[ids.g1], 'add', 'bogus', "Invalid flag: 'bogus'"],
    [[ids.g1], 'toggle', 'bogus', "Invalid flag: 'bogus'"],
    [[ids.g1], 'add', 'is_private', "Invalid flag: 'is_private'"],
    [[ids.g1], 'add', 'active_mobile_push_notification', "Invalid flag: 'active_mobile_push_notification'"],
    [[ids.g1], 'add', 'mentioned', "Flag not editable: 'mentioned'"],
    [[ids.g1], 'remove', 'wildcard_mentioned', "Flag not editable: 'wildcard_mentioned'"],
    [[ids.g1], 'add', 'has_alert_word', "Flag not editable: 'has_alert_word'"],
    [[ids.g1], 'add', 'historical', "Flag not editable: 'historical'"],
    [[ids.g1], 'add', 'summarize_in_home', "Flag not editable: 'summarize_in_home'"],
    [[ids.g1], 'toggle', 'mentioned', "Flag not editable: 'mentioned'"],
    [[ids.g1], 'toggle', 'starred', "Invalid message flag operation: 'toggle'"],
    ['nope', 'add', 'starred', 'Argument "messages" is not valid JSON.'],
    [{ a: 1 }, 'add', 'starred', 'messages is not a list'],
    [['x'], 'add', 'starred', 'messages[0] is not an integer'],
  ];
  for (const [messages, op, name, msg] of cases) assertError(await flag(bob, messages, op, name), msg);
  assertError(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { op: 'add', flag: 'read' } }), "Missing 'messages' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'messages' });
  assertError(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: [ids.g1], flag: 'read' } }), "Missing 'op' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'op' });
  assertError(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: [ids.g1], op: 'add' } }), "Missing 'flag' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'flag' });
  assert.deepEqual(await flagsOf(bob, ids.g1), ['mentioned']);
  assert.deepEqual(log.find('update_message_flags'), []);
});

test('authentication is required', async () => {
  assertUnauthenticated(await flag(null, [ids.g1], 'add', 'starred'));
});

test('privacy: another\'s private message, a private stream one is not in, a missing id: Invalid message(s), nothing changes', async () => {
  for (const [as, id] of [[bob, ids.pc], [dave, ids.h1], [bob, ids.s1], [bob, ids.sh], [guest, ids.g1], [bob, 999_999], [bob, -1], [bob, 2 ** 40]] as const) {
    for (const [op, name] of [['add', 'starred'], ['add', 'read'], ['remove', 'read'], ['add', 'collapsed']]) {
      assertError(await flag(as, [id], op!, name!), 'Invalid message(s)');
    }
  }
  // One inaccessible id fails the whole request: the accessible ones keep their flags.
  assertError(await flag(bob, [ids.g1, ids.pc], 'add', 'starred'), 'Invalid message(s)');
  assert.deepEqual(await flagsOf(bob, ids.g1), ['mentioned']);
  assert.deepEqual(await flagsOf(carol, ids.pc), []);
  assert.equal(await rowOf(bob, ids.s1), undefined);
  assert.deepEqual(log.find('update_message_flags'), []);
});

test('historical: starring a public-stream message never received gives a read, historical row; changes that need none make none', async () => {
  assertOk(await flag(dave, [ids.g1], 'add', 'read'));
  assertOk(await flag(dave, [ids.g1], 'remove', 'starred'));
  assertOk(await flag(dave, [ids.g1], 'remove', 'read'));
  assert.equal(await rowOf(dave, ids.g1), undefined, 'read, unstarred and not subscribed: nothing to store');
  assert.deepEqual(log.find('update_message_flags').map((e) => e.event.messages), [[], [], []]);
  assert.deepEqual(await flagsOf(dave, ids.g1), ['read', 'historical']);
  log.clear();
  assertOk(await flag(dave, [ids.g1], 'add', 'starred'));
  assert.deepEqual(log.one('update_message_flags').event.messages, [ids.g1]);
  assert.deepEqual(await flagsOf(dave, ids.g1), ['read', 'starred', 'historical']);
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: dave, params: { fetch_event_types: ['starred_messages'] } }));
  assert.deepEqual(reg.starred_messages, [ids.g1]);
  assertOk(await flag(dave, [ids.g1], 'remove', 'starred'));
  assert.deepEqual(await flagsOf(dave, ids.g1), ['read', 'historical'], 'the row stays');
  assertOk(await flag(dave, [ids.g2], 'add', 'collapsed'));
  assert.deepEqual(await flagsOf(dave, ids.g2), ['read', 'collapsed', 'historical']);
  // A private stream with shared history: a subscriber who joined later may star its old messages.
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: [{ name: 'shared' }], principals: [carol.id] } }));
  assertOk(await flag(carol, [ids.sh], 'add', 'starred'));
  assert.deepEqual(await flagsOf(carol, ids.sh), ['read', 'starred', 'historical']);
});

test('marking unread skips messages of streams the user is no longer subscribed to', async () => {
  assertOk(await flag(carol, [ids.g2, ids.pc], 'add', 'read'));
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: carol, params: { subscriptions: ['general'] } }));
  log.clear();
  assertOk(await flag(carol, [ids.g2, ids.pc], 'remove', 'read'));
  assert.deepEqual(log.one('update_message_flags').event.messages, [ids.pc]);
  assert.deepEqual(await flagsOf(carol, ids.g2), ['read']);
  assert.deepEqual(await flagsOf(carol, ids.pc), []);
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: carol, params: { subscriptions: [{ name: 'general' }] } }));
});

test('messages sent afterwards get their usual flags', async () => {
  const id = await send(alice, { type: 'stream', to: 'general', topic: 'later', content: 'hello @**Bob Jones**' });
  assert.deepEqual(await flagsOf(bob, id), ['mentioned']);
  assert.deepEqual(await flagsOf(alice, id), []);
});
