import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { getMessages, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import type { StreamRow } from '../../src/store/rows.js';

// PATCH /messages/{id} for content: who may, within what limits, the edit history it
// leaves, and the flags it recomputes for every recipient.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let kitchen: StreamRow;
let log: EventLog;

// Level 284 dropped prev_rendered_content_version from edit_history and update_message.
const VERSION = FEATURE_LEVEL >= 284 ? [] : ['prev_rendered_content_version'];

const edit = (as: TestUser | null, id: number, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/messages/${id}`, { as, params });
const send = (as: TestUser, content: string, topic = 'soup') => sendMessage(t, as, { type: 'stream', to: 'kitchen', topic, content });
const fetchOne = async (as: TestUser, id: number) => assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as })).message as Record<string, any>;
const flagsOf = async (as: TestUser, id: number) => (await fetchOne(as, id)).flags as string[];

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, guest } = await t.createUsers({
    alice: { name: 'Alice Edit' }, bob: { name: 'Bob Edit' }, carol: { name: 'Carol Edit' }, guest: { name: 'Gus Guest', role: 600 },
  }));
  ({ kitchen } = await createStreams(t, { kitchen: [alice, bob, carol, guest] }));
  log = new EventLog(t);
});
after(() => t.close());

test('the sender edits content: re-rendered, history recorded newest first, event to every recipient with their flags', async () => {
  const id = await send(alice, 'first **draft**');
  log.clear();
  assertOk(await edit(alice, id, { content: 'second **take**' }));
  const m = await fetchOne(bob, id);
  assert.equal(m.content, '<p>second <strong>take</strong></p>');
  assert.equal(typeof m.last_edit_timestamp, 'number');
  assert.equal(m.edit_history.length, 1);
  const [h] = m.edit_history;
  assert.deepEqual(Object.keys(h).sort(), ['prev_content', 'prev_rendered_content', ...VERSION, 'timestamp', 'user_id']);
  assert.equal(h.prev_content, 'first **draft**');
  assert.equal(h.prev_rendered_content, '<p>first <strong>draft</strong></p>');
  assert.equal(h.user_id, alice.id);

  const env = log.one('update_message');
  assert.deepEqual(new Set(env.userIds), new Set([alice.id, bob.id, carol.id, guest.id, t.owner.id].filter((u) => env.userIds.includes(u))));
  for (const u of [alice, bob, carol, guest]) assert.ok(env.userIds.includes(u.id), `user ${u.id} told`);
  const e = env.event as Record<string, any>;
  assert.equal(e.message_id, id);
  assert.deepEqual(e.message_ids, [id]);
  assert.equal(e.user_id, alice.id);
  assert.equal(e.rendering_only, false);
  assert.equal(e.stream_id, kitchen.id);
  assert.equal(e.orig_content, 'first **draft**');
  assert.equal(e.content, 'second **take**');
  assert.equal(e.rendered_content, '<p>second <strong>take</strong></p>');
  assert.equal(e.propagate_mode, undefined, 'a content edit carries no propagate_mode');

  // A second edit goes first in the history.
  assertOk(await edit(alice, id, { content: 'third' }));
  const again = await fetchOne(bob, id);
  assert.deepEqual(again.edit_history.map((x: any) => x.prev_content), ['second **take**', 'first **draft**']);
});

test('mentions and alert words are recomputed when an edit adds or removes them', async () => {
  assertOk(await t.api('POST', '/api/v1/users/me/alert_words', { as: carol, params: { alert_words: ['pineapple'] } }));
  const id = await send(alice, 'plain words');
  assert.deepEqual(await flagsOf(bob, id), []);
  assertOk(await edit(alice, id, { content: 'hey @**Bob Edit** about pineapple' }));
  assert.deepEqual(await flagsOf(bob, id), ['mentioned']);
  assert.deepEqual(await flagsOf(carol, id), ['has_alert_word']);
  assertOk(await edit(alice, id, { content: '@**all** nothing else' }));
  // Level 224 names the stream wildcard flag stream_wildcard_mentioned, the deprecated wildcard_mentioned kept beside it.
  const wildcard = FEATURE_LEVEL >= 224 ? ['stream_wildcard_mentioned', 'wildcard_mentioned'] : ['wildcard_mentioned'];
  assert.deepEqual(await flagsOf(bob, id), wildcard);
  assert.deepEqual(await flagsOf(carol, id), wildcard);
  assertOk(await edit(alice, id, { content: 'quiet again' }));
  assert.deepEqual(await flagsOf(bob, id), []);
  assert.deepEqual(await flagsOf(carol, id), []);
  // The event tells each recipient their own new flags.
  log.clear();
  assertOk(await edit(alice, id, { content: 'ping @**Bob Edit**' }));
  const reg = await t.api('GET', `/api/v1/messages/${id}`, { as: bob });
  assert.deepEqual(reg.body.message.flags, ['mentioned']);
  const env = log.one('update_message');
  assert.deepEqual((env.event as any).flags_by_user[bob.id], ['mentioned']);
  assert.deepEqual((env.event as any).flags_by_user[carol.id], []);
});

test('unread state survives an edit: a read message stays read', async () => {
  const id = await send(alice, 'to be read');
  await t.app.ctx.store.db.updateTable('user_message').set({ flags: 1 }).where('message_id', '=', id).where('user_id', '=', bob.id).execute();
  assertOk(await edit(alice, id, { content: 'edited after reading @**Bob Edit**' }));
  assert.deepEqual(await flagsOf(bob, id), ['read', 'mentioned']);
});

test('content rules: only the sender, within the time limit, with editing allowed; empty content becomes (deleted)', async () => {
  const id = await send(alice, 'mine');
  assertError(await edit(bob, id, { content: 'not yours' }), "You don't have permission to edit this message");
  assertError(await edit(t.owner, id, { content: 'not even an owner' }), "You don't have permission to edit this message");
  assertOk(await edit(alice, id, { content: '   ' }));
  assert.equal((await fetchOne(alice, id)).content, '<p>(deleted)</p>');
  assertError(await edit(alice, id, { content: 'x'.repeat(10_001) }).then(async (r) => {
    // Too long is cut with a marker, as a send is: not an error.
    assertOk(r);
    return edit(alice, id, {});
  }), 'Nothing to change');
  const body = (await t.api('GET', `/api/v1/messages/${id}`, { as: alice, params: { apply_markdown: false } })).body;
  assert.equal(Buffer.byteLength(body.raw_content), 10_000);
  assert.ok(body.raw_content.endsWith('[message truncated]'));

  await t.app.ctx.store.db.updateTable('message').set({ date_sent: Math.floor(Date.now() / 1000) - 700 }).where('id', '=', id).execute();
  assertError(await edit(alice, id, { content: 'too late' }), 'The time limit for editing this message has passed');
  await setRealmSettings(t, { message_content_edit_limit_seconds: null });
  assertOk(await edit(alice, id, { content: 'no limit now' }));
  await setRealmSettings(t, { allow_message_editing: false });
  assertError(await edit(alice, id, { content: 'editing off' }), 'Your organization has turned off message editing');
  await setRealmSettings(t, { allow_message_editing: true, message_content_edit_limit_seconds: 600 });
});

test('request errors: nothing to change, bad propagate mode, content with a stream move, private-message topics', async () => {
  const id = await send(alice, 'x');
  assertError(await edit(alice, id, {}), 'Nothing to change');
  assertError(await edit(alice, id, { topic: 'soup' }), 'Nothing to change');
  assertError(await edit(alice, id, { content: 'y', propagate_mode: 'change_all' }), 'Invalid propagate_mode without topic edit');
  assertError(await edit(alice, id, { topic: 'other', propagate_mode: 'sideways' }), 'Invalid propagate_mode');
  // Level 334: a message may be moved to the empty topic.
  if (FEATURE_LEVEL < 334) assertError(await edit(alice, id, { topic: '   ' }), "Topic can't be empty!");
  assertError(await edit(alice, id, { topic: 'bad\u0000topic' }), 'Invalid character in topic, at position 4!');
  const { pantry } = await createStreams(t, { pantry: [alice] });
  assertError(await edit(alice, id, { stream_id: pantry.id, content: 'both' }), 'Cannot change message content while changing stream');
  const pm = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'psst' });
  assertError(await edit(alice, pm, { topic: 'no' }), 'Private messages cannot have topics.');
  assertError(await edit(alice, pm, { stream_id: pantry.id }), 'Private messages cannot be moved to streams.');
  assertOk(await edit(alice, pm, { content: 'psst, edited' }));
  assert.equal((await fetchOne(bob, pm)).content, '<p>psst, edited</p>');
});

test('privacy and authentication: no edit or history read of a message the user cannot see', async () => {
  const pm = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'between us' });
  assertError(await edit(carol, pm, { content: 'snoop' }), 'Invalid message(s)');
  assertError(await t.api('GET', `/api/v1/messages/${pm}/history`, { as: carol }), 'Invalid message(s)');
  await createStreams(t, { secret: { subscribers: [alice], inviteOnly: true, historyPublicToSubscribers: false } });
  const hidden = await sendMessage(t, alice, { type: 'stream', to: 'secret', topic: 't', content: 'hush' });
  assertError(await edit(t.owner, hidden, { topic: 'moved' }), 'Invalid message(s)');
  assertError(await edit(carol, 999_999, { content: 'x' }), 'Invalid message(s)');
  assertUnauthenticated(await edit(null, pm, { content: 'anon' }));
  assertUnauthenticated(await t.api('GET', `/api/v1/messages/${pm}/history`, { as: null }));
});

test('GET /messages/{id}/history: every version oldest first, with what each edit changed', async () => {
  const id = await send(alice, 'v1', 'history');
  assertOk(await edit(alice, id, { content: 'v2' }));
  assertOk(await edit(alice, id, { topic: 'history two' }));
  assertOk(await edit(alice, id, { content: 'v3', topic: 'history three' }));
  const h = assertOk(await t.api('GET', `/api/v1/messages/${id}/history`, { as: bob })).message_history as Array<Record<string, any>>;
  assert.equal(h.length, 4);
  assert.deepEqual(h.map((x) => [x.content, x.topic]), [['v1', 'history'], ['v2', 'history'], ['v2', 'history two'], ['v3', 'history three']]);
  assert.deepEqual(Object.keys(h[0]!).sort(), ['content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.equal(h[0]!.user_id, alice.id);
  assert.equal(h[1]!.prev_content, 'v1');
  assert.equal(h[1]!.prev_rendered_content, '<p>v1</p>');
  assert.equal(h[2]!.prev_topic, 'history');
  assert.equal(h[2]!.prev_content, undefined);
  assert.equal(h[3]!.prev_topic, 'history two');
  assert.equal(h[3]!.prev_content, 'v2');
  // The message's own edit_history, newest first, in level-118 names.
  const m = await fetchOne(bob, id);
  assert.deepEqual(m.edit_history.map((x: any) => Object.keys(x).sort()), [
    ['prev_content', 'prev_rendered_content', ...VERSION, 'prev_topic', 'timestamp', 'topic', 'user_id'],
    ['prev_topic', 'timestamp', 'topic', 'user_id'],
    ['prev_content', 'prev_rendered_content', ...VERSION, 'timestamp', 'user_id'],
  ]);
  assert.equal(m.edit_history[0].topic, 'history three');
  // A never-edited message has neither field.
  const fresh = await fetchOne(bob, await send(alice, 'untouched'));
  assert.equal('edit_history' in fresh, false);
  assert.equal('last_edit_timestamp' in fresh, false);
  // Hidden by the organization: absent from messages, and the history endpoint refuses.
  await setRealmSettings(t, { allow_edit_history: false });
  assert.equal('edit_history' in (await fetchOne(bob, id)), false);
  assert.equal(typeof (await fetchOne(bob, id)).last_edit_timestamp, 'number');
  assertError(await t.api('GET', `/api/v1/messages/${id}/history`, { as: bob }), 'Message edit history is disabled in this organization');
  await setRealmSettings(t, { allow_edit_history: true });
  const list = assertOk(await getMessages(t, bob, { anchor: id, num_before: 0, num_after: 0 })).messages;
  assert.equal(list[0].edit_history.length, 3);
});
