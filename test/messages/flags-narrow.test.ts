import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';

/**
 * POST /messages/flags/narrow (feature level 155; Zulip's update_message_flags_for_narrow):
 * the window GET /messages would answer, flagged, with the counts the app walks a narrow by.
 */
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let log: EventLog;
const ids: Record<string, number> = {};

const send = (as: TestUser, params: Record<string, unknown>) => sendMessage(t, as, params);
const flagNarrow = (as: TestUser | null, params: Record<string, unknown>) =>
  t.api('POST', '/api/v1/messages/flags/narrow', { as, params: { include_anchor: true, op: 'add', flag: 'read', ...params } });
const unreadOf = async (as: TestUser, narrow: unknown[]): Promise<number[]> => {
  const r = assertOk(await t.api('GET', '/api/v1/messages', { as, params: { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: [...narrow, { operator: 'is', operand: 'unread' }] } }));
  return r.messages.map((m: { id: number }) => m.id);
};

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  await createStreams(t, { general: [alice, bob], other: [alice, bob] });
  for (let i = 1; i <= 6; i++) ids[`g${i}`] = await send(alice, { type: 'stream', to: 'general', topic: 'walk', content: `m${i}` });
  ids.o1 = await send(alice, { type: 'stream', to: 'other', topic: 'x', content: 'elsewhere' });
  ids.p1 = await send(alice, { type: 'private', to: [bob.id], content: 'private' });
  log = new EventLog(t);
});
after(() => t.close());
beforeEach(() => log.clear());

const GENERAL = [{ operator: 'channel', operand: 'general' }];

test('marks the window read in ranges: counts, first and last ids, found_oldest and found_newest', async () => {
  // The app's walk: from the oldest, include the anchor first, then exclude it.
  const first = assertOk(await flagNarrow(bob, { anchor: 'oldest', num_before: 0, num_after: 2, narrow: GENERAL }));
  assert.deepEqual(first, {
    result: 'success', msg: '', processed_count: 2, updated_count: 2,
    first_processed_id: ids.g1, last_processed_id: ids.g2, found_oldest: true, found_newest: false,
  });
  assert.deepEqual(await unreadOf(bob, GENERAL), [ids.g3, ids.g4, ids.g5, ids.g6]);
  const ev = log.one('update_message_flags');
  assert.deepEqual(ev.userIds, [bob.id]);
  assert.deepEqual(ev.event, { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [ids.g1, ids.g2], all: false });

  const next = assertOk(await flagNarrow(bob, { anchor: String(ids.g2), include_anchor: false, num_before: 0, num_after: 10, narrow: GENERAL }));
  assert.equal(next.processed_count, 4);
  assert.equal(next.updated_count, 4);
  assert.equal(next.first_processed_id, ids.g3);
  assert.equal(next.last_processed_id, ids.g6);
  assert.equal(next.found_oldest, false);
  assert.equal(next.found_newest, true);
  assert.deepEqual(await unreadOf(bob, GENERAL), []);
  assert.ok((await unreadOf(bob, [])).includes(ids.o1), 'outside the narrow stays unread');

  // Again: processed, but nothing changed; the event lists no message.
  log.clear();
  const again = assertOk(await flagNarrow(bob, { anchor: 'newest', num_before: 100, num_after: 0, narrow: GENERAL }));
  assert.equal(again.processed_count, 6);
  assert.equal(again.updated_count, 0);
  assert.equal(again.found_oldest, true);
  assert.equal(again.found_newest, true);
  assert.deepEqual(log.one('update_message_flags').event.messages, []);
});

test('an empty window: null ids', async () => {
  const r = assertOk(await flagNarrow(bob, { anchor: 'newest', num_before: 0, num_after: 5, narrow: GENERAL, op: 'add', flag: 'starred' }));
  assert.deepEqual(r, { result: 'success', msg: '', processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null, found_oldest: false, found_newest: true });
});

test('remove, starred, and an empty narrow (all messages); other users\' flags untouched', async () => {
  const star = assertOk(await flagNarrow(bob, { anchor: String(ids.p1), num_before: 0, num_after: 0, narrow: [], op: 'add', flag: 'starred' }));
  assert.equal(star.processed_count, 1);
  assert.equal(star.first_processed_id, ids.p1);
  const un = assertOk(await flagNarrow(bob, { anchor: String(ids.p1), num_before: 0, num_after: 0, narrow: [], op: 'remove', flag: 'starred' }));
  assert.equal(un.updated_count, 1);
  const unread = assertOk(await flagNarrow(alice, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: [{ operator: 'dm', operand: [bob.id] }], op: 'remove', flag: 'read' }));
  assert.equal(unread.processed_count, 1);
  assert.deepEqual(await unreadOf(alice, [{ operator: 'dm', operand: [bob.id] }]), [ids.p1]);
  assert.ok((await unreadOf(bob, [])).includes(ids.p1), 'bob\'s own read state is his');
});

test('messages of a public stream the user never received get historical rows, as POST /messages/flags', async () => {
  const r = assertOk(await flagNarrow(carol, { anchor: 'newest', num_before: 2, num_after: 0, narrow: GENERAL, op: 'add', flag: 'starred' }));
  assert.equal(r.processed_count, 2);
  assert.equal(r.updated_count, 2);
  const m = assertOk(await t.api('GET', `/api/v1/messages/${ids.g6}`, { as: carol }));
  assert.deepEqual(m.message.flags, ['read', 'starred', 'historical']);
});

test('num_before + num_after is clamped to 5000, not refused', async () => {
  const r = assertOk(await flagNarrow(bob, { anchor: 'newest', num_before: 100_000, num_after: 100_000, narrow: GENERAL }));
  assert.equal(r.processed_count, 6);
});

test('errors: Zulip\'s strings', async () => {
  assertError(await flagNarrow(bob, { anchor: String(ids.g3), include_anchor: false, num_before: 1, num_after: 1, narrow: GENERAL }), 'The anchor can only be excluded at an end of the range');
  assertError(await flagNarrow(bob, { anchor: 'sideways', num_before: 0, num_after: 1, narrow: GENERAL }), 'Invalid anchor');
  assertError(await flagNarrow(bob, { anchor: 'newest', num_before: -1, num_after: 0, narrow: GENERAL }), 'num_before is too small');
  assertError(await flagNarrow(bob, { anchor: 'newest', num_before: 1, num_after: 0, narrow: GENERAL, op: 'toggle' }), 'Invalid message flag operation: \'toggle\'');
  assertError(await flagNarrow(bob, { anchor: 'newest', num_before: 1, num_after: 0, narrow: GENERAL, flag: 'shiny' }), 'Invalid flag: \'shiny\'');
  assertError(await flagNarrow(bob, { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'nowhere' }] }), 'Invalid narrow operator: unknown stream nowhere', 'BAD_NARROW');
  const missing = await t.api('POST', '/api/v1/messages/flags/narrow', { as: bob, params: { num_before: 0, num_after: 0, narrow: [], op: 'add', flag: 'read' } });
  assertError(missing, "Missing 'anchor' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'anchor' });
});

test('authentication is required', async () => {
  assertUnauthenticated(await flagNarrow(null, { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] }));
});
