import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { assertOk } from '../helpers/assert.js';

/**
 * `read_by_sender` on POST /messages (feature level 236): the sender's own copy is read
 * when it says so; without it, Zulip's default_read_by_sender (read when sent from a
 * client a person types into, unread from an API client). Only the sender's flag moves.
 */
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let log: EventLog;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  await createStreams(t, { general: [alice, bob] });
  log = new EventLog(t);
});
after(() => t.close());

const flagsOf = async (as: TestUser, id: number): Promise<string[]> => assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as })).message.flags;

test('read_by_sender true or false decides the sender\'s copy, whatever the client', async () => {
  for (const [client, readBySender, expected] of [['ZulipPython', true, ['read']], ['website', false, []], ['ZulipFlutter', true, ['read']], ['ZulipFlutter', false, []]] as const) {
    log.clear();
    const id = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'rbs', content: `${client} ${readBySender}`, client, read_by_sender: readBySender });
    assert.deepEqual(await flagsOf(alice, id), expected, `${client} read_by_sender=${readBySender}`);
    assert.deepEqual(await flagsOf(bob, id), [], 'recipients keep it unread');
    // The sender's message event carries the same flags.
    const ev = log.one('message');
    const byUser = ev.event.flags_by_user as Record<number, string[]>;
    assert.deepEqual(byUser[alice.id], expected);
    assert.deepEqual(byUser[bob.id], []);
  }
});

test('without read_by_sender: read from a person\'s client, unread from an API client', async () => {
  const fromApp = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'typed', client: 'website' });
  assert.deepEqual(await flagsOf(alice, fromApp), ['read']);
  const fromScript = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'scripted', client: 'ZulipPython' });
  assert.deepEqual(await flagsOf(alice, fromScript), []);
});

test('the sender\'s unread count follows (GET /messages is:unread)', async () => {
  const id = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'rbs', content: 'left unread', client: 'website', read_by_sender: false });
  const r = assertOk(await t.api('GET', '/api/v1/messages', { as: alice, params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'unread' }] } }));
  assert.ok(r.messages.some((m: { id: number }) => m.id === id));
});
