import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, httpClient, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { eventQueues, type Listener } from '../helpers/events.js';
import { cacheSignal } from '../../src/cache/signal.js';

// POST /typing end to end over real HTTP long-polls: who hears what, each error, and the
// stream_typing_notifications capability.
let t: TestApp;
let base: string;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let general: number;
let secret: number;

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  const streams = await createStreams(t, { general: [alice, bob, carol], secret: { inviteOnly: true, subscribers: [carol] } });
  general = streams.general.id;
  secret = streams.secret.id;
  base = await t.listen();
});
after(() => t.close());

const http = httpClient(() => base);
const queues = eventQueues(http);
const listen = (user: TestUser, capabilities: Record<string, boolean> = {}): Promise<Listener> =>
  queues.listen(user, { event_types: ['typing'], client_capabilities: { notification_settings_null: true, ...capabilities } });
const drain = queues.drain;

const typing = (as: TestUser, params: Record<string, unknown>) => http(as, 'POST', '/typing', params);
const who = (u: TestUser) => ({ user_id: u.id, email: u.email });

test('private typing reaches every participant, the sender too, and no one else; a parked poll is woken', async () => {
  const [a, b, c, d] = await Promise.all([alice, bob, carol, dave].map((u) => listen(u)));
  const parked = http(bob, 'GET', '/events', { queue_id: b.queueId, last_event_id: b.lastId });
  const r = await typing(alice, { op: 'start', to: [bob.id, carol.id] });
  assert.deepEqual(r, { status: 200, body: { result: 'success', msg: '' } });
  const woken = (await parked).body.events;
  assert.equal(woken.length, 1);
  assert.deepEqual({ ...woken[0], id: 0 }, {
    type: 'typing', op: 'start', id: 0, message_type: 'private', sender: who(alice), recipients: [who(bob), who(carol), who(alice)],
  });
  b.lastId = woken[0].id;
  for (const l of [a, c]) assert.deepEqual((await drain(l)).map((e) => [e.op, e.message_type, e.sender.user_id]), [['start', 'private', alice.id]]);
  assert.deepEqual(await drain(d), [], 'a user outside the conversation hears nothing');

  assert.equal((await typing(alice, { op: 'stop', to: [bob.id], type: 'private' })).status, 200);
  const stop = await drain(b);
  assert.deepEqual(stop.map((e) => [e.op, e.recipients.map((x: any) => x.user_id)]), [['stop', [bob.id, alice.id]]]);
  assert.deepEqual(await drain(c), []);
  // `direct` is the newer name of `private`.
  assert.equal((await typing(alice, { op: 'start', to: [bob.id], type: 'direct' })).status, 200);
  assert.deepEqual((await drain(b)).map((e) => e.message_type), ['private']);
});

test('stream typing reaches subscribers whose client declared stream_typing_notifications, and only them', async () => {
  const capable = { stream_typing_notifications: true };
  const [a, b, c, d] = await Promise.all([listen(alice, capable), listen(bob, capable), listen(carol), listen(dave, capable)]);
  const r = await typing(alice, { type: 'stream', op: 'start', to: [general], topic: 'lunch' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const l of [a, b]) {
    const [e, ...rest] = await drain(l);
    assert.deepEqual(rest, []);
    assert.deepEqual({ ...e, id: 0 }, { type: 'typing', op: 'start', id: 0, message_type: 'stream', sender: who(alice), stream_id: general, topic: 'lunch' });
  }
  assert.deepEqual(await drain(c), [], 'a subscriber whose client lacks the capability is not sent stream typing');
  assert.deepEqual(await drain(d), [], 'a non-subscriber hears nothing');
  // The newer form: type `channel` with `stream_id`.
  assert.equal((await typing(bob, { type: 'channel', op: 'stop', stream_id: general, topic: 'lunch' })).status, 200);
  assert.deepEqual((await drain(a)).map((e) => [e.op, e.sender.user_id, e.stream_id]), [['stop', bob.id, general]]);
});

test('each bad request gets Zulip\'s error and sends nothing', async () => {
  const c = await listen(carol, { stream_typing_notifications: true });
  const cases: Array<[TestUser, Record<string, unknown>, string]> = [
    [alice, { op: 'start', to: [bob.id], type: 'huddle' }, 'Invalid type'],
    // Names every JavaScript object has are not types either.
    [alice, { op: 'start', to: [bob.id], type: 'constructor' }, 'Invalid type'],
    [alice, { op: 'start', to: [bob.id], type: '__proto__' }, 'Invalid type'],
    [alice, { op: 'begin', to: [bob.id] }, 'Invalid op'],
    [alice, { to: [bob.id] }, "Missing 'op' argument"],
    [alice, { op: 'start' }, "Missing 'to' argument"],
    [alice, { op: 'start', to: [] }, "Empty 'to' list"],
    [alice, { op: 'start', to: '"x"' }, 'to is not a list'],
    [alice, { op: 'start', to: [carol.id, 987654] }, 'Invalid user ID 987654'],
    [alice, { type: 'stream', op: 'start', to: [general, secret], topic: 'x' }, 'Cannot send to multiple streams'],
    [alice, { type: 'stream', op: 'start', to: [general] }, 'Missing topic'],
    [alice, { type: 'stream', op: 'start', to: [987654], topic: 'x' }, 'Invalid stream id'],
    // A private stream the sender cannot see is indistinguishable from a missing one.
    [alice, { type: 'stream', op: 'start', to: [secret], topic: 'x' }, 'Invalid stream id'],
  ];
  for (const [as, params, msg] of cases) {
    const r = await typing(as, params);
    assert.equal(r.status, 400, `${JSON.stringify(params)}: ${JSON.stringify(r.body)}`);
    assert.deepEqual({ result: r.body.result, msg: r.body.msg }, { result: 'error', msg }, JSON.stringify(params));
  }
  assert.deepEqual(await drain(c), [], 'no rejected request produced an event');
});

test('a user who turned typing notifications off may not send them', async () => {
  const settings = JSON.stringify({ send_private_typing_notifications: false, send_stream_typing_notifications: false });
  await t.app.ctx.store.db.updateTable('users').set({ settings }).where('id', '=', dave.id).execute();
  // Written behind the API's back (PATCH /settings is a later issue), so retire the cached identity by hand.
  cacheSignal.retire({ scopes: new Set(['users']) });
  const pm = await typing(dave, { op: 'start', to: [alice.id] });
  assert.equal(pm.body.msg, 'User has disabled typing notifications for private messages');
  await createStreams(t, { 'dave-room': [dave] });
  const room = (await http(dave, 'GET', '/get_stream_id', { stream: 'dave-room' })).body.stream_id;
  const st = await typing(dave, { type: 'stream', op: 'start', to: [room], topic: 'x' });
  assert.equal(st.body.msg, 'User has disabled typing notifications for stream messages');
});

test('authentication is required', async () => {
  const r = await http(null, 'POST', '/typing', { op: 'start', to: [alice.id] });
  assert.equal(r.status, 401);
  assert.equal(r.body.result, 'error');
});
