import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, createAcme, ACME_HOST, FEATURE_LEVEL, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { getMessages } from '../helpers/messages.js';
import { setRealmSettings } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';

// User groups end to end: Zulip 5's endpoints, errors and user_group events (to every
// active user of the organization), user_group_edit_policy, register's realm_user_groups,
// and @*group* mentions flagging the members who receive the message.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser, admin: TestUser, moderator: TestUser, bot: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ alice, bob, carol, guest } = await t.createUsers(people('alice', 'bob', 'carol', 'guest')));
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  moderator = await t.createUser({ name: 'Mo Moderator', role: Role.MODERATOR });
  bot = await t.createBot(alice, { fullName: 'Group Bot', shortName: 'groupbot' });
  ({ owner: acmeOwner } = await createAcme(t));
});
after(() => t.close());

const call = (method: string, url: string, as: TestUser | null, params: Record<string, unknown> = {}) =>
  t.api(method, `/api/v1${url}`, { as, params, ...(as === acmeOwner ? { host: ACME_HOST } : {}) });
const create = (as: TestUser | null, name: string, members: number[], description = '') => call('POST', '/user_groups/create', as, { name, description, members });
const groups = async (as: TestUser = bob) => assertOk(await call('GET', '/user_groups', as)).user_groups as Array<Record<string, any>>;
const groupNamed = async (name: string) => (await groups()).find((g) => g.name === name)!;
const everyone = () => sorted([t.owner.id, alice.id, bob.id, carol.id, guest.id, admin.id, moderator.id, bot.id]);

test('every route requires authentication', async () => {
  assertUnauthenticated(await call('GET', '/user_groups', null));
  assertUnauthenticated(await create(null, 'x', []));
  assertUnauthenticated(await call('PATCH', '/user_groups/1', null, { name: 'x', description: 'y' }));
  assertUnauthenticated(await call('DELETE', '/user_groups/1', null));
  assertUnauthenticated(await call('POST', '/user_groups/1/members', null, { add: [1] }));
  assertUnauthenticated(await call('GET', '/user_groups/1/members', null));
});

test('create: the group with its members, an add event to everyone, in GET and register', async () => {
  log.clear();
  assertOk(await create(alice, 'support', [bob.id, alice.id, bob.id], 'The support team'));
  const { event, userIds } = log.one('user_group', 'add');
  const group = await groupNamed('support');
  // Level 198: who may mention it, everyone by default.
  const mention = FEATURE_LEVEL >= 198 ? { can_mention_group: (await groupNamed('role:everyone')).id } : {};
  // Levels 283-324 add Zulip 10's settings and 290/292 deactivated, creator_id, date_created (test/realm/user-groups-zulip10.test.ts).
  const zulip10 = FEATURE_LEVEL >= 283 ? Object.fromEntries(Object.entries(group).filter(([k]) => !['id', 'name', 'description', 'members', 'direct_subgroup_ids', 'is_system_group', 'can_mention_group'].includes(k))) : {};
  if (FEATURE_LEVEL >= 292) assert.equal(group.creator_id, alice.id);
  assert.deepEqual(group, { id: group.id, name: 'support', description: 'The support team', members: sorted([alice.id, bob.id]), direct_subgroup_ids: [], is_system_group: false, ...mention, ...zulip10 });
  assert.deepEqual(event, { type: 'user_group', op: 'add', group });
  assert.deepEqual(sorted(userIds), everyone());
  const reg = assertOk(await call('POST', '/register', guest, { fetch_event_types: ['realm_user_groups'] }));
  assert.deepEqual(reg.realm_user_groups.find((g: any) => g.id === group.id), group);
  assert.deepEqual(assertOk(await call('GET', `/user_groups/${group.id}/members`, carol)).members, sorted([alice.id, bob.id]));
  // Another organization sees none of it.
  // (Its own system groups are listed from level 142.)
  assert.deepEqual((await groups(acmeOwner)).filter((g) => !g.is_system_group), []);
});

test('create: Zulip\'s errors', async () => {
  assertError(await create(alice, 'nobody', [bob.id, 99999]), 'Invalid user ID: 99999');
  assertError(await create(alice, 'nobody', [acmeOwner.id]), `Invalid user ID: ${acmeOwner.id}`);
  assertOk(await create(alice, 'dupe', []));
  assertError(await create(bob, 'dupe', [bob.id]), "User group 'dupe' already exists.");
  assertError(await create(alice, 'x'.repeat(101), []), 'User group name cannot exceed 100 characters.');
  assertError(await call('POST', '/user_groups/create', alice, { name: 'a', description: '' }), "Missing 'members' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'members' });
  assertError(await call('POST', '/user_groups/create', alice, { name: 'a', description: '', members: '[1,"x"]' }), 'members[1] is not an integer');
});

test('update: name and description, one event for each; Zulip\'s errors', async () => {
  assertOk(await create(alice, 'devs', [alice.id], 'before'));
  const { id } = await groupNamed('devs');
  log.clear();
  assertOk(await call('PATCH', `/user_groups/${id}`, bob, { name: 'developers', description: 'after' }));
  assert.deepEqual(log.find('user_group', 'update').map((e) => e.event), [
    { type: 'user_group', op: 'update', group_id: id, data: { name: 'developers' } },
    { type: 'user_group', op: 'update', group_id: id, data: { description: 'after' } },
  ]);
  assert.deepEqual(sorted(log.one('user_group', 'update', (e) => 'name' in (e.event as any).data).userIds), everyone());
  // Only what changed is sent; an empty name keeps the name.
  log.clear();
  assertOk(await call('PATCH', `/user_groups/${id}`, bob, { name: '', description: 'again' }));
  assert.deepEqual(log.find('user_group').map((e) => e.event), [{ type: 'user_group', op: 'update', group_id: id, data: { description: 'again' } }]);
  assert.equal((await groupNamed('developers')).description, 'again');

  assertError(await call('PATCH', `/user_groups/${id}`, bob, { name: '', description: '' }), 'No new data supplied');
  assertError(await call('PATCH', '/user_groups/99999', bob, { name: 'x', description: 'y' }), 'Invalid user group');
  const acmeGroup = assertOk(await create(acmeOwner, 'acme-group', [])) && (await groups(acmeOwner))[0]!.id;
  assertError(await call('PATCH', `/user_groups/${acmeGroup}`, bob, { name: 'x', description: 'y' }), 'Invalid user group');
  assertError(await call('PATCH', `/user_groups/${id}`, bob, { name: 'support', description: 'y' }), "User group 'support' already exists.");
  // Feature level 165: either may be left out; neither is no new data.
  log.clear();
  assertOk(await call('PATCH', `/user_groups/${id}`, bob, { description: 'only the description' }));
  assert.deepEqual(log.one('user_group', 'update').event.data, { description: 'only the description' });
  log.clear();
  assertOk(await call('PATCH', `/user_groups/${id}`, bob, { name: 'developers-2' }));
  assert.deepEqual(log.one('user_group', 'update').event.data, { name: 'developers-2' });
  assertOk(await call('PATCH', `/user_groups/${id}`, bob, { name: 'developers' }));
  assertError(await call('PATCH', `/user_groups/${id}`, bob, {}), 'No new data supplied');
});

test('members: add and delete, their events, and Zulip\'s errors', async () => {
  assertOk(await create(alice, 'ops', [alice.id]));
  const { id } = await groupNamed('ops');
  log.clear();
  assertOk(await call('POST', `/user_groups/${id}/members`, bob, { add: [carol.id, bot.id] }));
  const added = log.one('user_group', 'add_members');
  assert.deepEqual(added.event, { type: 'user_group', op: 'add_members', group_id: id, user_ids: [carol.id, bot.id] });
  assert.deepEqual(sorted(added.userIds), everyone());
  log.clear();
  assertOk(await call('POST', `/user_groups/${id}/members`, bob, { delete: [alice.id] }));
  assert.deepEqual(log.one('user_group', 'remove_members').event, { type: 'user_group', op: 'remove_members', group_id: id, user_ids: [alice.id] });
  assert.deepEqual(assertOk(await call('GET', `/user_groups/${id}/members`, bob)).members, sorted([carol.id, bot.id]));
  // Both at once: the add, then the delete.
  log.clear();
  assertOk(await call('POST', `/user_groups/${id}/members`, bob, { add: [alice.id], delete: [bot.id] }));
  assert.deepEqual(log.find('user_group').map((e) => e.event.op), ['add_members', 'remove_members']);

  // Level 311 names the subgroup lists too.
  const nothing = FEATURE_LEVEL >= 311 ? 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".' : 'Nothing to do. Specify at least one of "add" or "delete".';
  assertError(await call('POST', `/user_groups/${id}/members`, bob, {}), nothing);
  assertError(await call('POST', `/user_groups/${id}/members`, bob, { add: [], delete: [] }), nothing);
  assertError(await call('POST', `/user_groups/${id}/members`, bob, { add: [carol.id] }), `User ${carol.id} is already a member of this group`);
  assertError(await call('POST', `/user_groups/${id}/members`, bob, { delete: [bob.id] }), `There is no member '${bob.id}' in this user group`);
  assertError(await call('POST', `/user_groups/${id}/members`, bob, { add: [99999] }), 'Invalid user ID: 99999');
  assertError(await call('POST', `/user_groups/${id}/members`, bob, { delete: [99999] }), 'Invalid user ID: 99999');
  assertError(await call('POST', '/user_groups/99999/members', bob, { add: [bob.id] }), 'Invalid user group');
  assertError(await call('GET', '/user_groups/99999/members', bob), 'Invalid user group');
  // A refused request changes nothing: the add before a failing delete is rolled back.
  assertError(await call('POST', `/user_groups/${id}/members`, bob, { add: [bob.id], delete: [moderator.id] }), `There is no member '${moderator.id}' in this user group`);
  assert.deepEqual(assertOk(await call('GET', `/user_groups/${id}/members`, bob)).members, sorted([alice.id, carol.id]));
});

test('delete: the group goes, with a remove event to everyone', async () => {
  assertOk(await create(alice, 'doomed', [alice.id]));
  const { id } = await groupNamed('doomed');
  log.clear();
  assertOk(await call('DELETE', `/user_groups/${id}`, carol));
  const { event, userIds } = log.one('user_group', 'remove');
  assert.deepEqual(event, { type: 'user_group', op: 'remove', group_id: id });
  assert.deepEqual(sorted(userIds), everyone());
  assert.equal(await groupNamed('doomed'), undefined);
  assertError(await call('DELETE', `/user_groups/${id}`, carol), 'Invalid user group');
});

test('who may edit: guests and bots never; otherwise user_group_edit_policy', async () => {
  assertOk(await create(alice, 'policy', [alice.id]));
  const { id } = await groupNamed('policy');
  const attempts = (as: TestUser) => [
    create(as, `new-${as.id}`, []),
    call('PATCH', `/user_groups/${id}`, as, { name: '', description: `by ${as.id}` }),
    call('POST', `/user_groups/${id}/members`, as, { add: [as.id] }),
  ];
  for (const r of await Promise.all(attempts(guest))) assertError(r, 'Not allowed for guest users');
  for (const r of await Promise.all(attempts(bot))) assertError(r, 'This endpoint does not accept bot requests.');
  assertError(await call('DELETE', `/user_groups/${id}`, guest), 'Not allowed for guest users');
  assertError(await call('GET', `/user_groups/${id}/members`, guest), 'Not allowed for guest users');
  // Reading the list is open to guests too (register sends it to them).
  assert.ok((await groups(guest)).some((g) => g.id === id));

  const rows: Array<[number, TestUser[], TestUser[]]> = [
    [2, [admin, t.owner], [moderator, bob]], // administrators only
    [4, [moderator, admin], [bob]], // moderators
    [1, [bob], []], // members
  ];
  for (const [policy, allowed, refused] of rows) {
    await setRealmSettings(t, { user_group_edit_policy: policy });
    for (const u of refused) assertError(await create(u, `p${policy}-${u.id}`, []), 'Insufficient permission');
    for (const u of refused) assertError(await call('DELETE', `/user_groups/${id}`, u), 'Insufficient permission');
    for (const u of allowed) assertOk(await create(u, `p${policy}-${u.id}`, []));
  }
  // Full members: those who joined more than waiting_period_threshold days ago.
  await setRealmSettings(t, { user_group_edit_policy: 3, waiting_period_threshold: 1000 });
  assertError(await create(bob, 'p3', []), 'Insufficient permission');
  await setRealmSettings(t, { user_group_edit_policy: 3, waiting_period_threshold: 0 });
  assertOk(await create(bob, 'p3', []));
  await setRealmSettings(t, { user_group_edit_policy: 1 });
});

test('@*group* mentions: rendered as Zulip renders them; members who receive it are mentioned, nobody else', async () => {
  assertOk(await create(alice, 'Mentioned Team', [bob.id, guest.id]));
  const { id } = await groupNamed('Mentioned Team');
  await call('POST', '/users/me/subscriptions', alice, { subscriptions: [{ name: 'mentions' }], principals: [alice.id, bob.id, carol.id] });
  const sent = assertOk(await call('POST', '/messages', alice, { type: 'stream', to: 'mentions', topic: 't', content: 'hi @*mentioned team*, and quietly @_*Mentioned Team*' }));
  const one = async (as: TestUser) => assertOk(await getMessages(t, as, { anchor: sent.id, num_before: 0, num_after: 0 })).messages[0];
  const msg = await one(bob);
  assert.equal(msg.content, `<p>hi <span class="user-group-mention" data-user-group-id="${id}">@Mentioned Team</span>, and quietly `
    + `<span class="user-group-mention silent" data-user-group-id="${id}">Mentioned Team</span></p>`);
  assert.ok(msg.flags.includes('mentioned'));
  assert.ok(!(await one(carol)).flags.includes('mentioned'));
  assert.ok(!(await one(alice)).flags.includes('mentioned'));

  // Only the silent form: nobody is mentioned.
  const quiet = assertOk(await call('POST', '/messages', alice, { type: 'stream', to: 'mentions', topic: 't', content: 'fyi @_*Mentioned Team*' }));
  const bobsQuiet = assertOk(await getMessages(t, bob, { anchor: quiet.id, num_before: 0, num_after: 0 })).messages[0];
  assert.ok(!bobsQuiet.flags.includes('mentioned'));
  // An edit that adds the mention sets the flag; removing it clears it.
  assertOk(await call('PATCH', `/messages/${quiet.id}`, alice, { content: 'now @*Mentioned Team*' }));
  assert.ok((await one2(bob, quiet.id)).flags.includes('mentioned'));
  assertOk(await call('PATCH', `/messages/${quiet.id}`, alice, { content: 'and not any more' }));
  assert.ok(!(await one2(bob, quiet.id)).flags.includes('mentioned'));
  // An unknown group is plain text.
  const plain = assertOk(await call('POST', '/messages/render', alice, { content: '@*no such group*' }));
  assert.equal(plain.rendered, '<p>@<em>no such group</em></p>');
});
const one2 = async (as: TestUser, id: number) => assertOk(await getMessages(t, as, { anchor: id, num_before: 0, num_after: 0 })).messages[0];
