import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { setRealmSettings } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';

// Zulip 10's user groups (feature levels 283-340): the group settings can_manage_group (283),
// can_join_group (301), can_add_members_group (305), can_leave_group (308),
// can_remove_members_group (324); deactivation (290) with the include_deactivated_groups
// capability (294) and the in-use objections (298); creator_id/date_created (292);
// deactivated users are no members (303); subgroups through /members and on create (311);
// create's group_id (317); deactivated groups still editable (340).
let t: TestApp;
let log: EventLog;
let ann: TestUser, ben: TestUser, cat: TestUser, dan: TestUser, admin: TestUser, guest: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 371 });
  log = new EventLog(t);
  ({ ann, ben, cat, dan, admin, guest } = await t.createUsers({
    ...people('guest'), ann: { name: 'Ann Member' }, ben: { name: 'Ben Member' }, cat: { name: 'Cat Member' }, dan: { name: 'Dan Member' },
    admin: { name: 'Ada Admin', role: Role.ADMINISTRATOR },
  }));
  // Only administrators may manage every group (the policy stands for can_manage_all_groups until set).
  await setRealmSettings(t, { user_group_edit_policy: 2 });
});
after(() => t.close());

const call = (method: string, url: string, as: TestUser | null, params: Record<string, unknown> = {}) =>
  t.api(method, `/api/v1${url}`, { as, params });
const groups = async (as: TestUser = ann, params: Record<string, unknown> = {}) =>
  assertOk(await call('GET', '/user_groups', as, params)).user_groups as Array<Record<string, any>>;
const byName = async (name: string, params: Record<string, unknown> = {}) => (await groups(ann, params)).find((g) => g.name === name);
async function system(): Promise<Map<string, number>> {
  return new Map((await groups()).filter((g) => g.is_system_group).map((g) => [g.name as string, g.id as number]));
}
const create = async (as: TestUser, name: string, extra: Record<string, unknown> = {}, members: number[] = []) =>
  call('POST', '/user_groups/create', as, { name, description: '', members, ...extra });
const members = (as: TestUser, id: number, params: Record<string, unknown>) => call('POST', `/user_groups/${id}/members`, as, params);

test('the new route requires authentication', async () => {
  assertUnauthenticated(await call('POST', '/user_groups/1/deactivate', null));
});

test('create: group_id, the settings with Zulip 10 defaults, creator_id and date_created; the add event the same', async () => {
  // The policy (administrators) stands for can_create_groups too.
  assertError(await create(ann, 'refused'), 'Insufficient permission');
  await setRealmSettings(t, { user_group_edit_policy: 1, can_manage_all_groups: (await system()).get('role:administrators') });
  log.clear();
  const before = Math.floor(Date.now() / 1000);
  const r = assertOk(await create(ann, 'crew', {}, [ann.id, ben.id]));
  const sys = await system();
  const crew = (await byName('crew'))!;
  assert.equal(r.group_id, crew.id);
  const creatorOnly = { direct_members: [ann.id], direct_subgroups: [] };
  assert.deepEqual({ ...crew, date_created: undefined }, {
    id: crew.id, name: 'crew', description: '', members: [ann.id, ben.id], direct_subgroup_ids: [], is_system_group: false,
    can_mention_group: sys.get('role:everyone'), can_manage_group: creatorOnly, can_add_members_group: creatorOnly,
    can_join_group: sys.get('role:nobody'), can_leave_group: sys.get('role:everyone'), can_remove_members_group: sys.get('role:nobody'),
    creator_id: ann.id, date_created: undefined, deactivated: false,
  });
  assert.ok(crew.date_created >= before && crew.date_created <= before + 60);
  const e = log.one('user_group', 'add');
  assert.deepEqual(e.event.group, crew);
  assert.deepEqual(sorted(e.userIds), sorted([t.owner.id, ann.id, ben.id, cat.id, dan.id, admin.id, guest.id]));
  // System groups: role:nobody for every setting (Zulip's default_for_system_groups), no creator.
  const members = (await groups()).find((g) => g.name === 'role:members')!;
  assert.equal(members.can_manage_group, sys.get('role:nobody'));
  assert.equal(members.can_leave_group, sys.get('role:nobody'));
  assert.equal(members.creator_id, null);
});

test('create with settings and subgroups (311): the add event, then add_subgroups; refusals', async () => {
  const sys = await system();
  const crew = (await byName('crew'))!;
  log.clear();
  assertOk(await create(ben, 'squad', { can_join_group: sys.get('role:members'), can_leave_group: { direct_members: [ben.id], direct_subgroups: [] }, subgroups: [crew.id] }));
  const squad = (await byName('squad'))!;
  assert.equal(squad.can_join_group, sys.get('role:members'));
  assert.deepEqual(squad.can_leave_group, { direct_members: [ben.id], direct_subgroups: [] });
  assert.deepEqual(squad.direct_subgroup_ids, [crew.id]);
  assert.deepEqual(log.events.filter((e) => e.event.type === 'user_group').map((e) => e.event.op), ['add', 'add_subgroups']);
  assertError(await create(ben, 'bad-sub', { subgroups: [999999] }), 'Invalid user group ID: 999999');
  assertError(await create(ben, 'bad-manage', { can_manage_group: sys.get('role:everyone') }), "'can_manage_group' setting cannot be set to 'role:everyone' group.");
  assertError(await create(ben, 'bad-join', { can_join_group: sys.get('role:internet') }), "'can_join_group' setting cannot be set to 'role:internet' group.");
  assert.equal(await byName('bad-sub'), undefined);
});

test('PATCH: can_manage_group decides (or can_manage_all_groups); each setting one update event; {new, old}', async () => {
  const sys = await system();
  const crew = (await byName('crew'))!;
  // Ben is no manager of crew; Ann made it; administrators manage all groups.
  assertError(await call('PATCH', `/user_groups/${crew.id}`, ben, { description: 'x' }), 'Insufficient permission');
  assertError(await call('PATCH', `/user_groups/${crew.id}`, guest, { description: 'x' }), 'Not allowed for guest users');
  assertOk(await call('PATCH', `/user_groups/${crew.id}`, admin, { description: 'by admin' }));
  log.clear();
  assertOk(await call('PATCH', `/user_groups/${crew.id}`, ann, {
    can_manage_group: { new: { direct_members: [ann.id, ben.id], direct_subgroups: [] }, old: { direct_members: [ann.id], direct_subgroups: [] } },
    can_join_group: sys.get('role:members'), can_remove_members_group: { new: sys.get('role:moderators') },
  }));
  const updates = log.events.filter((e) => e.event.type === 'user_group').map((e) => e.event.data);
  assert.deepEqual(updates, [
    { can_join_group: sys.get('role:members') },
    { can_manage_group: { direct_members: [ann.id, ben.id], direct_subgroups: [] } },
    { can_remove_members_group: sys.get('role:moderators') },
  ]);
  assertError(await call('PATCH', `/user_groups/${crew.id}`, ann, { can_join_group: { new: sys.get('role:nobody'), old: sys.get('role:nobody') } }),
    "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
  // Ben manages it now.
  assertOk(await call('PATCH', `/user_groups/${crew.id}`, ben, { description: 'by ben' }));
  assertError(await call('PATCH', `/user_groups/${crew.id}`, ben, {}), 'No new data supplied');
  assertError(await call('PATCH', `/user_groups/${sys.get('role:members')}`, admin, { description: 'x' }), 'Insufficient permission');
});

test('members: join (can_join_group), leave (can_leave_group), add (can_add_members_group), remove (can_remove_members_group)', async () => {
  const sys = await system();
  assertOk(await create(admin, 'club', { can_manage_group: sys.get('role:nobody'), can_add_members_group: sys.get('role:nobody') }));
  const club = (await byName('club'))!;
  assertError(await members(cat, club.id, { add: [cat.id] }), 'Insufficient permission');
  assertOk(await call('PATCH', `/user_groups/${club.id}`, admin, { can_join_group: sys.get('role:members') }));
  log.clear();
  assertOk(await members(cat, club.id, { add: [cat.id] }));
  assert.deepEqual(log.one('user_group', 'add_members').event, { type: 'user_group', op: 'add_members', group_id: club.id, user_ids: [cat.id] });
  // Joining is oneself only: adding another needs can_add_members_group.
  assertError(await members(cat, club.id, { add: [dan.id] }), 'Insufficient permission');
  assertOk(await call('PATCH', `/user_groups/${club.id}`, admin, { can_add_members_group: { direct_members: [cat.id], direct_subgroups: [] } }));
  assertOk(await members(cat, club.id, { add: [dan.id] }));
  assertError(await members(cat, club.id, { add: [dan.id] }), `User ${dan.id} is already a member of this group`);
  // Leaving: role:everyone by default; removing another needs can_remove_members_group.
  assertError(await members(cat, club.id, { delete: [dan.id] }), 'Insufficient permission');
  assertOk(await members(dan, club.id, { delete: [dan.id] }));
  assertOk(await call('PATCH', `/user_groups/${club.id}`, admin, { can_leave_group: sys.get('role:nobody') }));
  assertError(await members(cat, club.id, { delete: [cat.id] }), 'Insufficient permission');
  assertOk(await call('PATCH', `/user_groups/${club.id}`, admin, { can_remove_members_group: sys.get('role:members') }));
  assertOk(await members(cat, club.id, { delete: [cat.id] }));
  assert.deepEqual((await byName('club'))!.members, []);
  assertError(await members(cat, club.id, {}), 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
  assertError(await members(guest, club.id, { add: [guest.id] }), 'Not allowed for guest users');
});

test('members: add_subgroups and delete_subgroups (311), with their events', async () => {
  const crew = (await byName('crew'))!;
  const club = (await byName('club'))!;
  log.clear();
  assertOk(await members(admin, club.id, { add_subgroups: [crew.id] }));
  assert.deepEqual(log.one('user_group', 'add_subgroups').event, { type: 'user_group', op: 'add_subgroups', group_id: club.id, direct_subgroup_ids: [crew.id] });
  assertError(await members(admin, club.id, { add_subgroups: [crew.id] }), `User group ${crew.id} is already a subgroup of this group.`);
  assertOk(await members(admin, club.id, { delete_subgroups: [crew.id] }));
  assert.deepEqual(log.one('user_group', 'remove_subgroups').event.direct_subgroup_ids, [crew.id]);
  assertError(await members(admin, club.id, { delete_subgroups: [crew.id] }), `User group ${crew.id} is not a subgroup of this group.`);
  assertError(await members(ben, club.id, { add_subgroups: [crew.id] }), 'Insufficient permission');
});

test('deactivate: in-use objections (298), the update event or a remove for clients without the capability (294)', async () => {
  const sys = await system();
  assertOk(await create(admin, 'used', {}, [ann.id]));
  const used = (await byName('used'))!;
  assertOk(await create(admin, 'user-of', { can_mention_group: used.id, subgroups: [used.id] }));
  const userOf = (await byName('user-of'))!;
  await setRealmSettings(t, { can_create_groups: { direct_members: [], direct_subgroups: [used.id] } });
  const stream = assertOk(await call('POST', '/users/me/subscriptions', admin, { subscriptions: JSON.stringify([{ name: 'objecting' }]) }));
  assert.ok(stream);
  const sid = assertOk(await call('GET', '/get_stream_id', admin, { stream: 'objecting' })).stream_id;
  await t.app.ctx.store.db.updateTable('stream').set({ can_remove_subscribers_group: JSON.stringify(used.id) }).where('id', '=', sid).execute();
  const r = await call('POST', `/user_groups/${used.id}/deactivate`, admin);
  assertError(r, 'Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE', 400, {
    objections: [
      { type: 'subgroup', supergroup_ids: [userOf.id] },
      { type: 'channel', channel_id: sid, settings: ['can_remove_subscribers_group'] },
      { type: 'user_group', group_id: userOf.id, settings: ['can_mention_group'] },
      { type: 'realm', settings: ['can_create_groups'] },
    ],
  });
  await t.app.ctx.store.db.updateTable('stream').set({ can_remove_subscribers_group: JSON.stringify(sys.get('role:administrators')!) }).where('id', '=', sid).execute();
  await setRealmSettings(t, { can_create_groups: sys.get('role:members') });
  assertOk(await members(admin, userOf.id, { delete_subgroups: [used.id] }));
  assertOk(await call('PATCH', `/user_groups/${userOf.id}`, admin, { can_mention_group: sys.get('role:everyone') }));

  // Two queues: one declaring include_deactivated_groups, one not.
  const reg = async (caps: Record<string, unknown>) => assertOk(await call('POST', '/register', ben, { fetch_event_types: ['realm_user_groups'], client_capabilities: caps }));
  const withCaps = await reg({ include_deactivated_groups: true });
  const without = await reg({});
  assertError(await call('POST', `/user_groups/${used.id}/deactivate`, ben), 'Insufficient permission');
  assertOk(await call('POST', `/user_groups/${used.id}/deactivate`, admin));
  const poll = async (q: any) => assertOk(await call('GET', '/events', ben, { queue_id: q.queue_id, last_event_id: -1, dont_block: true })).events
    .filter((e: any) => e.type === 'user_group');
  assert.deepEqual((await poll(withCaps)).map(({ id: _, ...e }: any) => e), [{ type: 'user_group', op: 'update', group_id: used.id, data: { deactivated: true } }]);
  assert.deepEqual((await poll(without)).map(({ id: _, ...e }: any) => e), [{ type: 'user_group', op: 'remove', group_id: used.id }]);
  // Hidden unless asked for; the group stays deactivated.
  assert.equal(await byName('used'), undefined);
  assert.equal((await byName('used', { include_deactivated_groups: true }))!.deactivated, true);
  assertError(await call('POST', `/user_groups/${used.id}/deactivate`, admin), 'User group is deactivated.');
  assertError(await call('POST', '/user_groups/999999/deactivate', admin), 'Invalid user group');
  assertError(await call('POST', `/user_groups/${sys.get('role:members')}/deactivate`, admin), 'Insufficient permission');
  // Level 340: its description and settings still change; its members not; it is no setting's value or subgroup.
  assertOk(await call('PATCH', `/user_groups/${used.id}`, admin, { description: 'retired', can_join_group: sys.get('role:members') }));
  assertError(await members(admin, used.id, { add: [ben.id] }), 'User group is deactivated.');
  assertError(await call('PATCH', `/user_groups/${userOf.id}`, admin, { can_mention_group: used.id }), 'User group is deactivated.');
  assertError(await members(admin, userOf.id, { add_subgroups: [used.id] }), 'User group is deactivated.');
  // DELETE, gone from the API at 294, still works for older clients.
  assertOk(await call('DELETE', `/user_groups/${userOf.id}`, admin));
});

test('deactivated users are no members (303): remove_members and add_members events, left out of members', async () => {
  assertOk(await create(admin, 'team', { can_join_group: { direct_members: [ben.id, dan.id], direct_subgroups: [] } }, [cat.id, dan.id]));
  const team = (await byName('team'))!;
  log.clear();
  assertOk(await call('DELETE', `/users/${dan.id}`, admin));
  const removed = log.events.filter((e) => e.event.type === 'user_group' && e.event.op === 'remove_members');
  assert.ok(removed.some((e) => e.event.group_id === team.id));
  assert.ok(removed.every((e) => e.event.user_ids.length === 1 && e.event.user_ids[0] === dan.id && !e.userIds.includes(dan.id)));
  assert.deepEqual((await byName('team'))!.members, [cat.id]);
  // An anonymous setting value naming the user shows without them, told by an update event.
  const update = log.one('user_group', 'update', (e) => e.event.group_id === team.id).event;
  assert.deepEqual(update.data, { can_join_group: { direct_members: [ben.id], direct_subgroups: [] } });
  assert.deepEqual((await byName('team'))!.can_join_group, { direct_members: [ben.id], direct_subgroups: [] });
  assert.ok(!(await groups()).find((g) => g.name === 'role:members')!.members.includes(dan.id));
  assert.deepEqual(assertOk(await call('GET', `/user_groups/${team.id}/members`, ann)).members, [cat.id]);
  assertError(await members(admin, team.id, { add: [dan.id] }), `Invalid user ID: ${dan.id}`);
  assertError(await call('PATCH', `/user_groups/${team.id}`, admin, { can_join_group: { direct_members: [dan.id], direct_subgroups: [] } }), `Invalid user ID: ${dan.id}`);
  log.clear();
  assertOk(await call('POST', `/users/${dan.id}/reactivate`, admin));
  assert.ok(log.events.some((e) => e.event.type === 'user_group' && e.event.op === 'add_members' && e.event.group_id === team.id));
  assert.deepEqual((await byName('team'))!.members, [cat.id, dan.id]);
  assert.deepEqual(log.one('user_group', 'update', (e) => e.event.group_id === team.id).event.data, { can_join_group: { direct_members: [ben.id, dan.id], direct_subgroups: [] } });
  assert.deepEqual((await byName('team'))!.can_join_group, { direct_members: [ben.id, dan.id], direct_subgroups: [] });
});

test('register state plus user_group events equals a fresh register, with and without include_deactivated_groups', async () => {
  const { applyEvent } = await import('../../src/events/apply.js');
  const { validateEvent } = await import('../../src/events/schemas.js');
  const sys = await system();
  for (const caps of [{ include_deactivated_groups: true }, {}]) {
    const params = { fetch_event_types: ['realm_user_groups'], client_capabilities: caps };
    const reg = assertOk(await call('POST', '/register', ben, params));
    const state = structuredClone(reg);
    const name = `guard-${Object.keys(caps).length}`;
    assertOk(await create(admin, name, { can_join_group: sys.get('role:members') }, [cat.id]));
    const g = (await byName(name))!;
    assertOk(await members(ben, g.id, { add: [ben.id] }));
    assertOk(await call('PATCH', `/user_groups/${g.id}`, admin, { can_leave_group: { direct_members: [cat.id, ben.id], direct_subgroups: [] }, description: 'd' }));
    assertOk(await call('DELETE', `/users/${cat.id}`, admin));
    assertOk(await call('POST', `/users/${cat.id}/reactivate`, admin));
    assertOk(await call('POST', `/user_groups/${g.id}/deactivate`, admin));
    const polled = assertOk(await call('GET', '/events', ben, { queue_id: reg.queue_id, last_event_id: -1, dont_block: true }));
    for (const e of polled.events) {
      assert.deepEqual(validateEvent(e), [], JSON.stringify(e));
      applyEvent(state, e, ben.id);
    }
    const fresh = assertOk(await call('POST', '/register', ben, params));
    assert.deepEqual(state.realm_user_groups, fresh.realm_user_groups);
  }
});

test('at feature level 277: none of the new keys, no group_id; deactivation is a remove', async () => {
  const old = await testApp({ featureLevel: 277 });
  try {
    const u = await old.createUser({ name: 'Old Member' });
    const r = assertOk(await old.api('POST', '/api/v1/user_groups/create', { as: u, params: { name: 'old', description: '', members: [u.id] } }));
    assert.equal(r.group_id, undefined);
    const g = (assertOk(await old.api('GET', '/api/v1/user_groups', { as: u })).user_groups as any[]).find((x) => x.name === 'old');
    for (const k of ['can_manage_group', 'can_join_group', 'can_add_members_group', 'can_leave_group', 'can_remove_members_group', 'creator_id', 'date_created', 'deactivated']) {
      assert.ok(!(k in g), k);
    }
    const oldLog = new EventLog(old);
    assertOk(await old.api('POST', `/api/v1/user_groups/${g.id}/deactivate`, { as: u }));
    assert.ok(oldLog.events.some((e) => e.event.type === 'user_group'));
    assert.ok(!(assertOk(await old.api('GET', '/api/v1/user_groups', { as: u })).user_groups as any[]).some((x) => x.name === 'old'));
  } finally {
    await old.close();
  }
});

test('at feature level 339 a deactivated group is not edited', async () => {
  const old = await testApp({ featureLevel: 339 });
  try {
    const u = await old.createUser({ name: 'Old Member' });
    const r = assertOk(await old.api('POST', '/api/v1/user_groups/create', { as: u, params: { name: 'old', description: '', members: [u.id] } }));
    assertOk(await old.api('POST', `/api/v1/user_groups/${r.group_id}/deactivate`, { as: u }));
    assertError(await old.api('PATCH', `/api/v1/user_groups/${r.group_id}`, { as: u, params: { description: 'x' } }), 'User group is deactivated.');
    // Below 311 the old "nothing to do".
  } finally {
    await old.close();
  }
});
