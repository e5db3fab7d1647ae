import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';

// The bulk mark-as-read endpoints end to end: what each marks (and what it leaves alone,
// other users' rows included), their errors, and the update_message_flags event each sends
// to the acting user only.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let log: EventLog;
let general: number;
let random: number;
let secret: number;
const ids: Record<string, number> = {};

const send = (as: TestUser, params: Record<string, unknown>) => sendMessage(t, as, params);
const post = (as: TestUser | null, path: string, params?: Record<string, unknown>) => t.api('POST', `/api/v1${path}`, { as, params });
const unreadIds = async (as: TestUser): Promise<number[]> => {
  const rows = await t.app.ctx.store.db.selectFrom('user_message').select('message_id').where('user_id', '=', as.id)
    .where((eb) => eb(eb.parens(eb('flags', '&', 1)), '=', 0)).orderBy('message_id').execute();
  return rows.map((r) => r.message_id);
};
const makeUnread = async (as: TestUser) => {
  await t.app.ctx.store.db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '&', ~1) })).where('user_id', '=', as.id).execute();
};
const readEvent = (messages: number[], all: boolean) => ({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages, all });

before(async () => {
  t = await testApp();
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  const s = await createStreams(t, { general: [alice, bob, carol], random: [alice, bob], secret: { inviteOnly: true, subscribers: [alice] } });
  general = s.general.id;
  random = s.random.id;
  secret = s.secret.id;
  ids.lunch1 = await send(alice, { type: 'stream', to: 'general', topic: 'Lunch', content: 'pizza' });
  ids.lunch2 = await send(carol, { type: 'stream', to: 'general', topic: 'lunch', content: 'tacos' });
  ids.deploy = await send(alice, { type: 'stream', to: 'general', topic: 'deploy', content: 'shipping' });
  ids.random = await send(alice, { type: 'stream', to: 'random', topic: 'Lunch', content: 'elsewhere' });
  ids.secret = await send(alice, { type: 'stream', to: 'secret', topic: 'Lunch', content: 'hidden' });
  ids.pm = await send(alice, { type: 'private', to: [bob.id], content: 'hi' });
  log = new EventLog(t);
});
after(() => t.close());
beforeEach(async () => {
  await makeUnread(bob);
  await makeUnread(carol);
  log.clear();
});

test('mark_all_as_read: every unread message of the user, nobody else\'s; the event says `all` and names none', async () => {
  assert.deepEqual(await unreadIds(bob), [ids.lunch1, ids.lunch2, ids.deploy, ids.random, ids.pm]);
  assert.deepEqual(assertOk(await post(bob, '/mark_all_as_read')), { result: 'success', msg: '', ...(FEATURE_LEVEL >= 211 ? { complete: true } : {}) });
  assert.deepEqual(await unreadIds(bob), []);
  assert.deepEqual(await unreadIds(carol), [ids.lunch1, ids.lunch2, ids.deploy]);
  assert.deepEqual(log.events, [{ realmId: t.realm.id, userIds: [bob.id], event: readEvent([], true) }]);
  // Nothing left: still a success, still the event.
  assertOk(await post(bob, '/mark_all_as_read'));
  assert.equal(log.find('update_message_flags').length, 2);
  const reg = assertOk(await post(bob, '/register', { fetch_event_types: ['message', 'update_message_flags'] }));
  assert.equal(reg.unread_msgs.count, 0);
});

test('mark_stream_as_read: the stream\'s unread messages; the event lists them', async () => {
  assertOk(await post(bob, '/mark_stream_as_read', { stream_id: general }));
  assert.deepEqual(await unreadIds(bob), [ids.random, ids.pm]);
  assert.deepEqual(await unreadIds(carol), [ids.lunch1, ids.lunch2, ids.deploy]);
  assert.deepEqual(log.events, [{ realmId: t.realm.id, userIds: [bob.id], event: readEvent([ids.lunch1, ids.lunch2, ids.deploy], false) }]);
  // Nothing unread there any more: no event.
  assertOk(await post(bob, '/mark_stream_as_read', { stream_id: general }));
  assert.equal(log.events.length, 1);
});

test('mark_topic_as_read: the topic\'s unread messages, matched without case, in that stream only', async () => {
  assertOk(await post(bob, '/mark_topic_as_read', { stream_id: general, topic_name: 'LUNCH' }));
  assert.deepEqual(await unreadIds(bob), [ids.deploy, ids.random, ids.pm]);
  assert.deepEqual(log.events, [{ realmId: t.realm.id, userIds: [bob.id], event: readEvent([ids.lunch1, ids.lunch2], false) }]);
  // A topic already read is still a topic: success, no event.
  assertOk(await post(bob, '/mark_topic_as_read', { stream_id: general, topic_name: 'lunch' }));
  assert.equal(log.events.length, 1);
  // An empty topic name marks the whole stream, as in Zulip.
  assertOk(await post(bob, '/mark_topic_as_read', { stream_id: general, topic_name: '' }));
  assert.deepEqual(await unreadIds(bob), [ids.random, ids.pm]);
});

test('errors: Zulip\'s strings for missing and bad parameters, unknown and hidden streams, unknown topics', async () => {
  assertError(await post(bob, '/mark_stream_as_read'), "Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'stream_id' });
  assertError(await post(bob, '/mark_stream_as_read', { stream_id: 'abc' }), 'stream_id is not an integer');
  assertError(await post(bob, '/mark_stream_as_read', { stream_id: 999_999 }), 'Invalid stream id');
  assertError(await post(bob, '/mark_topic_as_read', { topic_name: 'Lunch' }), "Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'stream_id' });
  assertError(await post(bob, '/mark_topic_as_read', { stream_id: general }), "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'topic_name' });
  assertError(await post(bob, '/mark_topic_as_read', { stream_id: 999_999, topic_name: 'Lunch' }), 'Invalid stream id');
  assertError(await post(bob, '/mark_topic_as_read', { stream_id: general, topic_name: 'no such' }), "No such topic 'no such'");
  // The topic exists in another stream only.
  assertError(await post(carol, '/mark_topic_as_read', { stream_id: general, topic_name: 'elsewhere' }), "No such topic 'elsewhere'");
  assert.deepEqual(await unreadIds(bob), [ids.lunch1, ids.lunch2, ids.deploy, ids.random, ids.pm]);
  assert.deepEqual(log.events, []);
});

test('privacy: a private stream one is not in is an invalid stream; a topic one received nothing in does not exist', async () => {
  assertError(await post(bob, '/mark_stream_as_read', { stream_id: secret }), 'Invalid stream id');
  assertError(await post(bob, '/mark_topic_as_read', { stream_id: secret, topic_name: 'Lunch' }), 'Invalid stream id');
  // Carol may see random (public) but received nothing there.
  assertError(await post(carol, '/mark_topic_as_read', { stream_id: random, topic_name: 'Lunch' }), "No such topic 'Lunch'");
  assertOk(await post(carol, '/mark_stream_as_read', { stream_id: random }));
  assert.deepEqual(log.events, []);
  const aliceUnread = await unreadIds(alice);
  assertOk(await post(bob, '/mark_all_as_read'));
  assert.deepEqual(await unreadIds(alice), aliceUnread, 'another user\'s rows are untouched');
});

test('authentication is required', async () => {
  assertUnauthenticated(await post(null, '/mark_all_as_read'));
  assertUnauthenticated(await post(null, '/mark_stream_as_read', { stream_id: general }));
  assertUnauthenticated(await post(null, '/mark_topic_as_read', { stream_id: general, topic_name: 'Lunch' }));
});

test('messages sent after marking all read arrive unread, and register counts them', async () => {
  assertOk(await post(bob, '/mark_all_as_read'));
  const id = await send(alice, { type: 'stream', to: 'general', topic: 'after', content: 'new' });
  assert.deepEqual(await unreadIds(bob), [id]);
  const reg = assertOk(await post(bob, '/register', { fetch_event_types: ['message', 'update_message_flags'] }));
  assert.equal(reg.unread_msgs.count, 1);
  assert.deepEqual(reg.unread_msgs.streams, [{ stream_id: general, topic: 'after', unread_message_ids: [id] }]);
});
