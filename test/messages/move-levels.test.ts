import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { getMessages, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import type { StreamRow } from '../../src/store/rows.js';

// Moving messages as feature levels 152–172 changed it, checked against level 122 (the spec):
// 152 notices for topic moves and send_notification_to_old_thread's default; 159 "Nobody"
// (6) for the two move policies; 162 the move time limits as organization settings
// (register, PATCH /realm, realm events, enforcement); 172 "(no topic)" messages lose their
// exemption and MOVE_MESSAGES_TIME_LIMIT_EXCEEDED.
interface World { t: TestApp; alice: TestUser; bob: TestUser; mod: TestUser; admin: TestUser; lounge: StreamRow; garden: StreamRow }
let now: World;
let spec: World;
let log: EventLog;

async function world(featureLevel: number): Promise<World> {
  const t = await testApp({ featureLevel });
  const { alice, bob, mod, admin } = await t.createUsers({
    alice: { name: 'Alice Mover' }, bob: { name: 'Bob Mover' }, mod: { name: 'Mo Moderator', role: 300 }, admin: { name: 'Ada Admin', role: 200 },
  });
  const { lounge, garden } = await createStreams(t, { lounge: [alice, bob, mod, admin], garden: [alice, bob, mod, admin] });
  return { t, alice, bob, mod, admin, lounge, garden };
}

before(async () => {
  now = await world(277);
  spec = await world(122);
  log = new EventLog(now.t);
});
after(async () => {
  await now.t.close();
  await spec.t.close();
});

const edit = (w: World, as: TestUser, id: number, params: Record<string, unknown>) => w.t.api('PATCH', `/api/v1/messages/${id}`, { as, params });
const post = (w: World, as: TestUser, stream: string, topic: string) => sendMessage(w.t, as, { type: 'stream', to: stream, topic, content: 'hi' });
const noticesIn = async (w: World, stream: string, topic: string) => (assertOk(await getMessages(w.t, w.admin, {
  anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify([['stream', stream], ['topic', topic]]),
})).messages as Array<Record<string, any>>).filter((m) => m.sender_full_name === 'Notification Bot').map((m) => m.content as string);
const age = async (w: World, id: number, seconds: number) => {
  await w.t.app.ctx.store.db.updateTable('message').set({ date_sent: Math.floor(Date.now() / 1000) - seconds }).where('id', '=', id).execute();
};
const DAY = 86_400;

test('152: a topic rename leaves a notice in the new thread by default, in the old one only when asked; 122 leaves none', async () => {
  const a = await post(now, now.alice, 'lounge', 'plans');
  assertOk(await edit(now, now.alice, a, { topic: 'new plans' }));
  const there = await noticesIn(now, 'lounge', 'new plans');
  assert.equal(there.length, 1);
  assert.match(there[0]!, /^<p>This topic was moved here from <a class="stream-topic"[^>]*>#lounge &gt; plans<\/a> by <span class="user-mention silent" data-user-id="\d+">Alice Mover<\/span>\.<\/p>$/);
  assert.deepEqual(await noticesIn(now, 'lounge', 'plans'), [], 'send_notification_to_old_thread defaults to false');

  const b = await post(now, now.alice, 'lounge', 'both');
  await post(now, now.alice, 'lounge', 'both');
  assertOk(await edit(now, now.alice, b, { topic: 'both 2', send_notification_to_old_thread: true }));
  assert.match((await noticesIn(now, 'lounge', 'both'))[0]!, /^<p>A message was moved from this topic to <a class="stream-topic"[^>]*>#lounge &gt; both 2<\/a> by /);
  assert.match((await noticesIn(now, 'lounge', 'both 2'))[0]!, /^<p>A message was moved here from /);

  const c = await post(now, now.alice, 'lounge', 'hush');
  assertOk(await edit(now, now.alice, c, { topic: 'hushed', send_notification_to_new_thread: false }));
  assert.deepEqual(await noticesIn(now, 'lounge', 'hushed'), []);

  // Resolving alone is announced by its own notice only; resolving and renaming gets both.
  const d = await post(now, now.alice, 'lounge', 'bug');
  assertOk(await edit(now, now.alice, d, { topic: '✔ bug', propagate_mode: 'change_all' }));
  const resolved = await noticesIn(now, 'lounge', '✔ bug');
  assert.equal(resolved.length, 1);
  assert.match(resolved[0]!, /has marked this topic as resolved\.<\/p>$/);
  const e = await post(now, now.alice, 'lounge', 'bug two');
  assertOk(await edit(now, now.alice, e, { topic: '✔ bug 2', propagate_mode: 'change_all' }));
  const renamed = await noticesIn(now, 'lounge', '✔ bug 2');
  assert.equal(renamed.length, 2);
  assert.match(renamed[1]!, /This topic was moved here from/);

  // A stream move at 277 leaves only the new thread's notice unless asked.
  const f = await post(now, now.admin, 'lounge', 'away');
  assertOk(await edit(now, now.admin, f, { stream_id: now.garden.id }));
  assert.equal((await noticesIn(now, 'garden', 'away')).length, 1);
  assert.deepEqual(await noticesIn(now, 'lounge', 'away'), []);

  // Level 122: a rename leaves nothing; a stream move leaves breadcrumbs in both threads by default.
  const g = await post(spec, spec.alice, 'lounge', 'plans');
  assertOk(await edit(spec, spec.alice, g, { topic: 'new plans', send_notification_to_old_thread: true }));
  assert.deepEqual(await noticesIn(spec, 'lounge', 'new plans'), []);
  assert.deepEqual(await noticesIn(spec, 'lounge', 'plans'), []);
  const h = await post(spec, spec.admin, 'lounge', 'away');
  assertOk(await edit(spec, spec.admin, h, { stream_id: spec.garden.id }));
  assert.equal((await noticesIn(spec, 'garden', 'away')).length, 1);
  assert.equal((await noticesIn(spec, 'lounge', 'away')).length, 1);
});

test('159: Nobody (6) for edit_topic_policy and move_messages_between_streams_policy stops even administrators', async () => {
  for (const w of [now, spec]) {
    assertOk(await w.t.api('PATCH', '/api/v1/realm', { as: w.t.owner, params: { edit_topic_policy: 6, move_messages_between_streams_policy: 6 } }));
    const id = await post(w, w.alice, 'lounge', 'frozen');
    assertError(await edit(w, w.admin, id, { topic: 'thawed' }), "You don't have permission to edit this message");
    assertError(await edit(w, w.alice, id, { topic: 'thawed' }), "You don't have permission to edit this message");
    assertError(await edit(w, w.admin, id, { stream_id: w.garden.id }), "You don't have permission to move this message");
    // Content edits are not topic edits.
    assertOk(await edit(w, w.alice, id, { content: 'still mine' }));
    assertError(await w.t.api('PATCH', '/api/v1/realm', { as: w.t.owner, params: { move_messages_between_streams_policy: 5 } }), 'Invalid move_messages_between_streams_policy');
    assertError(await w.t.api('PATCH', '/api/v1/realm', { as: w.t.owner, params: { edit_topic_policy: 7 } }), 'Invalid edit_topic_policy');
    assertOk(await w.t.api('PATCH', '/api/v1/realm', { as: w.t.owner, params: { edit_topic_policy: 5, move_messages_between_streams_policy: 1 } }));
  }
});

test('162: the move limits are settings: register from 162, PATCH /realm ("unlimited" is null), a realm event each', async () => {
  const reg = assertOk(await now.t.api('POST', '/api/v1/register', { as: now.alice, params: { fetch_event_types: ['realm'] } }));
  assert.equal(reg.realm_move_messages_within_stream_limit_seconds, 604_800);
  assert.equal(reg.realm_move_messages_between_streams_limit_seconds, 604_800);
  const old = assertOk(await spec.t.api('POST', '/api/v1/register', { as: spec.alice, params: { fetch_event_types: ['realm'] } }));
  assert.equal('realm_move_messages_within_stream_limit_seconds' in old, false);
  assert.equal('realm_move_messages_between_streams_limit_seconds' in old, false);

  log.clear();
  assert.deepEqual(assertOk(await now.t.api('PATCH', '/api/v1/realm', { as: now.t.owner, params: {
    move_messages_within_stream_limit_seconds: 'unlimited', move_messages_between_streams_limit_seconds: 3600,
  } })), { result: 'success', msg: '', move_messages_within_stream_limit_seconds: null, move_messages_between_streams_limit_seconds: 3600 });
  const evs = log.find('realm', 'update').map((e) => e.event);
  assert.deepEqual(evs, [
    { type: 'realm', op: 'update', property: 'move_messages_within_stream_limit_seconds', value: null },
    { type: 'realm', op: 'update', property: 'move_messages_between_streams_limit_seconds', value: 3600 },
  ]);
  assert.ok(log.find('realm', 'update')[0]!.userIds.includes(now.alice.id));
  const after = assertOk(await now.t.api('POST', '/api/v1/register', { as: now.alice, params: { fetch_event_types: ['realm'] } }));
  assert.equal(after.realm_move_messages_within_stream_limit_seconds, null);
  assert.equal(after.realm_move_messages_between_streams_limit_seconds, 3600);
  // JSON-quoted too; errors as Zulip's parse_message_time_limit_setting.
  assertOk(await now.t.api('PATCH', '/api/v1/realm', { as: now.t.owner, params: { move_messages_within_stream_limit_seconds: '"unlimited"' } }));
  assertError(await now.t.api('PATCH', '/api/v1/realm', { as: now.t.owner, params: { move_messages_within_stream_limit_seconds: 0 } }),
    "Bad value for 'move_messages_within_stream_limit_seconds': 0");
  assertError(await now.t.api('PATCH', '/api/v1/realm', { as: now.t.owner, params: { move_messages_between_streams_limit_seconds: 'forever' } }),
    "Bad value for 'move_messages_between_streams_limit_seconds': forever");
  assertError(await now.t.api('PATCH', '/api/v1/realm', { as: now.t.owner, params: { move_messages_between_streams_limit_seconds: '1.5' } }),
    'move_messages_between_streams_limit_seconds is not a string or integer');
  assertError(await now.t.api('PATCH', '/api/v1/realm', { as: now.alice, params: { move_messages_between_streams_limit_seconds: 60 } }),
    'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
});

test('162: enforced for members, not for moderators or administrators; 122 keeps the fixed three days and no stream limit', async () => {
  await setRealmSettings(now.t, { move_messages_between_streams_policy: 1, move_messages_within_stream_limit_seconds: 3600, move_messages_between_streams_limit_seconds: 7200 });
  const id = await post(now, now.alice, 'lounge', 'aging');
  await age(now, id, 3600 + 10);
  assertOk(await edit(now, now.bob, id, { topic: 'aging 2' }));
  await age(now, id, 3600 + 30);
  assertError(await edit(now, now.bob, id, { topic: 'aging 3' }), "The time limit for editing this message's topic has passed.");
  assertOk(await edit(now, now.mod, id, { topic: 'aging 3' }));
  assertOk(await edit(now, now.bob, id, { stream_id: now.garden.id, send_notification_to_new_thread: false }));
  await age(now, id, 7200 + 30);
  assertError(await edit(now, now.bob, id, { stream_id: now.lounge.id }), "The time limit for editing this message's channel has passed");
  assertOk(await edit(now, now.admin, id, { stream_id: now.lounge.id, send_notification_to_new_thread: false }));
  await setRealmSettings(now.t, { move_messages_within_stream_limit_seconds: null, move_messages_between_streams_limit_seconds: null });
  await age(now, id, 400 * DAY);
  assertOk(await edit(now, now.bob, id, { topic: 'ancient' }));
  assertOk(await edit(now, now.bob, id, { stream_id: now.garden.id, send_notification_to_new_thread: false }));

  // Level 122: the settings do not apply; topics for three days, streams at any age.
  await setRealmSettings(spec.t, { move_messages_between_streams_policy: 1, move_messages_within_stream_limit_seconds: 60, move_messages_between_streams_limit_seconds: 60 });
  const old = await post(spec, spec.alice, 'lounge', 'aging');
  await age(spec, old, 2 * DAY);
  assertOk(await edit(spec, spec.bob, old, { topic: 'aging 2' }));
  await age(spec, old, 4 * DAY);
  assertError(await edit(spec, spec.bob, old, { topic: 'aging 3' }), "The time limit for editing this message's topic has passed");
  await age(spec, old, 400 * DAY);
  assertOk(await edit(spec, spec.bob, old, { stream_id: spec.garden.id, send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
});

test('172: "(no topic)" messages follow the topic rules; 122 lets anyone tend them at any age', async () => {
  await setRealmSettings(now.t, { edit_topic_policy: 2, move_messages_within_stream_limit_seconds: 3600 });
  const id = await post(now, now.alice, 'lounge', '');
  assertError(await edit(now, now.bob, id, { topic: 'titled' }), "You don't have permission to edit this message");
  await setRealmSettings(now.t, { edit_topic_policy: 5 });
  await age(now, id, 2 * 3600);
  assertError(await edit(now, now.bob, id, { topic: 'titled' }), "The time limit for editing this message's topic has passed.");
  assertOk(await edit(now, now.admin, id, { topic: 'titled' }));

  await setRealmSettings(spec.t, { edit_topic_policy: 2 });
  const old = await post(spec, spec.alice, 'lounge', '');
  await age(spec, old, 10 * DAY);
  assertOk(await edit(spec, spec.bob, old, { topic: 'titled' }));
  await setRealmSettings(spec.t, { edit_topic_policy: 5 });
});

test('172: a member\'s change_all reaching past the limit is MOVE_MESSAGES_TIME_LIMIT_EXCEEDED; moderators and 122 are not held', async () => {
  await setRealmSettings(now.t, { move_messages_within_stream_limit_seconds: 3600, move_messages_between_streams_limit_seconds: 7200, move_messages_between_streams_policy: 1 });
  const ids = [];
  for (let i = 0; i < 4; i += 1) ids.push(await post(now, now.alice, 'lounge', 'long topic'));
  await age(now, ids[0]!, 3 * 3600);
  await age(now, ids[1]!, 5000);
  const moved = await noticesIn(now, 'lounge', 'renamed');
  assertError(await edit(now, now.bob, ids[3]!, { topic: 'renamed', propagate_mode: 'change_all' }),
    'You only have permission to move the 2/4 most recent messages in this topic.', 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 400,
    { first_message_id_allowed_to_move: ids[2], total_messages_in_topic: 4, total_messages_allowed_to_move: 2 });
  assert.deepEqual(await noticesIn(now, 'lounge', 'renamed'), moved, 'nothing moved');
  // A stream move alone uses the stream limit (two hours): three of the four.
  assertError(await edit(now, now.bob, ids[3]!, { stream_id: now.garden.id, propagate_mode: 'change_all' }),
    'You only have permission to move the 3/4 most recent messages in this topic.', 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 400,
    { first_message_id_allowed_to_move: ids[1], total_messages_in_topic: 4, total_messages_allowed_to_move: 3 });
  // Both: the stricter limit.
  assertError(await edit(now, now.bob, ids[3]!, { stream_id: now.garden.id, topic: 'renamed', propagate_mode: 'change_all' }),
    'You only have permission to move the 2/4 most recent messages in this topic.', 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 400,
    { first_message_id_allowed_to_move: ids[2], total_messages_in_topic: 4, total_messages_allowed_to_move: 2 });
  // change_later is not held to the whole topic.
  assertOk(await edit(now, now.bob, ids[2]!, { topic: 'later part', propagate_mode: 'change_later' }));
  assertOk(await edit(now, now.mod, ids[1]!, { topic: 'renamed', propagate_mode: 'change_all' }));

  await setRealmSettings(spec.t, { move_messages_within_stream_limit_seconds: 3600 });
  const old = [await post(spec, spec.alice, 'lounge', 'long topic'), await post(spec, spec.alice, 'lounge', 'long topic')];
  await age(spec, old[0]!, 2 * DAY);
  assertOk(await edit(spec, spec.bob, old[1]!, { topic: 'renamed', propagate_mode: 'change_all' }));
});
