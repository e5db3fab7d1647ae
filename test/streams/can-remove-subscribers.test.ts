import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { subscribe } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';

// can_remove_subscribers_group: on stream and subscription objects from feature level 142
// (`can_remove_subscribers_group_id`, renamed at 197), a parameter of stream creation and
// PATCH /streams (161), and who may unsubscribe others: its members (and administrators).
const SUBS = '/api/v1/users/me/subscriptions';
let t: TestApp, mid: TestApp, old: TestApp;
let log: EventLog;
let member: TestUser, other: TestUser, moderator: TestUser, admin: TestUser, guest: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  mid = await testApp({ featureLevel: 170 });
  old = await testApp({ featureLevel: 122 });
  log = new EventLog(t);
  member = await t.createUser({ name: 'Max Member' });
  other = await t.createUser({ name: 'Otto Other' });
  moderator = await t.createUser({ name: 'Mo Moderator', role: Role.MODERATOR });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
});
after(async () => { await t.close(); await mid.close(); await old.close(); });

async function systemGroups(app: TestApp): Promise<Record<string, number>> {
  const rows = await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name']).where('is_system_group', '=', 1)
    .where('realm_id', '=', app.owner.row.realm_id).execute();
  return Object.fromEntries(rows.map((g) => [g.name, g.id]));
}
const stream = async (app: TestApp, as: TestUser, id: number) => assertOk(await app.api('GET', `/api/v1/streams/${id}`, { as })).stream;
const ownSub = async (app: TestApp, as: TestUser, id: number) => assertOk(await app.api('GET', SUBS, { as })).subscriptions.find((s: any) => s.stream_id === id);

test('the field by level: none at 122, can_remove_subscribers_group_id at 142-196, can_remove_subscribers_group from 197; default administrators', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, member, 'plain');
  assert.equal((await stream(t, member, id)).can_remove_subscribers_group, g['role:administrators']);
  assert.equal((await stream(t, member, id)).can_remove_subscribers_group_id, undefined);
  assert.equal((await ownSub(t, member, id)).can_remove_subscribers_group, g['role:administrators']);
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: member, params: { fetch_event_types: ['subscription', 'stream'] } }));
  assert.equal(reg.streams.find((s: any) => s.stream_id === id).can_remove_subscribers_group, g['role:administrators']);
  assert.equal(reg.subscriptions.find((s: any) => s.stream_id === id).can_remove_subscribers_group, g['role:administrators']);
  // The creation events carry it too (they update the state register gave).
  log.clear();
  const id2 = await subscribe(t, member, 'plain-2');
  assert.equal(log.one('stream', 'create').event.streams[0].can_remove_subscribers_group, g['role:administrators']);
  assert.equal(log.one('subscription', 'add').event.subscriptions[0].can_remove_subscribers_group, g['role:administrators']);
  assert.ok(id2 > id);

  const mMember = await mid.createUser({ name: 'Max Member' });
  const midId = await subscribe(mid, mMember!, 'mid');
  const midStream = await stream(mid, mMember!, midId);
  assert.equal(midStream.can_remove_subscribers_group_id, (await systemGroups(mid))['role:administrators']);
  assert.equal(midStream.can_remove_subscribers_group, undefined);

  const oMember = await old.createUser({ name: 'Max Member' });
  const oldId = await subscribe(old, oMember!, 'old');
  const oldStream = await stream(old, oMember!, oldId);
  assert.ok(!('can_remove_subscribers_group' in oldStream) && !('can_remove_subscribers_group_id' in oldStream));
  assert.ok(!('can_remove_subscribers_group_id' in (await ownSub(old, oMember!, oldId))));
});

test('creating a stream with the setting, by either name; Zulip\'s checks', async () => {
  const g = await systemGroups(t);
  const post = (params: Record<string, unknown>) => t.api('POST', SUBS, { as: member, params });
  assertOk(await post({ subscriptions: [{ name: 'mods-remove' }], can_remove_subscribers_group: g['role:moderators'] }));
  const id = (await ownSub(t, member, await subscribe(t, member, 'mods-remove'))).stream_id;
  assert.equal((await stream(t, member, id)).can_remove_subscribers_group, g['role:moderators']);
  assertOk(await post({ subscriptions: [{ name: 'old-name' }], can_remove_subscribers_group_id: g['role:members'] }));
  assert.equal((await stream(t, member, await subscribe(t, member, 'old-name'))).can_remove_subscribers_group, g['role:members']);
  const team = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: member, params: { name: 'crew', description: '', members: [member.id] } }));
  assert.ok(team);
  const crew = assertOk(await t.api('GET', '/api/v1/user_groups', { as: member })).user_groups.find((x: any) => x.name === 'crew').id;
  assertError(await post({ subscriptions: [{ name: 'x1' }], can_remove_subscribers_group: crew }), "'can_remove_subscribers_group' must be a system user group.");
  assertError(await post({ subscriptions: [{ name: 'x1' }], can_remove_subscribers_group: g['role:internet'] }), "'can_remove_subscribers_group' setting cannot be set to 'role:internet' group.");
  assertError(await post({ subscriptions: [{ name: 'x1' }], can_remove_subscribers_group: g['role:owners'] }), "'can_remove_subscribers_group' setting cannot be set to 'role:owners' group.");
  assertError(await post({ subscriptions: [{ name: 'x1' }], can_remove_subscribers_group: g['role:nobody'] }), "'can_remove_subscribers_group' setting cannot be set to 'role:nobody' group.");
  assertError(await post({ subscriptions: [{ name: 'x1' }], can_remove_subscribers_group: 999999 }), 'Invalid user group');
  // Zulip 10's parameter is a JSON group-setting value at every level (level 320).
  assertError(await post({ subscriptions: [{ name: 'x1' }], can_remove_subscribers_group: 'x' }), 'Argument "can_remove_subscribers_group" is not valid JSON.');
  // Nothing was created by the refused requests.
  assert.equal((await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'x1' } })).status, 400);
});

test('PATCH /streams: the setting changes with an update event; Zulip\'s checks', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, member, 'patchable', { principals: [member.id, other.id] });
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { can_remove_subscribers_group: g['role:members'] } }));
  const e = log.one('stream', 'update');
  assert.deepEqual(e.event, { type: 'stream', op: 'update', stream_id: id, name: 'patchable', property: 'can_remove_subscribers_group', value: g['role:members'] });
  assert.ok(e.userIds.includes(other.id) && e.userIds.includes(guest.id) === false);
  assert.equal((await stream(t, member, id)).can_remove_subscribers_group, g['role:members']);
  // The same value again: nothing to do, no event.
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { can_remove_subscribers_group_id: g['role:members'] } }));
  assert.deepEqual(log.find('stream', 'update'), []);
  assertError(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { can_remove_subscribers_group: g['role:nobody'] } }),
    "'can_remove_subscribers_group' setting cannot be set to 'role:nobody' group.");
  // Only stream administrators edit streams at all.
  assertError(await t.api('PATCH', `/api/v1/streams/${id}`, { as: member, params: { can_remove_subscribers_group: g['role:everyone'] } }),
    'Must be an organization or stream administrator', 'UNAUTHORIZED_PRINCIPAL');
  // A private stream the administrator is not subscribed to.
  const secret = await subscribe(t, member, 'secret-patch', { invite_only: true });
  assertError(await t.api('PATCH', `/api/v1/streams/${secret}`, { as: admin, params: { can_remove_subscribers_group: g['role:members'] } }), 'Invalid stream id');
});

test('who may unsubscribe others: the group\'s members (recursively) and administrators', async () => {
  const g = await systemGroups(t);
  const del = (as: TestUser, name: string, who: TestUser) => t.api('DELETE', SUBS, { as, params: { subscriptions: [name], principals: [who.id] } });
  await subscribe(t, admin, 'kickable', { principals: [member.id, other.id, moderator.id, guest.id] });
  // Default (administrators): a member and a moderator may not.
  assertError(await del(member, 'kickable', other), 'Insufficient permission');
  assertError(await del(moderator, 'kickable', other), 'Insufficient permission');
  const id = await subscribe(t, admin, 'kickable');
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { can_remove_subscribers_group: g['role:moderators'] } }));
  assert.deepEqual(assertOk(await del(moderator, 'kickable', other)).removed, ['kickable']);
  assertError(await del(member, 'kickable', guest), 'Insufficient permission');
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { can_remove_subscribers_group: g['role:everyone'] } }));
  assert.deepEqual(assertOk(await del(member, 'kickable', moderator)).removed, ['kickable']);
  // Guests too when the group is role:everyone (the setting allows it), on a stream they are subscribed to.
  assert.deepEqual(assertOk(await del(guest, 'kickable', member)).removed, ['kickable']);
  // Administrators always may.
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { can_remove_subscribers_group: g['role:fullmembers'] } }));
  assert.deepEqual(assertOk(await del(admin, 'kickable', guest)).removed, ['kickable']);
});

test('at 122 the rule is the same, with the words Parley answered before the setting existed', async () => {
  const a = await old.createUser({ name: 'Ann Old' });
  const b = await old.createUser({ name: 'Ben Old' });
  await subscribe(old, a!, 'old-kick', { principals: [a!.id, b!.id] });
  assertError(await old.api('DELETE', SUBS, { as: a!, params: { subscriptions: ['old-kick'], principals: [b!.id] } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  // A group chosen through the later parameter applies at every level.
  const g = await systemGroups(old);
  const id = await subscribe(old, a!, 'old-kick');
  assertOk(await old.api('PATCH', `/api/v1/streams/${id}`, { as: old.owner, params: { can_remove_subscribers_group_id: g['role:members'] } }));
  assert.deepEqual(assertOk(await old.api('DELETE', SUBS, { as: a!, params: { subscriptions: ['old-kick'], principals: [b!.id] } })).removed, ['old-kick']);
});
