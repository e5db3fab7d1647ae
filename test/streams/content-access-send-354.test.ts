import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { subscribe } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';

// Level 354 (Zulip 10's access_stream_for_send_message): the members of a private channel's
// can_add_subscribers_group / can_subscribe_group may send to it, and say they are typing in
// it, without subscribing, when its history is shared with subscribers. Channel
// administrators without those groups, outsiders and guests (in every group) may not; nor
// the group members with protected history, nor at level 277.
const anon = (...users: TestUser[]) => ({ direct_members: users.map((u) => u.id), direct_subgroups: [] });

interface World {
  t: TestApp; log: EventLog;
  admin: TestUser; subscriber: TestUser; adder: TestUser; joiner: TestUser; chanAdmin: TestUser; outsider: TestUser; guest: TestUser;
  id: number;
}

async function world(featureLevel: number, historyPublic = true): Promise<World> {
  const t = await testApp({ featureLevel });
  const log = new EventLog(t);
  const admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const subscriber = await t.createUser({ name: 'Sue Subscriber' });
  const adder = await t.createUser({ name: 'Al Adder' });
  const joiner = await t.createUser({ name: 'Jo Joiner' });
  const chanAdmin = await t.createUser({ name: 'Cha Admin' });
  const outsider = await t.createUser({ name: 'Otto Outsider' });
  const guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  const id = await subscribe(t, subscriber, 'secret', { invite_only: true, history_public_to_subscribers: historyPublic });
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: {
    can_add_subscribers_group: JSON.stringify(anon(adder, guest)),
    can_subscribe_group: JSON.stringify(anon(joiner, guest)),
    can_administer_channel_group: JSON.stringify(anon(chanAdmin, guest)),
  } }));
  return { t, log, admin, subscriber, adder, joiner, chanAdmin, outsider, guest, id };
}

let w: World, old: World, protectedHistory: World;
before(async () => {
  w = await world(371);
  old = await world(277);
  protectedHistory = await world(371, false);
});
after(async () => { await w.t.close(); await old.t.close(); await protectedHistory.t.close(); });

const send = (x: World, as: TestUser, to: number | string = x.id) =>
  x.t.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to, topic: 'plans', content: `from ${as.email}` } });
const typing = (x: World, as: TestUser) =>
  x.t.api('POST', '/api/v1/typing', { as, params: { type: 'stream', stream_id: x.id, topic: 'plans', op: 'start' } });

test('354: content-access group members send to a private channel with shared history without subscribing', async () => {
  for (const u of [w.adder, w.joiner]) {
    w.log.clear();
    const id = assertOk(await send(w, u)).id;
    assertOk(await send(w, u, 'secret'));
    // The message reaches the subscribers and the sender (who is not subscribed), nobody else.
    const ev = w.log.one('message', undefined, (e) => (e.event as { message?: { id: number } }).message?.id === id);
    assert.deepEqual(new Set(ev.userIds), new Set([w.subscriber.id, u.id]));
    assertOk(await typing(w, u));
  }
});

test('354: metadata access alone, outsiders and guests in the groups still may not send', async () => {
  for (const u of [w.chanAdmin, w.outsider, w.guest]) {
    assertError(await send(w, u), `Stream with ID '${w.id}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: w.id });
    assertError(await send(w, u, 'secret'), "Stream 'secret' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'secret' });
    assertError(await typing(w, u), 'Invalid stream id');
  }
});

test('354: protected history, and level 277, keep the group members out', async () => {
  for (const x of [protectedHistory, old]) {
    for (const u of [x.adder, x.joiner]) {
      assertError(await send(x, u), `Stream with ID '${x.id}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: x.id });
      // With protected history they reach the stream (content access) but may not post to it.
      assertError(await typing(x, u), x === old ? 'Invalid stream id' : "Not authorized to send to stream 'secret'");
    }
  }
});

const editTyping = (x: World, as: TestUser, id: number) => x.t.api('POST', `/api/v1/messages/${id}/typing`, { as, params: { op: 'start' } });
const history = (x: World, as: TestUser, id: number) => x.t.api('GET', `/api/v1/messages/${id}/history`, { as });
const edit = (x: World, as: TestUser, id: number, content: string) => x.t.api('PATCH', `/api/v1/messages/${id}`, { as, params: { content } });

test('354: content-access group members edit their own messages, type edits and read edit history without subscribing', async () => {
  const theirs = assertOk(await send(w, w.subscriber)).id;
  assertOk(await edit(w, w.subscriber, theirs, 'edited by the subscriber'));
  for (const u of [w.adder, w.joiner]) {
    const own = assertOk(await send(w, u)).id;
    w.log.clear();
    assertOk(await edit(w, u, own, `edited by ${u.email}`));
    const ev = w.log.one('update_message');
    assert.ok(ev.userIds.includes(w.subscriber.id) && !ev.userIds.includes(w.outsider.id) && !ev.userIds.includes(w.chanAdmin.id));
    const versions = assertOk(await history(w, u, own)).message_history as Array<{ content: string }>;
    assert.equal(versions.at(-1)!.content, `edited by ${u.email}`);
    assert.equal(assertOk(await history(w, u, theirs)).message_history.length, 2);
    // Someone else's message: readable, not theirs to edit (Zulip's content-edit rule).
    assertError(await edit(w, u, theirs, 'not mine'), "You don't have permission to edit this message");
    w.log.clear();
    assertOk(await editTyping(w, u, own));
    const typing = w.log.one('typing_edit_message');
    assert.ok(!typing.userIds.includes(w.outsider.id) && !typing.userIds.includes(w.guest.id));
  }
});

test('354: outsiders, metadata-only users and guests in the groups get nothing from edits, edit typing or history', async () => {
  const theirs = assertOk(await send(w, w.subscriber)).id;
  for (const u of [w.chanAdmin, w.outsider, w.guest]) {
    assertError(await history(w, u, theirs), 'Invalid message(s)');
    assertError(await editTyping(w, u, theirs), 'Invalid message(s)');
    assertError(await edit(w, u, theirs, 'mine now'), 'Invalid message(s)');
  }
  // At 277 the group members reach none of it.
  const oldMsg = assertOk(await send(old, old.subscriber)).id;
  assertError(await history(old, old.adder, oldMsg), 'Invalid message(s)');
  assertError(await editTyping(old, old.adder, oldMsg), 'Invalid message(s)');
});
