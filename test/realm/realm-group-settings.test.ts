import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// Levels 264, 266, 270: can_create_public_channel_group, can_create_private_channel_group,
// direct_message_initiator_group and direct_message_permission_group (system group ids),
// replacing create_public_stream_policy, create_private_stream_policy and private_message_policy.
let t: TestApp, old: TestApp, mid: TestApp;
let log: EventLog;
let ann: TestUser, ben: TestUser, mod: TestUser, admin: TestUser, guest: TestUser;
let sys: Record<string, number>;

const systemGroups = async (app: TestApp) => Object.fromEntries((await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name'])
  .where('is_system_group', '=', 1).where('realm_id', '=', app.owner.row.realm_id).execute()).map((g) => [g.name, g.id]));

before(async () => {
  t = await testApp({ featureLevel: 277 });
  old = await testApp({ featureLevel: 122 });
  mid = await testApp({ featureLevel: 265 });
  log = new EventLog(t);
  ann = await t.createUser({ name: 'Ann Member' });
  ben = await t.createUser({ name: 'Ben Member' });
  mod = await t.createUser({ name: 'Mia Moderator', role: Role.MODERATOR });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  sys = await systemGroups(t);
});
after(async () => { await t.close(); await old.close(); await mid.close(); });

const patch = (app: TestApp, params: Record<string, unknown>, as?: TestUser) => app.api('PATCH', '/api/v1/realm', { as: as ?? app.owner, params });
const register = async (app: TestApp, as: TestUser) => assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm'] } }));
const dm = (as: TestUser, to: number[], app: TestApp = t) => app.api('POST', '/api/v1/messages', { as, params: { type: 'private', to: JSON.stringify(to), content: 'hi' } });
const createStream = (as: TestUser, name: string, inviteOnly: boolean) =>
  t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name }], invite_only: inviteOnly } });

test('register: the settings from their levels, the deprecated policies computed from them', async () => {
  const reg = await register(t, ann);
  assert.equal(reg.realm_can_create_public_channel_group, sys['role:members']);
  assert.equal(reg.realm_can_create_private_channel_group, sys['role:members']);
  assert.equal(reg.realm_direct_message_initiator_group, sys['role:everyone']);
  assert.equal(reg.realm_direct_message_permission_group, sys['role:everyone']);
  assert.equal(reg.realm_create_public_stream_policy, 1);
  assert.equal(reg.realm_create_private_stream_policy, 1);
  assert.ok(!('realm_private_message_policy' in reg));
  const at265 = await register(mid, mid.owner);
  assert.equal(typeof at265.realm_can_create_public_channel_group, 'number');
  assert.ok(!('realm_can_create_private_channel_group' in at265));
  assert.ok(!('realm_direct_message_initiator_group' in at265));
  assert.equal(at265.realm_private_message_policy, 1);
  const at122 = await register(old, old.owner);
  for (const k of ['can_create_public_channel_group', 'can_create_private_channel_group', 'direct_message_initiator_group', 'direct_message_permission_group']) {
    assert.ok(!(`realm_${k}` in at122), k);
  }
  assert.equal(at122.realm_create_public_stream_policy, 1);
  assert.equal(at122.realm_private_message_policy, 1);
});

test('PATCH /realm: stream creation groups, answer, events, the policy in step, and enforcement', async () => {
  log.clear();
  const body = assertOk(await patch(t, { can_create_public_channel_group: sys['role:moderators'] }));
  assert.equal(body.can_create_public_channel_group, sys['role:moderators']);
  const dict = log.one('realm', 'update_dict');
  assert.deepEqual(dict.event, { type: 'realm', op: 'update_dict', property: 'default', data: { can_create_public_channel_group: sys['role:moderators'] } });
  assert.ok(dict.userIds.includes(ann.id) && dict.userIds.includes(guest.id));
  assert.equal(log.one('realm', 'update').event.property, 'create_public_stream_policy');
  const reg = await register(t, ann);
  assert.equal(reg.realm_can_create_public_channel_group, sys['role:moderators']);
  assert.equal(reg.realm_create_public_stream_policy, 4);
  assert.equal(reg.can_create_public_streams, false);
  assertError(await createStream(ann, 'ann public', false), 'Insufficient permission');
  assertOk(await createStream(mod, 'mod public', false));
  // Private streams still follow their own setting.
  assertOk(await createStream(ann, 'ann private', true));
  assertOk(await patch(t, { can_create_private_channel_group: sys['role:administrators'] }));
  assertError(await createStream(mod, 'mod private', true), 'Insufficient permission');
  assertOk(await createStream(admin, 'admin private', true));
  assert.equal((await register(t, ann)).realm_create_private_stream_policy, 2);
  // The replaced policy still works, and moves the group.
  log.clear();
  assertOk(await patch(t, { create_public_stream_policy: 1, create_private_stream_policy: 1 }));
  assert.deepEqual(log.find('realm', 'update_dict').map((e) => e.event.data).sort((a, b) => Object.keys(a)[0]!.localeCompare(Object.keys(b)[0]!)),
    [{ can_create_private_channel_group: sys['role:members'] }, { can_create_public_channel_group: sys['role:members'] }]);
  assertOk(await createStream(ann, 'ann public', false));
});

test('PATCH /realm: group errors', async () => {
  assertError(await patch(t, { can_create_public_channel_group: sys['role:everyone'] }), "'can_create_public_channel_group' setting cannot be set to 'role:everyone' group.");
  assertError(await patch(t, { can_create_public_channel_group: sys['role:nobody'] }), "'can_create_public_channel_group' setting cannot be set to 'role:nobody' group.");
  assertError(await patch(t, { can_create_private_channel_group: sys['role:owners'] }), "'can_create_private_channel_group' setting cannot be set to 'role:owners' group.");
  assertError(await patch(t, { direct_message_permission_group: sys['role:internet'] }), "'direct_message_permission_group' setting cannot be set to 'role:internet' group.");
  assertError(await patch(t, { direct_message_initiator_group: 999999 }), 'Invalid user group');
  const team = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: ann, params: { name: 'team', description: '', members: [ann.id] } }));
  const teamId = (assertOk(await t.api('GET', '/api/v1/user_groups', { as: ann })).user_groups as Array<{ id: number; name: string }>).find((g) => g.name === 'team')!.id;
  assert.ok(team);
  assertError(await patch(t, { direct_message_initiator_group: teamId }), "'direct_message_initiator_group' must be a system user group.");
  assertError(await patch(t, { direct_message_initiator_group: sys['role:members'] }, ann), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assert.equal((await register(t, ann)).realm_direct_message_initiator_group, sys['role:everyone']);
});

test('direct messages from level 270: permission group and initiator group, Zulip 9\'s errors', async () => {
  const bot = await t.createBot(ann, { fullName: 'Helper Bot', shortName: 'helper' });
  assertOk(await patch(t, { direct_message_permission_group: sys['role:moderators'] }));
  assertError(await dm(ann, [ben.id]), 'This conversation does not include any users who can authorize it.');
  assertOk(await dm(ann, [mod.id]));
  assertOk(await dm(ann, [ben.id, mod.id]));
  assertOk(await dm(ann, [bot.id]));
  assertOk(await dm(ann, [ann.id]));
  assertOk(await dm(bot, [ben.id]));
  assertOk(await patch(t, { direct_message_permission_group: sys['role:nobody'] }));
  assertError(await dm(ann, [mod.id]), 'Direct messages are disabled in this organization.');
  assertOk(await dm(ann, [bot.id]));
  assertOk(await patch(t, { direct_message_permission_group: sys['role:everyone'] }));

  // Only members may start conversations: a guest may answer one, not start one.
  assertOk(await patch(t, { direct_message_initiator_group: sys['role:members'] }));
  assertError(await dm(guest, [ben.id]), 'You do not have permission to initiate direct message conversations.');
  assertError(await dm(guest, [ben.id, ann.id]), 'You do not have permission to initiate direct message conversations.');
  assertOk(await dm(ben, [guest.id]));
  assertOk(await dm(guest, [ben.id]));
  assertOk(await dm(ann, [guest.id, ben.id]));
  assertOk(await dm(guest, [ben.id, ann.id]));
  assertError(await dm(guest, [mod.id]), 'You do not have permission to initiate direct message conversations.');
  assertOk(await patch(t, { direct_message_initiator_group: sys['role:everyone'] }));
  assertOk(await dm(guest, [mod.id]));
});

test('level 122: private_message_policy as before; the groups, set there, keep it in step', async () => {
  const [o, p] = [await old.createUser({ name: 'Olga' }), await old.createUser({ name: 'Pete' })];
  const g = await systemGroups(old);
  assertOk(await patch(old, { private_message_policy: 2 }));
  assertError(await dm(o, [p.id], old), 'Private messages are disabled in this organization.');
  assertOk(await patch(old, { direct_message_permission_group: g['role:members'] }));
  assert.equal((await register(old, o)).realm_private_message_policy, 1);
  assertOk(await dm(o, [p.id], old));
  // The initiator group is not a level 122 rule.
  assertOk(await patch(old, { direct_message_initiator_group: g['role:nobody'] }));
  const q = await old.createUser({ name: 'Quinn' });
  assertOk(await dm(q, [o.id], old));
  // The answer names only what the level knows.
  const body = assertOk(await patch(old, { can_create_public_channel_group: g['role:administrators'] }));
  assert.deepEqual(Object.keys(body).filter((k) => k !== 'result' && k !== 'msg' && k !== 'ignored_parameters_unsupported'), ['create_public_stream_policy']);
  assert.equal(body.create_public_stream_policy, 2);
  assertError(await old.api('POST', '/api/v1/users/me/subscriptions', { as: o, params: { subscriptions: [{ name: 'olga' }] } }), 'Insufficient permission');
});
