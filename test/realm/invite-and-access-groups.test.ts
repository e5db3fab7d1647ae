import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// Realm group settings: create_multiuse_invite_group (feature level 209: who may make reusable
// invitation links) and can_access_all_users_group (225), by PATCH /realm, in register and
// realm/update_dict events; who makes and revokes links; invites_changed to the creator.
let t: TestApp, old: TestApp;
let log: EventLog;
let admin: TestUser, mod: TestUser, member: TestUser, other: TestUser, guest: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  old = await testApp({ featureLevel: 122 });
  log = new EventLog(t);
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  mod = await t.createUser({ name: 'Mo Moderator', role: Role.MODERATOR });
  member = await t.createUser({ name: 'Mem Member' });
  other = await t.createUser({ name: 'Oth Member' });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
});
after(async () => { await t.close(); await old.close(); });

const sys = async (app: TestApp) => Object.fromEntries((await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name'])
  .where('is_system_group', '=', 1).where('realm_id', '=', app.owner.row.realm_id).execute()).map((g) => [g.name, g.id]));
const register = async (app: TestApp, as: TestUser) => assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm'] } }));
const patch = (app: TestApp, as: TestUser, params: Record<string, unknown>) => app.api('PATCH', '/api/v1/realm', { as, params });
const makeLink = (app: TestApp, as: TestUser, params: Record<string, unknown> = {}) => app.api('POST', '/api/v1/invites/multiuse', { as, params });
const linkId = async (app: TestApp, as: TestUser, link: string) =>
  (assertOk(await app.api('GET', '/api/v1/invites', { as })).invites as Array<{ id: number; link_url?: string }>).find((i) => i.link_url === link)!.id;

test('register: the settings and their defaults from their levels, none at 122', async () => {
  const g = await sys(t);
  const reg = await register(t, member);
  assert.equal(reg.realm_create_multiuse_invite_group, g['role:administrators']);
  assert.equal(reg.realm_can_access_all_users_group, g['role:everyone']);
  const realm = reg.server_supported_permission_settings.realm;
  // Beside levels 264-270's settings (test/realm/realm-group-settings.test.ts).
  assert.deepEqual(Object.keys(realm).sort(), ['can_access_all_users_group', 'can_create_private_channel_group', 'can_create_public_channel_group',
    'create_multiuse_invite_group', 'direct_message_initiator_group', 'direct_message_permission_group']);
  assert.deepEqual(realm.create_multiuse_invite_group, {
    require_system_group: true, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: false,
    default_group_name: 'role:administrators', id_field_name: 'create_multiuse_invite_group_id', default_for_system_groups: null, allowed_system_groups: [],
  });
  assert.deepEqual(realm.can_access_all_users_group.allowed_system_groups, ['role:everyone']);
  const below = await register(old, old.owner);
  assert.ok(!('realm_create_multiuse_invite_group' in below) && !('realm_can_access_all_users_group' in below));
});

test('PATCH /realm create_multiuse_invite_group: owners only, a system group, Zulip\'s refusals, update_dict to everyone', async () => {
  const g = await sys(t);
  assertError(await patch(t, admin, { create_multiuse_invite_group: g['role:members'] }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await patch(t, member, { create_multiuse_invite_group: g['role:members'] }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await patch(t, t.owner, { create_multiuse_invite_group: 999999 }), 'Invalid user group');
  for (const name of ['role:everyone', 'role:internet', 'role:owners']) {
    assertError(await patch(t, t.owner, { create_multiuse_invite_group: g[name] }), `'create_multiuse_invite_group' setting cannot be set to '${name}' group.`);
  }
  const team = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: t.owner, params: { name: 'inviters', description: '', members: [member.id] } }));
  void team;
  const teamId = (assertOk(await t.api('GET', '/api/v1/user_groups', { as: t.owner })).user_groups as Array<{ id: number; name: string }>).find((x) => x.name === 'inviters')!.id;
  assertError(await patch(t, t.owner, { create_multiuse_invite_group: teamId }), "'create_multiuse_invite_group' must be a system user group.");
  log.clear();
  const r = assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:members'] }));
  assert.equal(r.create_multiuse_invite_group, g['role:members']);
  const e = log.one('realm', 'update_dict');
  assert.deepEqual(e.event, { type: 'realm', op: 'update_dict', property: 'default', data: { create_multiuse_invite_group: g['role:members'] } });
  assert.ok(e.userIds.includes(guest.id) && e.userIds.includes(member.id));
  assert.equal((await register(t, member)).realm_create_multiuse_invite_group, g['role:members']);
  // The same value again: nothing changes, nothing is sent.
  log.clear();
  const same = assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:members'] }));
  assert.ok(!('create_multiuse_invite_group' in same));
  assert.equal(log.events.filter((x) => x.event.type === 'realm').length, 0);
  assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:administrators'] }));
});

test('PATCH /realm can_access_all_users_group: role:everyone only', async () => {
  const g = await sys(t);
  assertError(await patch(t, t.owner, { can_access_all_users_group: g['role:members'] }), "'can_access_all_users_group' setting cannot be set to 'role:members' group.");
  assertError(await patch(t, t.owner, { can_access_all_users_group: g['role:nobody'] }), "'can_access_all_users_group' setting cannot be set to 'role:nobody' group.");
  log.clear();
  const r = assertOk(await patch(t, admin, { can_access_all_users_group: g['role:everyone'] }));
  assert.ok(!('can_access_all_users_group' in r));
  assert.equal(log.events.filter((x) => x.event.type === 'realm').length, 0);
});

test('POST /invites/multiuse: the group\'s members; invites_changed to administrators and the creator', async () => {
  const g = await sys(t);
  assertError(await makeLink(t, member), 'Insufficient permission');
  assertError(await makeLink(t, guest), 'Not allowed for guest users');
  assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:members'] }));
  assertError(await makeLink(t, guest), 'Not allowed for guest users');
  assertError(await makeLink(t, member, { invite_as: Role.MODERATOR }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await makeLink(t, member, { invite_as: Role.OWNER }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  log.clear();
  const link = assertOk(await makeLink(t, member)).invite_link as string;
  const sent = log.one('invites_changed');
  assert.ok(sent.userIds.includes(member.id) && sent.userIds.includes(admin.id) && sent.userIds.includes(t.owner.id));
  assert.ok(!sent.userIds.includes(other.id) && !sent.userIds.includes(mod.id) && !sent.userIds.includes(guest.id));
  const id = await linkId(t, member, link);
  // Another member may not revoke it; its creator and administrators may.
  assertError(await t.api('DELETE', `/api/v1/invites/multiuse/${id}`, { as: other }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  log.clear();
  assertOk(await t.api('DELETE', `/api/v1/invites/multiuse/${id}`, { as: member }));
  const revoked = log.one('invites_changed');
  assert.ok(revoked.userIds.includes(member.id) && !revoked.userIds.includes(other.id));
  const second = await linkId(t, member, assertOk(await makeLink(t, member)).invite_link as string);
  log.clear();
  assertOk(await t.api('DELETE', `/api/v1/invites/multiuse/${second}`, { as: admin }));
  assert.ok(log.one('invites_changed').userIds.includes(member.id));
  // Back to administrators: members may no longer make links.
  assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:administrators'] }));
  assertError(await makeLink(t, member), 'Insufficient permission');
  // Nobody: not even administrators.
  assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:nobody'] }));
  assertError(await makeLink(t, admin), 'Insufficient permission');
  assertOk(await patch(t, t.owner, { create_multiuse_invite_group: g['role:administrators'] }));
  assertOk(await makeLink(t, admin));
});

test('level 122: administrators only, with Zulip 5\'s error, whatever the setting', async () => {
  const member122 = await old.createUser({ name: 'Old Member' });
  assertError(await makeLink(old, member122), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const link = assertOk(await makeLink(old, old.owner)).invite_link as string;
  const id = await linkId(old, old.owner, link);
  assertError(await old.api('DELETE', `/api/v1/invites/multiuse/${id}`, { as: member122 }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertOk(await old.api('DELETE', `/api/v1/invites/multiuse/${id}`, { as: old.owner }));
});
