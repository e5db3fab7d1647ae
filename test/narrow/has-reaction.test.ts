import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { matchesNarrow } from '../../src/narrow/match.js';

/** has:reaction (level 249): messages anyone reacted to, negation too; the event matcher agrees (a new message has none). */
let t: TestApp;
let alice: TestUser, bob: TestUser;
let lobby: number;
before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  lobby = (await createStreams(t, { lobby: [alice, bob] })).lobby.id;
});
after(() => t.close());

const send = async (content: string) => assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: String(lobby), topic: 'r', content } })).id as number;
const ids = async (narrow: unknown[]) => (assertOk(await t.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify(narrow) } }))
  .messages as Array<{ id: number }>).map((m) => m.id);

test('has:reaction finds the messages with a reaction, -has:reaction the others; a removed reaction no longer counts', async () => {
  const [a, b, c] = [await send('one'), await send('two'), await send('three')];
  assertOk(await t.api('POST', `/api/v1/messages/${a}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
  assertOk(await t.api('POST', `/api/v1/messages/${c}/reactions`, { as: alice, params: { emoji_name: 'heart' } }));
  assertOk(await t.api('POST', `/api/v1/messages/${c}/reactions`, { as: bob, params: { emoji_name: 'heart' } }));
  assert.deepEqual(await ids([{ operator: 'stream', operand: lobby }, { operator: 'has', operand: 'reaction' }]), [a, c]);
  assert.deepEqual(await ids([{ operator: 'stream', operand: lobby }, { operator: 'has', operand: 'reaction', negated: true }]), [b]);
  assertOk(await t.api('DELETE', `/api/v1/messages/${a}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
  assert.deepEqual(await ids([{ operator: 'stream', operand: lobby }, { operator: 'has', operand: 'reaction' }]), [c]);
  assertError(await t.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'has', operand: 'reactions' }]) } }),
    "Invalid narrow operator: unknown 'has' operand reactions", 'BAD_NARROW');
});

test('the event matcher: has:reaction by the message\'s reactions', () => {
  const base = { id: 1, sender_id: 1, stream_id: 1, topic: 't', pm_user_ids: [], content: 'x', has_link: false, has_image: false, has_attachment: false };
  const term = [{ op: 'has' as const, what: 'reaction' as const, negated: false }];
  assert.equal(matchesNarrow(term, base, 0), false);
  assert.equal(matchesNarrow(term, { ...base, has_reaction: true }, 0), true);
  assert.equal(matchesNarrow([{ ...term[0]!, negated: true }], base, 0), true);
});
