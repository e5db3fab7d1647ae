import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import zulip from 'zulip-js';
import { testApp, createAcme, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { untilEpochShows } from '../helpers/epoch.js';

// POST and DELETE /users/me/muted_users/{id} end to end: Zulip's errors, register's
// muted_users and the muted_users event (to the muter only), and the one thing the server
// does about a mute: the muted user's messages are read for the muter, those already
// received at once and new ones as they arrive.
let t: TestApp;
let log: EventLog;
let hamlet: TestUser, cordelia: TestUser, othello: TestUser, iago: TestUser, bot: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ hamlet, cordelia, othello, iago } = await t.createUsers({
    hamlet: { name: 'King Hamlet' }, cordelia: { name: 'Cordelia Lear' }, othello: { name: 'Othello Moor' }, iago: { name: 'Iago Ensign' },
  }));
  bot = await t.createBot(hamlet, { fullName: 'Mute Bot', shortName: 'mutebot' });
  await createStreams(t, { general: [hamlet, cordelia, othello] });
  ({ owner: acmeOwner } = await createAcme(t));
});
after(() => t.close());

const mute = (as: TestUser | null, id: number | string) => t.api('POST', `/api/v1/users/me/muted_users/${id}`, { as });
const unmute = (as: TestUser | null, id: number | string) => t.api('DELETE', `/api/v1/users/me/muted_users/${id}`, { as });
const mutedUsersOf = async (as: TestUser) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['muted_users'] } })).muted_users as Array<{ id: number; timestamp: number }>;
const flagsOf = async (as: TestUser, id: number): Promise<string[]> => {
  const body = assertOk(await getMessages(t, as, { anchor: id, num_before: 0, num_after: 0 }));
  assert.equal(body.messages[0]?.id, id);
  return body.messages[0].flags;
};
const isRead = async (as: TestUser, id: number) => (await flagsOf(as, id)).includes('read');

/** A queue of message events, registered over the API; `take` answers what arrived since. */
async function messageQueue(as: TestUser) {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as, params: { event_types: ['message'] } }));
  let last = -1;
  return {
    async take(): Promise<Array<Record<string, any>>> {
      const r = assertOk(await t.api('GET', '/api/v1/events', { as, params: { queue_id: reg.queue_id, last_event_id: last, dont_block: true } }));
      const events = r.events.filter((e: any) => e.type === 'message');
      if (r.events.length) last = r.events.at(-1).id;
      return events;
    },
  };
}

test('both routes require authentication', async () => {
  assertUnauthenticated(await mute(null, cordelia.id));
  assertUnauthenticated(await unmute(null, cordelia.id));
});

test('Zulip\'s errors: self, missing, another organization\'s, a bot, twice, not muted', async () => {
  log.clear();
  assertError(await mute(hamlet, hamlet.id), 'Cannot mute self');
  assertError(await mute(hamlet, 999999), 'No such user');
  assertError(await mute(hamlet, acmeOwner.id), 'No such user');
  // Zulip allowed muting bots only from feature level 188 (muted-bots.test.ts).
  if (t.app.ctx.config.featureLevel < 188) {
    assertError(await mute(hamlet, bot.id), 'No such user');
    assertError(await unmute(hamlet, bot.id), 'No such user');
  }
  assertError(await unmute(hamlet, 999999), 'No such user');
  assertError(await unmute(hamlet, acmeOwner.id), 'No such user');
  assertError(await unmute(hamlet, cordelia.id), 'User is not muted');
  assertError(await unmute(hamlet, hamlet.id), 'User is not muted');
  assert.deepEqual(log.events, [], 'no refusal sends anything');

  assertOk(await mute(hamlet, iago.id));
  assertError(await mute(hamlet, iago.id), 'User already muted');
  assertOk(await unmute(hamlet, iago.id));
  assertError(await unmute(hamlet, iago.id), 'User is not muted');
  assert.deepEqual(await mutedUsersOf(hamlet), []);
});

test('muting and unmuting: register\'s muted_users in the order muted, the full list sent to the muter only', async () => {
  const start = Math.floor(Date.now() / 1000);
  log.clear();
  assertOk(await mute(othello, cordelia.id));
  const first = log.one('muted_users');
  assert.deepEqual(first.userIds, [othello.id]);
  const list = first.event.muted_users as Array<{ id: number; timestamp: number }>;
  assert.deepEqual(list.map((m) => m.id), [cordelia.id]);
  assert.ok(list[0]!.timestamp >= start && list[0]!.timestamp <= Math.floor(Date.now() / 1000) + 1);
  assert.deepEqual(first.event, { type: 'muted_users', muted_users: list });

  log.clear();
  assertOk(await mute(othello, iago.id));
  const second = log.one('muted_users').event.muted_users as Array<{ id: number; timestamp: number }>;
  assert.deepEqual(second.map((m) => m.id), [cordelia.id, iago.id]);
  assert.deepEqual(await mutedUsersOf(othello), second);
  assert.deepEqual(await mutedUsersOf(cordelia), [], 'being muted shows nowhere for the muted');

  log.clear();
  assertOk(await unmute(othello, cordelia.id));
  const { event, userIds } = log.one('muted_users');
  assert.deepEqual(userIds, [othello.id]);
  assert.deepEqual(event.muted_users, [second[1]]);
  assert.deepEqual(await mutedUsersOf(othello), [second[1]]);
  assertOk(await unmute(othello, iago.id));
  assert.deepEqual(await mutedUsersOf(othello), []);
});

test('a deactivated user can be muted and unmuted', async () => {
  const gone = await t.createUser({ name: 'Gone Soon' });
  assertOk(await t.api('DELETE', `/api/v1/users/${gone.id}`));
  assertOk(await mute(hamlet, gone.id));
  assert.deepEqual((await mutedUsersOf(hamlet)).map((m) => m.id), [gone.id]);
  assertOk(await unmute(hamlet, gone.id));
});

test('muting marks the muted user\'s unread messages read for the muter only, and says so to the muter', async () => {
  const stream = await sendMessage(t, cordelia, { type: 'stream', to: 'general', topic: 'spam', content: 'Spam in stream' });
  const huddle = await sendMessage(t, cordelia, { type: 'private', to: [hamlet.id, othello.id], content: 'Spam in huddle' });
  const toHamlet = await sendMessage(t, cordelia, { type: 'private', to: [hamlet.id], content: 'Spam in a private message' });
  const fromOthello = await sendMessage(t, othello, { type: 'private', to: [hamlet.id], content: 'not from cordelia' });
  const readAlready = await sendMessage(t, cordelia, { type: 'private', to: [hamlet.id], content: 'read before' });
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: hamlet, params: { messages: [readAlready], op: 'add', flag: 'read' } }));
  for (const id of [stream, huddle, toHamlet]) assert.equal(await isRead(hamlet, id), false);

  log.clear();
  assertOk(await mute(hamlet, cordelia.id));
  assert.deepEqual(log.events.map((e) => e.event.type), ['update_message_flags', 'muted_users']);
  const flags = log.one('update_message_flags');
  assert.deepEqual(flags.userIds, [hamlet.id]);
  assert.deepEqual(flags.event, { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [stream, huddle, toHamlet], all: false });
  for (const id of [stream, huddle, toHamlet]) assert.equal(await isRead(hamlet, id), true);
  assert.equal(await isRead(hamlet, fromOthello), false, 'other senders\' messages stay unread');
  for (const id of [stream, huddle]) assert.equal(await isRead(othello, id), false, 'othello did not mute cordelia');

  // Nothing unread left: the mute sends only muted_users.
  assertOk(await unmute(hamlet, cordelia.id));
  log.clear();
  assertOk(await mute(hamlet, cordelia.id));
  assert.deepEqual(log.events.map((e) => e.event.type), ['muted_users']);
  assertOk(await unmute(hamlet, cordelia.id));
});

test('new messages from a muted user arrive read for the muter only: in GET /messages and in the message event', async () => {
  assertOk(await mute(hamlet, cordelia.id));
  const [h, o] = [await messageQueue(hamlet), await messageQueue(othello)];
  const sent = [
    await sendMessage(t, cordelia, { type: 'stream', to: 'general', topic: 'spam', content: 'Spam in stream' }),
    await sendMessage(t, cordelia, { type: 'private', to: [hamlet.id, othello.id], content: 'Spam in huddle' }),
    await sendMessage(t, cordelia, { type: 'private', to: [hamlet.id], content: 'Spam in a private message' }),
  ];
  const unmutedSender = await sendMessage(t, othello, { type: 'stream', to: 'general', topic: 'spam', content: 'othello speaks' });
  for (const id of sent) assert.equal(await isRead(hamlet, id), true);
  assert.equal(await isRead(hamlet, unmutedSender), false);
  for (const id of sent.slice(0, 2)) assert.equal(await isRead(othello, id), false);

  const hamletEvents = await h.take();
  assert.deepEqual(hamletEvents.map((e) => [e.message.id, e.flags.includes('read')]), [...sent.map((id) => [id, true]), [unmutedSender, false]]);
  const othelloEvents = (await o.take()).filter((e) => e.message.sender_id === cordelia.id);
  assert.deepEqual(othelloEvents.map((e) => [e.message.id, e.flags.includes('read')]), [[sent[0], false], [sent[1], false]]);

  // Unmuted, her next message is unread again: the send path's cached mutes were retired.
  assertOk(await unmute(hamlet, cordelia.id));
  const after = await sendMessage(t, cordelia, { type: 'private', to: [hamlet.id], content: 'heard again' });
  assert.equal(await isRead(hamlet, after), false);
});

test('a mute written by another process (straight to the store) reaches the send path through the cache epoch', async () => {
  const first = await sendMessage(t, cordelia, { type: 'private', to: [iago.id], content: 'warm the cache' });
  assert.equal(await isRead(iago, first), false);
  await sql`INSERT INTO muted_user (user_id, muted_user_id, realm_id, date_muted) VALUES (${iago.id}, ${cordelia.id}, ${t.realm.id}, 0)`.execute(t.app.ctx.store.db);
  await untilEpochShows(async () => isRead(iago, await sendMessage(t, cordelia, { type: 'private', to: [iago.id], content: 'muted yet?' })),
    'a message from cordelia to arrive read for iago');
  assertOk(await unmute(iago, cordelia.id));
});

test('zulip-js has no mute call; its generic callEndpoint works for both', async () => {
  const client: any = await zulip({ username: othello.email, apiKey: othello.apiKey, realm: await t.listen() });
  const muted = await client.callEndpoint(`/users/me/muted_users/${iago.id}`, 'POST');
  assert.equal(muted.result, 'success', JSON.stringify(muted));
  assert.deepEqual((await mutedUsersOf(othello)).map((m) => m.id), [iago.id]);
  const again = await client.callEndpoint(`/users/me/muted_users/${iago.id}`, 'POST');
  assert.deepEqual(again, { result: 'error', msg: 'User already muted', code: 'BAD_REQUEST' });
  const unmuted = await client.callEndpoint(`/users/me/muted_users/${iago.id}`, 'DELETE');
  assert.equal(unmuted.result, 'success', JSON.stringify(unmuted));
  assert.deepEqual(await mutedUsersOf(othello), []);
});
