import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zulip from 'zulip-js';
import { testApp, people, createAcme, ACME_HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

// POST /users/me/status end to end: Zulip 5's rules and error strings in its order, what
// is stored (register's user_status), and the user_status event every active user of the
// organization hears, carrying the fields passed.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, carol: TestUser, bot: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  bot = await t.createBot(alice, { fullName: 'Status Bot', shortName: 'statusbot' });
  // Carol has a status, then leaves: neither register nor events include her any more.
  assertOk(await setStatus(carol, { status_text: 'gone fishing' }));
  assertOk(await t.api('DELETE', `/api/v1/users/${carol.id}`));
  ({ owner: acmeOwner } = await createAcme(t));
});
after(() => t.close());

const setStatus = (as: TestUser | null, params: Record<string, unknown>) => t.api('POST', '/api/v1/users/me/status', { as, params });
const statuses = async (as: TestUser = bob) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['user_status'] } })).user_status as Record<string, unknown>;
const statusOf = async (u: TestUser) => (await statuses())[String(u.id)];

/** Sets the status and answers the one event it sent (asserting there was exactly one). */
async function update(as: TestUser, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  log.clear();
  assertOk(await setStatus(as, params));
  const { event, userIds } = log.one('user_status');
  // Every active user of the organization, bots too; not the deactivated, not another organization's.
  assert.deepEqual(sorted(userIds), sorted([t.owner.id, alice.id, bob.id, bot.id]));
  return event;
}

test('requires authentication; bots are refused as Zulip refuses them', async () => {
  assertUnauthenticated(await setStatus(null, { status_text: 'x' }));
  assertError(await setStatus(bot, { status_text: 'x' }), 'This endpoint does not accept bot requests.');
});

test('setting text, emoji and away, each alone: only what is passed changes, and the event carries just that', async () => {
  assert.deepEqual(await update(alice, { status_text: '  in a meeting ' }), { type: 'user_status', user_id: alice.id, status_text: 'in a meeting' });
  assert.deepEqual(await statusOf(alice), { status_text: 'in a meeting' });

  assert.deepEqual(await update(alice, { emoji_name: 'car' }),
    { type: 'user_status', user_id: alice.id, emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  assert.deepEqual(await statusOf(alice), { status_text: 'in a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });

  assert.deepEqual(await update(alice, { away: true }), { type: 'user_status', user_id: alice.id, away: true });
  assert.deepEqual(await statusOf(alice), { away: true, status_text: 'in a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });

  // `away: false` is sent even though it is the default: Zulip sends whatever was passed.
  assert.deepEqual(await update(alice, { away: false }), { type: 'user_status', user_id: alice.id, away: false });
  assert.deepEqual(await statusOf(alice), { status_text: 'in a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  // Bob's status is his own: nothing of alice's calls touched it.
  assert.equal(await statusOf(bob), undefined);
});

test('an emoji by full description, the extra emoji, and clearing: empty text and empty emoji_name', async () => {
  assert.deepEqual(await update(bob, { emoji_name: 'computer', emoji_code: '1f4bb', reaction_type: 'unicode_emoji', status_text: 'coding' }),
    { type: 'user_status', user_id: bob.id, status_text: 'coding', emoji_name: 'computer', emoji_code: '1f4bb', reaction_type: 'unicode_emoji' });
  // Zulip's older name for the extra-emoji namespace is read too.
  assert.deepEqual(await update(bob, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }),
    { type: 'user_status', user_id: bob.id, emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });
  assert.deepEqual(await statusOf(bob), { status_text: 'coding', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });

  assert.deepEqual(await update(bob, { status_text: '' }), { type: 'user_status', user_id: bob.id, status_text: '' });
  assert.deepEqual(await statusOf(bob), { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });
  // An empty name clears all three emoji fields, whatever code or type came with it.
  assert.deepEqual(await update(bob, { emoji_name: '', emoji_code: '1f4bb' }),
    { type: 'user_status', user_id: bob.id, emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' });
  assert.equal(await statusOf(bob), undefined, 'a status with nothing set leaves register');
});

test('register: keyed by user id string, active users only, each with only what is set', async () => {
  await update(t.owner, { status_text: 'owning', away: true });
  const all = await statuses(alice);
  assert.deepEqual(all, {
    [String(t.owner.id)]: { away: true, status_text: 'owning' },
    [String(alice.id)]: { status_text: 'in a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' },
  });
  assert.ok(!(String(carol.id) in all), 'a deactivated user\'s status is left out');
  // Another organization sees none of these.
  const acme = await t.api('POST', '/api/v1/register', { as: acmeOwner, host: ACME_HOST, params: { fetch_event_types: ['user_status'] } });
  assert.deepEqual(assertOk(acme).user_status, {});
});

test('the 60-character limit counts characters, before stripping, as Zulip 5 does', async () => {
  assertOk(await setStatus(alice, { status_text: '🙂'.repeat(60) }));
  assert.equal((await statusOf(alice) as { status_text: string }).status_text, '🙂'.repeat(60));
  assertError(await setStatus(alice, { status_text: 'x'.repeat(61) }), 'status_text is too long (limit: 60 characters)');
  assertError(await setStatus(alice, { status_text: ` ${'x'.repeat(60)}` }), 'status_text is too long (limit: 60 characters)');
  assertOk(await setStatus(alice, { status_text: 'in a meeting' }));
});

test('each error of the spec\'s table, in Zulip\'s order; nothing is stored or sent', async () => {
  const before = await statuses();
  log.clear();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'Client did not pass any new values.'],
    [{ emoji_code: '1f4bb' }, 'Client did not pass any new values.'],
    [{ status_text: 'x'.repeat(61), emoji_code: '1f4bb' }, 'status_text is too long (limit: 60 characters)'],
    [{ status_text: 'In a meeting', emoji_code: '1f4bb' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [{ away: true, reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [{ status_text: 'In a meeting', emoji_code: '1f4bb', emoji_name: 'invalid' }, "Emoji 'invalid' does not exist"],
    [{ emoji_name: 'invalid' }, "Emoji 'invalid' does not exist"],
    [{ status_text: 'In a meeting', emoji_code: '1f4bb', emoji_name: 'car' }, 'Invalid emoji name.'],
    [{ emoji_code: '1f4bb', emoji_name: 'car', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.'],
    [{ emoji_code: '1f4bb', emoji_name: 'car', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
    [{ emoji_name: 'car', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
    [{ emoji_code: 'ffff', emoji_name: 'car', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.'],
    [{ emoji_code: '1f697', emoji_name: 'car', reaction_type: 'nonsense' }, 'Invalid emoji type.'],
    [{ away: 'maybe' }, 'Argument "away" is not valid JSON.'],
    [{ away: '1' }, 'away is not a boolean'],
    // Parley's own refusal: PostgreSQL cannot store it.
    [{ status_text: 'a\u0000b' }, 'status_text must not contain null bytes'],
  ];
  for (const [params, msg] of cases) assertError(await setStatus(alice, params), msg);
  assert.deepEqual(log.find('user_status'), []);
  assert.deepEqual(await statuses(), before);
});

test('zulip-js has no status call; its generic callEndpoint sends the form Zulip reads', async () => {
  const client: any = await zulip({ username: bob.email, apiKey: bob.apiKey, realm: await t.listen() });
  // zulip-js posts multipart form data of strings: the caller encodes the boolean.
  const r = await client.callEndpoint('/users/me/status', 'POST', { status_text: 'via zulip-js', away: 'true', emoji_name: 'smile' });
  assert.equal(r.result, 'success', JSON.stringify(r));
  assert.deepEqual(await statusOf(bob), { away: true, status_text: 'via zulip-js', emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' });
  const bad = await client.callEndpoint('/users/me/status', 'POST', {});
  assert.deepEqual(bad, { result: 'error', msg: 'Client did not pass any new values.', code: 'BAD_REQUEST' });
});
