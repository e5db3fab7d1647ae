import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, createAcme, ACME_HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { getMessages } from '../helpers/messages.js';
import { setRealmSettings } from '../helpers/streams.js';

// Subgroups of user groups (feature levels 127 and 131) end to end: POST and GET
// /user_groups/{id}/subgroups, recursive GET /user_groups/{id}/members and
// /members/{user_id}, `direct_subgroup_ids` in group objects, the add_subgroups /
// remove_subgroups events to every active user, cycle checks, and mentions reaching the
// members of subgroups.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser, bot: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  ({ alice, bob, carol, guest } = await t.createUsers(people('alice', 'bob', 'carol', 'guest')));
  bot = await t.createBot(alice, { fullName: 'Sub Bot', shortName: 'subbot' });
  ({ owner: acmeOwner } = await createAcme(t));
});
after(() => t.close());

const call = (method: string, url: string, as: TestUser | null, params: Record<string, unknown> = {}) =>
  t.api(method, `/api/v1${url}`, { as, params, ...(as === acmeOwner ? { host: ACME_HOST } : {}) });
const groups = async (as: TestUser = bob) => assertOk(await call('GET', '/user_groups', as)).user_groups as Array<Record<string, any>>;
const makeGroup = async (name: string, members: number[], as: TestUser = alice): Promise<number> => {
  assertOk(await call('POST', '/user_groups/create', as, { name, description: '', members }));
  return (await groups(as === acmeOwner ? acmeOwner : bob)).find((g) => g.name === name)!.id;
};
const subgroups = (id: number, params: Record<string, unknown> = {}, as: TestUser = carol) => call('GET', `/user_groups/${id}/subgroups`, as, params);
const members = (id: number, params: Record<string, unknown> = {}, as: TestUser = carol) => call('GET', `/user_groups/${id}/members`, as, params);
const isMember = (id: number, userId: number, params: Record<string, unknown> = {}) => call('GET', `/user_groups/${id}/members/${userId}`, carol, params);
const everyone = () => sorted([t.owner.id, alice.id, bob.id, carol.id, guest.id, bot.id]);

test('the new routes require authentication', async () => {
  assertUnauthenticated(await call('POST', '/user_groups/1/subgroups', null, { add: [2] }));
  assertUnauthenticated(await call('GET', '/user_groups/1/subgroups', null));
  assertUnauthenticated(await call('GET', '/user_groups/1/members/1', null));
});

test('add and delete subgroups: events to everyone, direct_subgroup_ids, recursive members and subgroups', async () => {
  const top = await makeGroup('top', [alice.id]);
  const mid = await makeGroup('mid', [bob.id]);
  const low = await makeGroup('low', [carol.id, bob.id]);
  log.clear();
  assertOk(await call('POST', `/user_groups/${top}/subgroups`, bob, { add: [mid] }));
  const added = log.one('user_group', 'add_subgroups');
  assert.deepEqual(added.event, { type: 'user_group', op: 'add_subgroups', group_id: top, direct_subgroup_ids: [mid] });
  assert.deepEqual(sorted(added.userIds), everyone());
  assertOk(await call('POST', `/user_groups/${mid}/subgroups`, bob, { add: [low] }));

  const byId = new Map((await groups()).map((g) => [g.id, g]));
  assert.deepEqual(byId.get(top)!.direct_subgroup_ids, [mid]);
  assert.deepEqual(byId.get(mid)!.direct_subgroup_ids, [low]);
  assert.deepEqual(byId.get(low)!.direct_subgroup_ids, []);
  // Members stay the direct members in group objects.
  assert.deepEqual(byId.get(top)!.members, [alice.id]);
  const reg = assertOk(await call('POST', '/register', guest, { fetch_event_types: ['realm_user_groups'] }));
  assert.deepEqual(reg.realm_user_groups.find((g: any) => g.id === top), byId.get(top));

  assert.deepEqual(assertOk(await subgroups(top)).subgroups, sorted([mid, low]));
  assert.deepEqual(assertOk(await subgroups(top, { direct_subgroup_only: true })).subgroups, [mid]);
  assert.deepEqual(assertOk(await subgroups(low)).subgroups, []);
  assert.deepEqual(assertOk(await members(top)).members, sorted([alice.id, bob.id, carol.id]));
  assert.deepEqual(assertOk(await members(top, { direct_member_only: true })).members, [alice.id]);
  assert.deepEqual(assertOk(await members(mid)).members, sorted([bob.id, carol.id]));
  assert.deepEqual(assertOk(await isMember(top, carol.id)), { result: 'success', msg: '', is_user_group_member: true });
  assert.equal(assertOk(await isMember(top, carol.id, { direct_member_only: true })).is_user_group_member, false);
  assert.equal(assertOk(await isMember(top, alice.id, { direct_member_only: true })).is_user_group_member, true);
  assert.equal(assertOk(await isMember(low, alice.id)).is_user_group_member, false);

  log.clear();
  assertOk(await call('POST', `/user_groups/${top}/subgroups`, bob, { delete: [mid] }));
  const removed = log.one('user_group', 'remove_subgroups');
  assert.deepEqual(removed.event, { type: 'user_group', op: 'remove_subgroups', group_id: top, direct_subgroup_ids: [mid] });
  assert.deepEqual(sorted(removed.userIds), everyone());
  assert.deepEqual(assertOk(await subgroups(top)).subgroups, []);
  assert.deepEqual(assertOk(await members(top)).members, [alice.id]);

  // Both at once: the add, then the delete, in one request.
  log.clear();
  assertOk(await call('POST', `/user_groups/${top}/subgroups`, bob, { add: [low], delete: [] }));
  assertOk(await call('POST', `/user_groups/${top}/subgroups`, bob, { add: [mid], delete: [low] }));
  assert.deepEqual(log.find('user_group').map((e) => e.event.op), ['add_subgroups', 'add_subgroups', 'remove_subgroups']);
  assert.deepEqual(assertOk(await subgroups(top, { direct_subgroup_only: true })).subgroups, [mid]);
});

test('Zulip\'s errors; a refused request changes nothing', async () => {
  const a = await makeGroup('err-a', []);
  const b = await makeGroup('err-b', []);
  const c = await makeGroup('err-c', []);
  const acmeGroup = await makeGroup('acme-sub', [], acmeOwner);
  assertOk(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [b] }));
  assertOk(await call('POST', `/user_groups/${b}/subgroups`, bob, { add: [c] }));
  const nothing = 'Nothing to do. Specify at least one of "add" or "delete".';
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, {}), nothing);
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [], delete: [] }), nothing);
  // The named subgroups are checked before the group.
  assertError(await call('POST', '/user_groups/99999/subgroups', bob, { add: [c, 88888] }), 'Invalid user group ID: 88888');
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [acmeGroup] }), `Invalid user group ID: ${acmeGroup}`);
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { delete: [99999] }), 'Invalid user group ID: 99999');
  assertError(await call('POST', '/user_groups/99999/subgroups', bob, { add: [c] }), 'Invalid user group');
  assertError(await call('POST', `/user_groups/${acmeGroup}/subgroups`, bob, { add: [c] }), 'Invalid user group');
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [b] }), `User group ${b} is already a subgroup of this group.`);
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { delete: [c] }), `User group ${c} is not a subgroup of this group.`);
  // Cycles: a group into itself, or into a group below it.
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [a] }), `User group ${a} is already a subgroup of one of the passed subgroups.`);
  assertError(await call('POST', `/user_groups/${c}/subgroups`, bob, { add: [a] }), `User group ${c} is already a subgroup of one of the passed subgroups.`);
  assertError(await call('POST', `/user_groups/${c}/subgroups`, bob, { add: [b] }), `User group ${c} is already a subgroup of one of the passed subgroups.`);
  // The add before a failing delete is rolled back, and no event is sent.
  log.clear();
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [c], delete: [c, a] }), `User group ${a} is not a subgroup of this group.`);
  assert.deepEqual(assertOk(await subgroups(a, { direct_subgroup_only: true })).subgroups, [b]);
  assert.deepEqual(log.find('user_group'), []);

  // Reads: an unknown group, an unknown user, a bot, a deactivated user.
  assertError(await subgroups(99999), 'Invalid user group');
  assertError(await isMember(99999, alice.id), 'Invalid user group');
  assertError(await isMember(a, 99999), 'No such user');
  assertError(await isMember(a, bot.id), 'No such user');
  assertError(await isMember(a, acmeOwner.id), 'No such user');
  const gone = await t.createUser({ name: 'Gone Soon' });
  assertOk(await call('DELETE', `/users/${gone.id}`, t.owner));
  assertError(await isMember(a, gone.id), 'User is deactivated');
  assertError(await call('GET', `/user_groups/${a}/subgroups`, bob, { direct_subgroup_only: 'maybe' }), 'Argument "direct_subgroup_only" is not valid JSON.');
});

test('who may: guests and bots never read or edit subgroups; editing follows user_group_edit_policy', async () => {
  const a = await makeGroup('who-a', []);
  const b = await makeGroup('who-b', []);
  for (const r of [
    await call('POST', `/user_groups/${a}/subgroups`, guest, { add: [b] }),
    await subgroups(a, {}, guest),
    await call('GET', `/user_groups/${a}/members/${alice.id}`, guest),
  ]) assertError(r, 'Not allowed for guest users');
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bot, { add: [b] }), 'This endpoint does not accept bot requests.');
  assertError(await subgroups(a, {}, bot), 'This endpoint does not accept bot requests.');
  await setRealmSettings(t, { user_group_edit_policy: 2 });
  assertError(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [b] }), 'Insufficient permission');
  await setRealmSettings(t, { user_group_edit_policy: 1 });
  assertOk(await call('POST', `/user_groups/${a}/subgroups`, bob, { add: [b] }));
});

test('deleting a group takes it out of the groups it was a subgroup of', async () => {
  const parent = await makeGroup('del-parent', [alice.id]);
  const child = await makeGroup('del-child', [carol.id]);
  assertOk(await call('POST', `/user_groups/${parent}/subgroups`, bob, { add: [child] }));
  assertOk(await call('DELETE', `/user_groups/${child}`, bob));
  assert.deepEqual((await groups()).find((g) => g.id === parent)!.direct_subgroup_ids, []);
  assert.deepEqual(assertOk(await members(parent)).members, [alice.id]);
  assert.deepEqual(assertOk(await subgroups(parent)).subgroups, []);
});

test('@*group* mentions reach the members of its subgroups', async () => {
  const team = await makeGroup('Whole Team', [alice.id]);
  const part = await makeGroup('Part Team', [bob.id]);
  assertOk(await call('POST', `/user_groups/${team}/subgroups`, alice, { add: [part] }));
  await call('POST', '/users/me/subscriptions', alice, { subscriptions: [{ name: 'subgroup-mentions' }], principals: [alice.id, bob.id, carol.id] });
  const sent = assertOk(await call('POST', '/messages', carol, { type: 'stream', to: 'subgroup-mentions', topic: 't', content: 'hi @*Whole Team*' }));
  const flags = async (as: TestUser) => assertOk(await getMessages(t, as, { anchor: sent.id, num_before: 0, num_after: 0 })).messages[0].flags as string[];
  assert.ok((await flags(bob)).includes('mentioned'));
  assert.ok((await flags(alice)).includes('mentioned'));
  assert.ok(!(await flags(carol)).includes('mentioned'));
});
