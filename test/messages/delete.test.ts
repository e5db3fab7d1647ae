import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// DELETE /messages/{id} end to end: who may delete what (Zulip's validate_can_delete_message),
// the delete_message event and who hears it, the rows that go, and first_message_id.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser, admin: TestUser, moderator: TestUser;
let general: number;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  moderator = await t.createUser({ name: 'Mo Moderator', role: Role.MODERATOR });
  const s = await createStreams(t, {
    general: [alice, bob, carol, admin, moderator],
    secret: { inviteOnly: true, subscribers: [alice, carol] },
  });
  general = s.general.id;
});
after(() => t.close());

const del = (as: TestUser | null, id: number) => t.api('DELETE', `/api/v1/messages/${id}`, { as });
const inGeneral = (as: TestUser, topic = 'deletion') => sendMessage(t, as, { type: 'stream', to: 'general', topic, content: 'delete me' });
const exists = async (id: number) => (await t.app.ctx.store.db.selectFrom('message').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
const withSettings = async (patch: Record<string, unknown>, fn: () => Promise<void>) => {
  await setRealmSettings(t, patch);
  try {
    await fn();
  } finally {
    await setRealmSettings(t, { delete_own_message_policy: 1, message_content_delete_limit_seconds: null });
  }
};

test('requires authentication', async () => {
  const id = await inGeneral(alice);
  assertUnauthenticated(await del(null, id));
  assert.ok(await exists(id));
});

test('a sender deletes their stream message: its rows go, the subscribers hear delete_message, GET /messages no longer has it', async () => {
  const id = await inGeneral(alice, 'Going Away');
  assertOk(await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
  assert.ok(messageIds(assertOk(await getMessages(t, bob))).includes(id), 'read once first, so that a cached copy exists');
  log.clear();
  assertOk(await del(alice, id));
  const e = log.one('delete_message');
  assert.deepEqual(e.event, { type: 'delete_message', message_type: 'stream', message_ids: [id], stream_id: general, topic: 'Going Away' });
  assert.deepEqual(sorted(e.userIds), sorted([alice.id, bob.id, carol.id, admin.id, moderator.id]), 'subscribers; not dave');
  assert.ok(!(await exists(id)));
  const db = t.app.ctx.store.db;
  assert.deepEqual(await db.selectFrom('user_message').select('user_id').where('message_id', '=', id).execute(), []);
  assert.deepEqual(await db.selectFrom('reaction').select('id').where('message_id', '=', id).execute(), []);
  assert.ok(!messageIds(assertOk(await getMessages(t, bob))).includes(id));
  assertError(await t.api('GET', `/api/v1/messages/${id}`, { as: alice }), 'Invalid message(s)');
  assertError(await del(alice, id), 'Invalid message(s)', 'BAD_REQUEST');
});

test('a private message\'s deletion names neither sender nor recipient and reaches only its conversation', async () => {
  const id = await sendMessage(t, alice, { type: 'private', to: [bob.id, carol.id], content: 'oops' });
  // A client without bulk_message_deletion gets the one-id form.
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: false } } }));
  log.clear();
  assertOk(await del(alice, id));
  const e = log.one('delete_message');
  assert.deepEqual(e.event, { type: 'delete_message', message_type: 'private', message_ids: [id] });
  assert.deepEqual(sorted(e.userIds), sorted([alice.id, bob.id, carol.id]));
  const polled = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } }));
  assert.deepEqual(polled.events.map(({ id: _id, ...rest }: any) => rest), [{ type: 'delete_message', message_type: 'private', message_id: id }]);
});

test('only the sender, their bot\'s owner, or an administrator may delete', async () => {
  const id = await inGeneral(alice);
  for (const u of [bob, moderator]) assertError(await del(u, id), "You don't have permission to delete this message");
  assert.ok(await exists(id));
  assertOk(await del(admin, id));
  // An administrator may delete even an owner's message.
  assertOk(await del(admin, await inGeneral(t.owner)));

  const bot = await t.createBot(alice, { fullName: 'Alice Bot', shortName: 'alice-bot' });
  const botSaid = await inGeneral(bot);
  assertError(await del(bob, botSaid), "You don't have permission to delete this message");
  assertOk(await del(alice, botSaid));
  // Only where the owner can read it: a private message of the bot's to someone else stays out of reach.
  assertError(await del(alice, await sendMessage(t, bot, { type: 'private', to: [bob.id], content: 'beep' })), 'Invalid message(s)');
});

test('delete_own_message_policy and message_content_delete_limit_seconds bind everyone but administrators', async () => {
  await withSettings({ delete_own_message_policy: 2 }, async () => {
    const own = await inGeneral(bob);
    assertError(await del(bob, own), "You don't have permission to delete this message");
    assertOk(await del(admin, await inGeneral(admin)));
  });
  await withSettings({ delete_own_message_policy: 4 }, async () => {
    assertError(await del(bob, await inGeneral(bob)), "You don't have permission to delete this message");
    assertOk(await del(moderator, await inGeneral(moderator)));
  });
  await withSettings({ delete_own_message_policy: 5, message_content_delete_limit_seconds: 600 }, async () => {
    const old = await inGeneral(bob);
    const fresh = await inGeneral(bob);
    const adminOld = await inGeneral(admin);
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 601;
    await t.app.ctx.store.db.updateTable('message').set({ date_sent: tenMinutesAgo }).where('id', 'in', [old, adminOld]).execute();
    assertError(await del(bob, old), 'The time limit for deleting this message has passed');
    assertOk(await del(bob, fresh));
    assertOk(await del(admin, adminOld));
    assertOk(await del(admin, old));
  });
});

test('privacy: a message one cannot read is "Invalid message(s)", administrators included', async () => {
  const secret = await sendMessage(t, carol, { type: 'stream', to: 'secret', topic: 'x', content: 'hush' });
  const pm = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'just us' });
  log.clear();
  for (const [as, id] of [[dave, secret], [admin, secret], [t.owner, secret], [carol, pm], [admin, pm]] as const) {
    assertError(await del(as, id), 'Invalid message(s)');
  }
  assertError(await del(alice, 99999999), 'Invalid message(s)');
  assert.deepEqual(log.find('delete_message'), []);
  assert.ok(await exists(secret) && await exists(pm));
  // In a private stream with protected history, its subscribers who received it hear of it.
  assertOk(await del(carol, secret));
  assert.deepEqual(sorted(log.one('delete_message').userIds), sorted([alice.id, carol.id]));
});

test('deleting a stream\'s first message moves first_message_id to the oldest left, or to null', async () => {
  const [early] = Object.values(await createStreams(t, { early: [alice, bob] }));
  const first = await sendMessage(t, alice, { type: 'stream', to: 'early', topic: 'a', content: 'one' });
  const second = await sendMessage(t, alice, { type: 'stream', to: 'early', topic: 'b', content: 'two' });
  const firstOf = async () => (await t.app.ctx.store.db.selectFrom('stream').select('first_message_id').where('id', '=', early!.id).executeTakeFirstOrThrow()).first_message_id;
  assert.equal(await firstOf(), first);
  log.clear();
  assertOk(await del(alice, second));
  assert.equal(await firstOf(), first, 'a later message leaves it');
  assert.deepEqual(log.find('stream'), []);
  assertOk(await del(alice, first));
  assert.equal(await firstOf(), null);
  const update = log.one('stream', 'update');
  assert.deepEqual(update.event, { type: 'stream', op: 'update', property: 'first_message_id', value: null, stream_id: early!.id, name: 'early' });
  assert.ok(update.userIds.includes(dave.id), 'told to everyone who lists the public stream');
  const third = await sendMessage(t, bob, { type: 'stream', to: 'early', topic: 'c', content: 'three' });
  assert.equal(await firstOf(), third);
  const streams = assertOk(await t.api('GET', '/api/v1/streams', { as: bob })).streams;
  assert.equal(streams.find((s: any) => s.stream_id === early!.id).first_message_id, third);
});
