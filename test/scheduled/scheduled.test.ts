import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { until } from '../helpers/until.js';
import { scheduledMessages } from '../../src/store/repos/scheduled-messages.js';
import { deliverScheduledMessage } from '../../src/actions/scheduled-messages.js';

// Scheduled messages end to end: the four endpoints with Zulip's errors, privacy, the
// register key and events, and delivery (a real send, exactly once, failures told).
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let general: number;
let secret: number;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  const s = await createStreams(t, { general: [alice, bob, carol], secret: { inviteOnly: true, subscribers: [bob] } });
  general = s.general.id;
  secret = s.secret.id;
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);
const schedule = (as: TestUser, params: Record<string, unknown>) => t.api('POST', '/api/v1/scheduled_messages', { as, params });
const scheduleOk = async (as: TestUser, params: Record<string, unknown>): Promise<number> => {
  const r = await schedule(as, { scheduled_delivery_timestamp: now() + 3600, ...params });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.scheduled_message_id;
};
const list = async (as: TestUser, app: TestApp = t) => {
  const r = await app.api('GET', '/api/v1/scheduled_messages', { as });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.scheduled_messages as any[];
};
const patch = (as: TestUser, id: number | string, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/scheduled_messages/${id}`, { as, params });
const remove = (as: TestUser, id: number | string) => t.api('DELETE', `/api/v1/scheduled_messages/${id}`, { as });
const clear = async (as: TestUser) => {
  for (const m of await list(as)) assert.equal((await remove(as, m.scheduled_message_id)).status, 200);
};
const error = (r: { status: number; body: any }, msg: string, status = 400) => {
  assert.equal(r.body.msg, msg, JSON.stringify(r.body));
  assert.equal(r.status, status);
};
const lastMessages = async (as: TestUser, n = 1) =>
  (await t.api('GET', '/api/v1/messages', { as, params: { anchor: 'newest', num_before: n, num_after: 0 } })).body.messages as any[];

test('POST answers an id; GET lists the sender\'s own by delivery time, as Zulip shows them; nobody else sees them', async () => {
  const at = now() + 7200;
  const s = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'later', content: '**hi**', scheduled_delivery_timestamp: at });
  const p = await scheduleOk(alice, { type: 'direct', to: JSON.stringify([bob.id, carol.id, bob.id]), content: 'group', scheduled_delivery_timestamp: at - 60 });
  const self = await scheduleOk(alice, { type: 'private', to: JSON.stringify([alice.id]), content: 'note', scheduled_delivery_timestamp: at - 30 });
  const ch = await scheduleOk(alice, { type: 'channel', to: ` ${general} `, subject: 'by alias', content: 'c', scheduled_delivery_timestamp: at + 1 });
  assert.deepEqual(await list(alice), [
    { scheduled_message_id: p, type: 'private', to: [bob.id, carol.id].sort((a, b) => a - b), content: 'group', rendered_content: '<p>group</p>', scheduled_delivery_timestamp: at - 60, failed: false },
    { scheduled_message_id: self, type: 'private', to: [alice.id], content: 'note', rendered_content: '<p>note</p>', scheduled_delivery_timestamp: at - 30, failed: false },
    { scheduled_message_id: s, type: 'stream', to: general, topic: 'later', content: '**hi**', rendered_content: '<p><strong>hi</strong></p>', scheduled_delivery_timestamp: at, failed: false },
    { scheduled_message_id: ch, type: 'stream', to: general, topic: 'by alias', content: 'c', rendered_content: '<p>c</p>', scheduled_delivery_timestamp: at + 1, failed: false },
  ]);
  assert.deepEqual(await list(bob), []);
  // Another's scheduled message is missing to everyone else, for every verb.
  error(await patch(bob, s, { content: 'mine now' }), 'Scheduled message does not exist', 404);
  error(await remove(bob, s), 'Scheduled message does not exist', 404);
  const reg = await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['scheduled_messages'] } });
  assert.deepEqual(reg.body.scheduled_messages, []);
  const mine = await t.api('POST', '/api/v1/register', { as: alice, params: { fetch_event_types: ['scheduled_messages'] } });
  assert.deepEqual(mine.body.scheduled_messages, await list(alice));
  await clear(alice);
});

test('POST errors, in Zulip\'s words', async () => {
  const base = { type: 'stream', to: String(general), topic: 't', content: 'x', scheduled_delivery_timestamp: now() + 60 };
  error(await schedule(alice, { ...base, scheduled_delivery_timestamp: now() - 1 }), 'Scheduled delivery time must be in the future.');
  error(await schedule(alice, { ...base, scheduled_delivery_timestamp: 'soon' }), 'scheduled_delivery_timestamp is not an integer');
  error(await schedule(alice, { ...base, type: 'broadcast' }), 'Invalid type');
  error(await schedule(alice, { ...base, to: 'general' }), 'Invalid data type for stream ID');
  error(await schedule(alice, { ...base, type: 'private', to: String(bob.id) }), 'Invalid data type for recipients');
  error(await schedule(alice, { ...base, type: 'private', to: JSON.stringify([bob.email]) }), 'Recipient list may only contain user IDs');
  error(await schedule(alice, { ...base, type: 'private', to: '[999999]' }), 'Invalid user ID 999999');
  error(await schedule(alice, { ...base, to: String(secret) }), `Stream with ID '${secret}' does not exist`);
  error(await schedule(alice, { ...base, content: '   ' }), 'Message must not be empty');
  error(await schedule(alice, { ...base, topic: undefined }), 'Missing topic');
  error(await schedule(alice, { type: 'stream', to: String(general), topic: 't', scheduled_delivery_timestamp: now() + 60 }), "Missing 'content' argument");
  const anon = await t.api('POST', '/api/v1/scheduled_messages', { as: null, params: base });
  assert.equal(anon.status, 401);
  assert.equal((await t.api('GET', '/api/v1/scheduled_messages', { as: null })).status, 401);
  assert.deepEqual(await list(alice), []);
});

test('PATCH changes what it is given, re-checks it, and answers Zulip\'s errors', async () => {
  const id = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'first', content: 'one' });
  error(await patch(alice, id, {}), 'Nothing to change');
  error(await patch(alice, id, { type: 'private' }), 'Recipient required when updating type of scheduled message.');
  error(await patch(alice, id, { type: 'stream', to: String(general) }), 'Topic required when updating scheduled message type to stream.');
  error(await patch(alice, id, { scheduled_delivery_timestamp: now() - 5 }), 'Scheduled delivery time must be in the future.');
  error(await patch(alice, id, { to: String(secret) }), `Stream with ID '${secret}' does not exist`);
  error(await patch(alice, 999999, { content: 'x' }), 'Scheduled message does not exist', 404);
  error(await patch(alice, 'abc', { content: 'x' }), 'Invalid scheduled message id');
  assert.equal((await patch(alice, id, { topic: 'second' })).status, 200);
  assert.equal((await patch(alice, id, { content: '*two*' })).status, 200);
  let [m] = await list(alice);
  assert.deepEqual([m.type, m.to, m.topic, m.content, m.rendered_content], ['stream', general, 'second', '*two*', '<p><em>two</em></p>']);
  assert.equal((await patch(alice, id, { type: 'direct', to: JSON.stringify([bob.id]) })).status, 200);
  [m] = await list(alice);
  assert.deepEqual(m, { scheduled_message_id: id, type: 'private', to: [bob.id], content: '*two*', rendered_content: '<p><em>two</em></p>', scheduled_delivery_timestamp: m.scheduled_delivery_timestamp, failed: false });
  const later = now() + 9000;
  assert.equal((await patch(alice, id, { scheduled_delivery_timestamp: later })).status, 200);
  assert.equal((await list(alice))[0].scheduled_delivery_timestamp, later);
  assert.equal((await remove(alice, id)).status, 200);
  error(await remove(alice, id), 'Scheduled message does not exist', 404);
});

test('events: add, update, remove reach the sender\'s queues and nobody else\'s', async () => {
  const qa = await t.api('POST', '/api/v1/register', { as: alice, params: { event_types: ['scheduled_messages', 'message'] } });
  const qb = await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['scheduled_messages'] } });
  const id = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'ev', content: 'e' });
  assert.equal((await patch(alice, id, { content: 'f' })).status, 200);
  assert.equal((await remove(alice, id)).status, 200);
  const poll = async (q: any, as: TestUser) => ((await t.api('GET', '/api/v1/events', { as, params: { queue_id: q.body.queue_id, last_event_id: -1, dont_block: true } })).body.events as any[])
    .filter((e) => e.type !== 'heartbeat');
  const got = await until(async () => { const e = await poll(qa, alice); return e.length >= 3 && e; });
  assert.deepEqual(got.map((e: any) => [e.type, e.op]), [['scheduled_messages', 'add'], ['scheduled_messages', 'update'], ['scheduled_messages', 'remove']]);
  assert.equal(got[0].scheduled_messages[0].scheduled_message_id, id);
  assert.equal(got[1].scheduled_message.content, 'f');
  assert.equal(got[2].scheduled_message_id, id);
  assert.deepEqual(await poll(qb, bob), []);
});

test('delivery: a real send when due (events, flags, read_by_sender), then gone from the list; exactly once however many try', async () => {
  const at = now() + 600;
  const qb = await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['message'] } });
  const qa = await t.api('POST', '/api/v1/register', { as: alice, params: { event_types: ['scheduled_messages'] } });
  const unread = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'due', content: 'hello @**Bob Jones**', scheduled_delivery_timestamp: at, read_by_sender: false });
  const read = await scheduleOk(alice, { type: 'direct', to: JSON.stringify([bob.id]), content: 'psst', scheduled_delivery_timestamp: at + 1, read_by_sender: true });
  assert.equal(await t.app.ctx.scheduledDelivery!.deliverDue(at - 1), 0, 'nothing is due yet');
  // Several rounds at once, as several nodes would run them: each message goes once.
  const tried = await Promise.all([1, 2, 3].map(() => t.app.ctx.scheduledDelivery!.deliverDue(at + 1)));
  assert.equal(tried.reduce((a, b) => a + b, 0), 2);
  const [stream, dm] = await lastMessages(alice, 2);
  assert.equal(stream.content, '<p>hello <span class="user-mention" data-user-id="' + bob.id + '">@Bob Jones</span></p>');
  assert.equal(stream.subject, 'due');
  assert.deepEqual(stream.flags, []);
  assert.deepEqual(dm.flags, ['read']);
  const bobs = await lastMessages(bob, 2);
  assert.deepEqual(bobs.map((m) => m.id), [stream.id, dm.id]);
  assert.deepEqual(bobs[0].flags, ['mentioned']);
  assert.deepEqual(await list(alice), []);
  const stored = await scheduledMessages.findById(t.app.ctx.store.db, unread);
  assert.equal(stored!.delivered, 1);
  assert.equal(stored!.delivered_message_id, stream.id);
  // Bob's client heard the messages as any send's; Alice's heard both removals.
  const events = async (q: any, as: TestUser) => ((await t.api('GET', '/api/v1/events', { as, params: { queue_id: q.body.queue_id, last_event_id: -1, dont_block: true } })).body.events as any[]).filter((e) => e.type !== 'heartbeat');
  assert.deepEqual((await until(async () => { const e = await events(qb, bob); return e.length >= 2 && e; })).map((e: any) => e.message.id), [stream.id, dm.id]);
  assert.deepEqual((await until(async () => { const e = await events(qa, alice); return e.filter((x: any) => x.op === 'remove').length >= 2 && e; }))
    .filter((e: any) => e.op === 'remove').map((e: any) => e.scheduled_message_id).sort(), [unread, read].sort());
  // A delivered one can no longer be edited.
  error(await patch(alice, unread, { content: 'too late' }), 'Scheduled message was already sent');
});

test('the send itself is guarded: two deliveries under one lease store one message, and a stale lease stores none', async () => {
  const at = now() + 600;
  const id = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'guard', content: 'once', scheduled_delivery_timestamp: at });
  const db = t.app.ctx.store.db;
  const before = (await lastMessages(alice))[0].id;
  assert.ok(await scheduledMessages.lease(db, id, at, at + 60));
  await Promise.all([deliverScheduledMessage(t.app.ctx, id, at, at + 60), deliverScheduledMessage(t.app.ctx, id, at, at + 60)]);
  const after = await lastMessages(alice, 3);
  assert.deepEqual(after.filter((m) => m.id > before).map((m) => m.content), ['<p>once</p>']);
  // An edit while a delivery prepares takes the lease away: that delivery stores nothing.
  const edited = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'guard', content: 'old', scheduled_delivery_timestamp: at });
  assert.ok(await scheduledMessages.lease(db, edited, at, at + 60));
  assert.equal((await patch(alice, edited, { content: 'new' })).status, 200);
  await deliverScheduledMessage(t.app.ctx, edited, at, at + 60);
  assert.equal((await lastMessages(alice))[0].id, after[after.length - 1].id);
  assert.equal((await list(alice))[0].content, 'new');
  await clear(alice);
});

test('a node that died holding a lease: once the lease lapses, the next round sends it', async () => {
  const at = now() + 600;
  const id = await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'crash', content: 'survived', scheduled_delivery_timestamp: at });
  assert.ok(await scheduledMessages.lease(t.app.ctx.store.db, id, at, at + 60), 'taken by a node that then dies');
  assert.equal(await t.app.ctx.scheduledDelivery!.deliverDue(at + 30), 0, 'held: nobody else sends it');
  assert.equal(await t.app.ctx.scheduledDelivery!.deliverDue(at + 61), 1);
  assert.equal((await lastMessages(alice))[0].content, '<p>survived</p>');
  assert.deepEqual(await list(alice), []);
});

test('the delivery worker sends on its own when the time comes', async () => {
  const at = now() + 2;
  await scheduleOk(alice, { type: 'stream', to: String(general), topic: 'timer', content: 'on time', scheduled_delivery_timestamp: at });
  await until(async () => (await lastMessages(alice))[0].content === '<p>on time</p>', { timeoutMs: 10_000 });
  assert.deepEqual(await list(alice), []);
});

test('a failed delivery: failed set (181), an update event, and Notification Bot tells the sender; an edit with a new time retries', async () => {
  const at = now() + 600;
  const q = await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['scheduled_messages'] } });
  const id = await scheduleOk(bob, { type: 'stream', to: String(secret), topic: 'lost', content: 'gone soon', scheduled_delivery_timestamp: at });
  // Bob leaves the private stream: he may no longer send there.
  assert.equal((await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: bob, params: { subscriptions: JSON.stringify(['secret']) } })).status, 200);
  assert.equal(await t.app.ctx.scheduledDelivery!.deliverDue(at), 1);
  const [m] = await list(bob);
  assert.equal(m.scheduled_message_id, id);
  assert.equal(m.failed, true);
  const [notice] = await lastMessages(bob);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.match(notice.content, /The message you scheduled for .* was not sent because of the following error:/);
  assert.match(notice.content, new RegExp(`Stream with ID &#39;${secret}&#39; does not exist|Stream with ID '${secret}' does not exist`));
  const events = ((await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: q.body.queue_id, last_event_id: -1, dont_block: true } })).body.events as any[]).filter((e) => e.type === 'scheduled_messages');
  assert.deepEqual(events.map((e) => [e.op, (e.scheduled_message ?? e.scheduled_messages[0]).failed]), [['add', false], ['update', true]]);
  assert.equal(await t.app.ctx.scheduledDelivery!.deliverDue(at + 1), 0, 'a failed one is not tried again');
  error(await patch(bob, id, { content: 'again' }), 'Scheduled delivery time must be in the future.');
  assert.equal((await patch(bob, id, { to: String(general), scheduled_delivery_timestamp: now() + 900 })).status, 200);
  assert.equal((await list(bob))[0].failed, false);
  await clear(bob);
});

test('too late (past Zulip\'s ten-minute cutoff): failed rather than sent out of its time', async () => {
  const at = now() + 600;
  const id = await scheduleOk(carol, { type: 'stream', to: String(general), topic: 'late', content: 'stale', scheduled_delivery_timestamp: at });
  assert.equal(await t.app.ctx.scheduledDelivery!.deliverDue(at + 601), 1);
  assert.deepEqual((await list(carol)).map((m) => [m.scheduled_message_id, m.failed]), [[id, true]]);
  assert.match((await lastMessages(carol))[0].content, /Message could not be sent at the scheduled time\./);
  await clear(carol);
});

test('at level 122: the endpoints answer, without `failed`; register has no scheduled_messages', async () => {
  const old = await testApp({ featureLevel: 122 });
  try {
    const r = await old.api('POST', '/api/v1/scheduled_messages', { params: { type: 'private', to: JSON.stringify([old.owner.id]), content: 'x', scheduled_delivery_timestamp: now() + 60 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [m] = await list(old.owner, old);
    assert.equal(m.scheduled_message_id, r.body.scheduled_message_id);
    assert.equal('failed' in m, false);
    const reg = await old.api('POST', '/api/v1/register', { params: { fetch_event_types: ['scheduled_messages', 'message'] } });
    assert.equal('scheduled_messages' in reg.body, false);
  } finally {
    await old.close();
  }
});
