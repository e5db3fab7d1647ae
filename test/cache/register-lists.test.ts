import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';

// register's organization-wide parts are kept per change (realm_user_groups, user_status,
// realm_bots, cross_realm_bots, streams): each change that alters one must show in the next
// register, as the uncached reads show it.
let t: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser;

before(async () => {
  t = await testApp();
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
});
after(() => t.close());

const register = async (as: TestUser = bob) => assertOk(await t.api('POST', '/api/v1/register', {
  as, params: { fetch_event_types: ['realm_user_groups', 'user_status', 'realm_bot', 'realm_user', 'stream', 'subscription'] },
}));
const api = async (method: string, url: string, params: Record<string, unknown> = {}, as: TestUser = t.owner) =>
  assertOk(await t.api(method, `/api/v1${url}`, { as, params }));
const groupsNow = async () => (await api('GET', '/user_groups')).user_groups;
const groupId = async (name: string) => ((await groupsNow()) as Array<{ id: number; name: string }>).find((g) => g.name === name)!.id;

/** The change shows in the next register's groups, which equal GET /user_groups (read afresh). */
async function groupsFollow(label: string, change: () => Promise<unknown>, systemGroupsOnly = false): Promise<void> {
  const before = (await register()).realm_user_groups as Array<{ is_system_group: boolean }>;
  await change();
  const after = (await register()).realm_user_groups;
  // Below level 142 (SYSTEM_GROUPS_SHOWN_FROM) system groups are not shown: their changes change nothing here.
  if (!systemGroupsOnly || before.some((g) => g.is_system_group)) assert.notDeepEqual(after, before, `${label}: register's groups unchanged`);
  assert.deepEqual(after, await groupsNow(), `${label}: register's groups differ from GET /user_groups`);
}

test('realm_user_groups follows every change of groups, members and users', async () => {
  await groupsFollow('create', () => api('POST', '/user_groups/create', { name: 'crew', description: 'the crew', members: [alice.id] }));
  const crew = await groupId('crew');
  await groupsFollow('add members', () => api('POST', `/user_groups/${crew}/members`, { add: [bob.id] }));
  await groupsFollow('remove members', () => api('POST', `/user_groups/${crew}/members`, { delete: [alice.id] }));
  await groupsFollow('rename', () => api('PATCH', `/user_groups/${crew}`, { name: 'crew two', description: 'renamed' }));
  await api('POST', '/user_groups/create', { name: 'deck', description: 'the deck', members: [carol.id] });
  const deck = await groupId('deck');
  await groupsFollow('add subgroups', () => api('POST', `/user_groups/${crew}/subgroups`, { add: [deck] }));
  await groupsFollow('new user (system groups)', () => t.createUser({ name: 'Newcomer Nell' }), true);
  await groupsFollow('role change (system groups)', () => api('PATCH', `/users/${carol.id}`, { role: 300 }), true);
});

test('user_status follows a status set and cleared', async () => {
  assert.equal((await register()).user_status[String(alice.id)], undefined);
  await api('POST', '/users/me/status', { status_text: 'at sea' }, alice);
  assert.equal((await register()).user_status[String(alice.id)].status_text, 'at sea');
  await api('POST', '/users/me/status', { status_text: 'ashore' }, alice);
  assert.equal((await register()).user_status[String(alice.id)].status_text, 'ashore');
  await api('POST', '/users/me/status', { status_text: '' }, alice);
  assert.equal((await register()).user_status[String(alice.id)], undefined);
});

test('realm_bots and streams follow a new bot, its deactivation and a new stream', async () => {
  const none = (await register(alice)).realm_bots as unknown[];
  const bot = await t.createBot(alice, { fullName: 'Deck Bot', shortName: 'deckbot' });
  const withBot = (await register(alice)).realm_bots as Array<{ user_id: number; is_active: boolean }>;
  assert.equal(withBot.length, none.length + 1);
  assert.ok(withBot.some((b) => b.user_id === bot.id));
  assert.ok(!((await register(bob)).realm_bots as Array<{ user_id: number }>).some((b) => b.user_id === bot.id), "not another member's");
  await api('DELETE', `/bots/${bot.id}`, {}, alice);
  const gone = ((await register(alice)).realm_bots as Array<{ user_id: number; is_active: boolean }>).find((b) => b.user_id === bot.id);
  assert.ok(!gone || gone.is_active === false, 'the deactivated bot shows as such or not at all');
  const streams = (await register()).streams as Array<{ name: string }>;
  await api('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'harbour', description: 'boats' }], principals: [alice.id] }, alice);
  const after = await register();
  assert.equal((after.streams as unknown[]).length, streams.length + 1);
  assert.equal((after.never_subscribed as Array<{ name: string; description: string }>).find((s) => s.name === 'harbour')?.description, 'boats');
  await api('PATCH', `/streams/${(after.never_subscribed as Array<{ name: string; stream_id: number }>).find((s) => s.name === 'harbour')!.stream_id}`, { description: 'ships' });
  const renamed = await register();
  assert.equal((renamed.streams as Array<{ name: string; description: string }>).find((s) => s.name === 'harbour')!.description, 'ships');
  assert.equal((renamed.never_subscribed as Array<{ name: string; description: string }>).find((s) => s.name === 'harbour')!.description, 'ships');
});
