import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, createAcme, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';

// Small changes of Zulip 7-9 at feature level 277: bots can be muted (188), deleting an
// unknown custom emoji is a 404 (190), reactions' own error codes (193), and
// GET /users/{user_id}/status (262).
let t: TestApp;
let alice: TestUser, bob: TestUser, bot: TestUser, gone: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  bot = await t.createBot(alice, { fullName: 'Muted Bot', shortName: 'mutedbot' });
  gone = await t.createUser({ name: 'Gone Away' });
  assertOk(await t.api('POST', '/api/v1/users/me/status', { as: gone, params: { status_text: 'bye' } }));
  assertOk(await t.api('DELETE', `/api/v1/users/${gone.id}`));
  ({ owner: acmeOwner } = await createAcme(t));
  await createStreams(t, { general: [alice, bob] });
});
after(() => t.close());

test('188: a bot can be muted and unmuted; still not oneself or another organization\'s user', async () => {
  assertOk(await t.api('POST', `/api/v1/users/me/muted_users/${bot.id}`, { as: bob }));
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['muted_users'] } }));
  assert.deepEqual(reg.muted_users.map((m: { id: number }) => m.id), [bot.id]);
  assertError(await t.api('POST', `/api/v1/users/me/muted_users/${bot.id}`, { as: bob }), 'User already muted');
  assertOk(await t.api('DELETE', `/api/v1/users/me/muted_users/${bot.id}`, { as: bob }));
  assertError(await t.api('POST', `/api/v1/users/me/muted_users/${acmeOwner.id}`, { as: bob }), 'No such user');
  assertError(await t.api('POST', `/api/v1/users/me/muted_users/${bob.id}`, { as: bob }), 'Cannot mute self');
});

test('190: DELETE /realm/emoji/{name} of an unknown emoji is a 404 with Zulip\'s message', async () => {
  assertError(await t.api('DELETE', '/api/v1/realm/emoji/no_such_emoji', { as: t.owner }), "Emoji 'no_such_emoji' does not exist", 'BAD_REQUEST', 404);
});

test('193: REACTION_ALREADY_EXISTS and REACTION_DOES_NOT_EXIST', async () => {
  const id = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'x', content: 'react to me' });
  const react = () => t.api('POST', `/api/v1/messages/${id}/reactions`, { as: bob, params: { emoji_name: 'tada' } });
  assertOk(await react());
  assertError(await react(), 'Reaction already exists.', 'REACTION_ALREADY_EXISTS');
  const unreact = () => t.api('DELETE', `/api/v1/messages/${id}/reactions`, { as: bob, params: { emoji_name: 'tada' } });
  assertOk(await unreact());
  assertError(await unreact(), "Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST');
});

test('262: GET /users/{user_id}/status answers the status, {} when unset; bots, the deactivated and strangers refused', async () => {
  const get = (id: number, as: TestUser | null = bob) => t.api('GET', `/api/v1/users/${id}/status`, { as });
  assert.deepEqual(assertOk(await get(alice.id)), { result: 'success', msg: '', status: {} });
  assertOk(await t.api('POST', '/api/v1/users/me/status', { as: alice, params: { status_text: 'In a meeting', emoji_name: 'calendar' } }));
  const { status } = assertOk(await get(alice.id));
  assert.deepEqual(status, { status_text: 'In a meeting', emoji_name: 'calendar', emoji_code: '1f4c6', reaction_type: 'unicode_emoji' });
  assert.deepEqual(assertOk(await get(alice.id, alice)).status, status);
  assertError(await get(bot.id), 'No such user');
  assertError(await get(gone.id), 'User is deactivated');
  assertError(await get(acmeOwner.id), 'No such user');
  assertError(await get(999999), 'No such user');
  assertUnauthenticated(await get(alice.id, null));
});
