import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { Role } from '../../src/lib/roles.js';

// Levels 280-367: realm permissions as group-setting values (named groups or anonymous
// groups from 309), the policies they replaced kept below their levels, old clients'
// policy parameters mapped onto them, and the checks (delete, move, topics, resolve, web-public).
let t: TestApp, old: TestApp, z9: TestApp;
let log: EventLog;
let ann: TestUser, ben: TestUser, mod: TestUser, admin: TestUser, guest: TestUser;
let sys: Record<string, number>;
let general: number, other: number;

const systemGroups = async (app: TestApp) => Object.fromEntries((await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name'])
  .where('is_system_group', '=', 1).where('realm_id', '=', app.owner.row.realm_id).execute()).map((g) => [g.name, g.id]));

before(async () => {
  t = await testApp({ featureLevel: 371 });
  old = await testApp({ featureLevel: 122 });
  z9 = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  ann = await t.createUser({ name: 'Ann Member' });
  ben = await t.createUser({ name: 'Ben Member' });
  mod = await t.createUser({ name: 'Mia Moderator', role: Role.MODERATOR });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  sys = await systemGroups(t);
  const s = await createStreams(t, { general: [ann, ben, mod, admin, guest], other: [ann, ben, mod, admin] });
  general = s.general.id;
  other = s.other.id;
});
after(async () => { await t.close(); await old.close(); await z9.close(); });

const patch = (app: TestApp, params: Record<string, unknown>, as?: TestUser) => app.api('PATCH', '/api/v1/realm', { as: as ?? app.owner, params });
const register = async (app: TestApp, as: TestUser) => assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm'] } }));
const post = (as: TestUser, topic = 'perms') => sendMessage(t, as, { type: 'stream', to: 'general', topic, content: 'hello' });
const del = (as: TestUser, id: number) => t.api('DELETE', `/api/v1/messages/${id}`, { as });
const edit = (as: TestUser, id: number, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/messages/${id}`, { as, params });
const anon = (members: number[], subgroups: number[]) => ({ direct_members: members, direct_subgroups: subgroups });

const NEW_SETTINGS: Record<string, [number, string]> = {
  can_create_web_public_channel_group: [280, 'role:owners'],
  can_delete_any_message_group: [281, 'role:administrators'],
  can_delete_own_message_group: [291, 'role:members'], // Parley's delete_own_message_policy default (members)
  can_move_messages_between_channels_group: [310, 'role:administrators'], // Parley's move_messages_between_streams_policy default
  can_move_messages_between_topics_group: [316, 'role:everyone'],
  can_resolve_topics_group: [367, 'role:everyone'],
};

test('register: each setting from its level, its default group; the replaced policies until their levels', async () => {
  const reg = await register(t, ann);
  for (const [name, [, group]] of Object.entries(NEW_SETTINGS)) assert.equal(reg[`realm_${name}`], sys[group], name);
  assert.equal(reg.realm_create_web_public_stream_policy, 7, 'deprecated, kept');
  for (const gone of ['delete_own_message_policy', 'move_messages_between_streams_policy', 'edit_topic_policy']) assert.ok(!(`realm_${gone}` in reg), gone);
  const at277 = await register(z9, z9.owner);
  for (const name of Object.keys(NEW_SETTINGS)) assert.ok(!(`realm_${name}` in at277), name);
  assert.equal(at277.realm_delete_own_message_policy, 1);
  assert.equal(at277.realm_move_messages_between_streams_policy, 2);
  assert.equal(at277.realm_edit_topic_policy, 5);
  const at122 = await register(old, old.owner);
  assert.equal(at122.realm_create_web_public_stream_policy, 7);
  assert.ok(!('realm_can_delete_any_message_group' in at122));
});

test('register: server_supported_permission_settings (level 326 drops allow_owners_group and id_field_name)', async () => {
  const realm = (await register(t, ann)).server_supported_permission_settings.realm;
  for (const name of Object.keys(NEW_SETTINGS)) assert.ok(name in realm, name);
  assert.deepEqual(realm.can_delete_own_message_group, {
    require_system_group: false, allow_internet_group: false, allow_nobody_group: true, allow_everyone_group: true,
    default_group_name: 'role:everyone', default_for_system_groups: null, allowed_system_groups: [],
  });
  assert.equal(realm.can_create_web_public_channel_group.require_system_group, true);
  const at277 = (await register(z9, z9.owner)).server_supported_permission_settings.realm;
  assert.ok(!('can_delete_own_message_group' in at277));
  assert.equal(at277.can_create_public_channel_group.id_field_name, 'can_create_public_channel_group_id');
  assert.equal(at277.can_create_public_channel_group.allow_owners_group, false);
  assert.equal(at277.can_create_public_channel_group.require_system_group, true);
});

test('PATCH /realm: an anonymous group (level 309), its answer, update_dict to everyone, register, and {new, old}', async () => {
  log.clear();
  const value = anon([ben.id, ann.id], [sys['role:moderators']!]);
  const body = assertOk(await patch(t, { can_delete_own_message_group: JSON.stringify(value) }));
  const want = anon([ann.id, ben.id].sort((a, b) => a - b), [sys['role:moderators']!]);
  assert.deepEqual(body.can_delete_own_message_group, want);
  const ev = log.one('realm', 'update_dict');
  assert.deepEqual(ev.event, { type: 'realm', op: 'update_dict', property: 'default', data: { can_delete_own_message_group: want } });
  for (const u of [ann, ben, mod, admin, guest]) assert.ok(ev.userIds.includes(u.id));
  assert.equal(log.find('realm', 'update').length, 0, 'delete_own_message_policy is no longer announced from level 291');
  assert.deepEqual((await register(t, ann)).realm_can_delete_own_message_group, want);
  // A stale `old` is refused; the right one is taken; a one-subgroup group is that group.
  assertError(await patch(t, { can_delete_own_message_group: JSON.stringify({ new: sys['role:members'], old: sys['role:everyone'] }) }),
    "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
  assertOk(await patch(t, { can_delete_own_message_group: JSON.stringify({ new: anon([], [sys['role:members']!]), old: want }) }));
  assert.equal((await register(t, ann)).realm_can_delete_own_message_group, sys['role:members']);
  // Unchanged: nothing to announce.
  log.clear();
  assert.ok(!('can_delete_own_message_group' in assertOk(await patch(t, { can_delete_own_message_group: sys['role:members'] }))));
  assert.equal(log.find('realm', 'update_dict').length, 0);
});

test('PATCH /realm: Zulip\'s errors for group-setting values', async () => {
  assertError(await patch(t, { can_delete_own_message_group: JSON.stringify(anon([ann.id], [999_999])) }), 'Invalid user group ID: 999999');
  assertError(await patch(t, { can_delete_own_message_group: 999_999 }), 'Invalid user group');
  assertError(await patch(t, { can_delete_own_message_group: '"nope"' }), 'Invalid can_delete_own_message_group');
  assertError(await patch(t, { can_create_web_public_channel_group: JSON.stringify(anon([ann.id], [])) }),
    "'can_create_web_public_channel_group' must be a system user group.");
  assertError(await patch(t, { can_create_web_public_channel_group: sys['role:members'] }),
    "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.");
  assertError(await patch(t, { can_move_messages_between_channels_group: sys['role:everyone'] }),
    "'can_move_messages_between_channels_group' setting cannot be set to 'role:everyone' group.");
  assertError(await patch(t, { can_delete_any_message_group: sys['role:moderators'] }, ann), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  // Below level 309 only system groups, as Zulip 9 took them in production.
  const zsys = await systemGroups(z9);
  assertError(await patch(z9, { can_create_public_channel_group: JSON.stringify(anon([z9.owner.id], [])) }),
    "'can_create_public_channel_group' must be a system user group.");
  assertError(await patch(z9, { create_multiuse_invite_group: JSON.stringify(anon([z9.owner.id], [])) }),
    "'create_multiuse_invite_group' must be a system user group.");
  assertOk(await patch(z9, { can_create_public_channel_group: zsys['role:members'] }));
  // Authentication.
  assert.equal((await t.api('PATCH', '/api/v1/realm', { as: null, params: { can_resolve_topics_group: sys['role:members'] } })).status, 401);
});

test('create_multiuse_invite_group and can_access_all_users_group are group-setting values (level 314)', async () => {
  const value = anon([ann.id], [sys['role:administrators']!]);
  assert.deepEqual(assertOk(await patch(t, { create_multiuse_invite_group: JSON.stringify(value) })).create_multiuse_invite_group, value);
  assert.deepEqual((await register(t, ann)).realm_create_multiuse_invite_group, value);
  assertOk(await t.api('POST', '/api/v1/invites/multiuse', { as: ann, params: { invite_expires_in_minutes: 60 } }));
  assertError(await t.api('POST', '/api/v1/invites/multiuse', { as: ben, params: { invite_expires_in_minutes: 60 } }), 'Insufficient permission');
  assertOk(await patch(t, { create_multiuse_invite_group: sys['role:administrators'] }));
  assertError(await patch(t, { can_access_all_users_group: JSON.stringify(anon([ann.id], [])) }), "'can_access_all_users_group' must be a system user group.");
  assert.equal((await register(t, ann)).realm_can_access_all_users_group, sys['role:everyone']);
});

test('deleting: can_delete_own_message_group (291) and can_delete_any_message_group (281)', async () => {
  assertOk(await patch(t, { can_delete_own_message_group: JSON.stringify(anon([ann.id], [])) }));
  const a = await post(ann);
  const b = await post(ben);
  assertError(await del(ben, b), "You don't have permission to delete this message");
  assertOk(await del(ann, a));
  // Administrators by default delete anything; the setting moves that to moderators.
  const c = await post(ben);
  assertError(await del(mod, c), "You don't have permission to delete this message");
  assertOk(await patch(t, { can_delete_any_message_group: sys['role:moderators'] }));
  assertOk(await del(mod, c));
  assertOk(await patch(t, { can_delete_any_message_group: sys['role:owners'] }));
  const d = await post(ben);
  assertError(await del(admin, d), "You don't have permission to delete this message");
  assertOk(await del(t.owner, d));
  assertOk(await patch(t, { can_delete_any_message_group: sys['role:administrators'], can_delete_own_message_group: sys['role:members'] }));
});

test('moving between channels: can_move_messages_between_channels_group (310)', async () => {
  assertOk(await patch(t, { can_move_messages_between_channels_group: JSON.stringify(anon([ann.id], [])) }));
  const a = await post(ann, 'move-a');
  assertOk(await edit(ann, a, { stream_id: other }));
  const b = await post(ben, 'move-b');
  assertError(await edit(ben, b, { stream_id: other }), "You don't have permission to move this message");
  assertOk(await patch(t, { can_move_messages_between_channels_group: sys['role:administrators'] }));
  assertError(await edit(ann, await post(ann, 'move-c'), { stream_id: other }), "You don't have permission to move this message");
  void general;
});

test('topics: can_move_messages_between_topics_group (316) and can_resolve_topics_group (367)', async () => {
  assertOk(await patch(t, { can_move_messages_between_topics_group: sys['role:moderators'] }));
  const a = await post(ann, 'tidy');
  assertError(await edit(ann, a, { topic: 'renamed' }), "You don't have permission to edit this message");
  assertOk(await edit(mod, a, { topic: 'renamed' }));
  // Resolving is can_resolve_topics_group's (everyone by default), not the move permission's.
  assertOk(await edit(ann, a, { topic: '\u2714 renamed' }));
  assertOk(await edit(ann, a, { topic: 'renamed' }));
  assertOk(await patch(t, { can_resolve_topics_group: JSON.stringify(anon([ben.id], [])) }));
  assertError(await edit(ann, a, { topic: '\u2714 renamed' }), "You don't have permission to resolve topics.");
  assertOk(await edit(ben, a, { topic: '\u2714 renamed' }));
  assertOk(await patch(t, { can_move_messages_between_topics_group: sys['role:everyone'], can_resolve_topics_group: sys['role:everyone'] }));
});

test('web-public channels: can_create_web_public_channel_group (280)', async () => {
  assertOk(await patch(t, { enable_spectator_access: true }));
  const create = (as: TestUser, name: string) => t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name }], is_web_public: true } });
  assertError(await create(admin, 'web admin'), 'Insufficient permission');
  assertOk(await patch(t, { can_create_web_public_channel_group: sys['role:moderators'] }));
  assertOk(await create(mod, 'web mod'));
  assertError(await create(ann, 'web ann'), 'Insufficient permission');
  const reg = await register(t, mod);
  assert.equal(reg.can_create_web_public_streams, true);
  assert.equal(reg.realm_create_web_public_stream_policy, 4, 'the deprecated policy follows the group');
  assertOk(await patch(t, { can_create_web_public_channel_group: sys['role:owners'], enable_spectator_access: false }));
});

test('old clients: the policy parameters set the groups; events and register of their level', async () => {
  // At 371, a policy parameter sets the group and is announced as the group only.
  log.clear();
  const body = assertOk(await patch(t, { edit_topic_policy: 4, delete_own_message_policy: 2, create_web_public_stream_policy: 2 }));
  assert.equal(body.can_move_messages_between_topics_group, sys['role:moderators']);
  assert.equal(body.can_delete_own_message_group, sys['role:administrators']);
  assert.equal(body.can_create_web_public_channel_group, sys['role:administrators']);
  assert.ok(!('edit_topic_policy' in body));
  assert.equal(log.find('realm', 'update').length, 0);
  assert.equal(log.find('realm', 'update_dict').length, 3);
  const a = await post(ann, 'old-client');
  assertError(await edit(ann, a, { topic: 'moved' }), "You don't have permission to edit this message");
  assertError(await del(ann, a), "You don't have permission to delete this message");
  assertOk(await patch(t, { edit_topic_policy: 5, delete_own_message_policy: 1, create_web_public_stream_policy: 7 }));
  assert.equal((await register(t, ann)).realm_can_move_messages_between_topics_group, sys['role:everyone']);

  // At 122: the policy as before, realm/update events, register's policy; the group is what is checked.
  const oldLog = new EventLog(old);
  const member = await old.createUser({ name: 'Old Member' });
  await createStreams(old, { lobby: [member] });
  const body122 = assertOk(await patch(old, { delete_own_message_policy: 2, move_messages_between_streams_policy: 1 }));
  assert.equal(body122.delete_own_message_policy, 2);
  assert.ok(!('can_delete_own_message_group' in body122));
  assert.deepEqual(oldLog.find('realm', 'update').map((e) => e.event.property).sort(), ['delete_own_message_policy', 'move_messages_between_streams_policy']);
  assert.equal(oldLog.find('realm', 'update_dict').length, 0);
  const reg = await register(old, member);
  assert.equal(reg.realm_delete_own_message_policy, 2);
  assert.equal(reg.realm_move_messages_between_streams_policy, 1);
  const id = await sendMessage(old, member, { type: 'stream', to: 'lobby', topic: 'x', content: 'mine' });
  assertError(await old.api('DELETE', `/api/v1/messages/${id}`, { as: member }), "You don't have permission to delete this message");
  assertOk(await patch(old, { delete_own_message_policy: 1 }));
  assertOk(await old.api('DELETE', `/api/v1/messages/${id}`, { as: member }));
});

test('below level 367 resolving a topic follows the topic move permission', async () => {
  const zsys = await systemGroups(z9);
  const member = await z9.createUser({ name: 'Zed Member' });
  await createStreams(z9, { lobby: [member] });
  assertOk(await patch(z9, { edit_topic_policy: 4 }));
  const id = await sendMessage(z9, member, { type: 'stream', to: 'lobby', topic: 'done', content: 'x' });
  assertError(await z9.api('PATCH', `/api/v1/messages/${id}`, { as: member, params: { topic: '\u2714 done' } }), "You don't have permission to edit this message");
  assertOk(await patch(z9, { edit_topic_policy: 5 }));
  assertOk(await z9.api('PATCH', `/api/v1/messages/${id}`, { as: member, params: { topic: '\u2714 done' } }));
  void zsys;
});
