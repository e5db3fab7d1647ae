import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// can_mention_group (feature level 198; can_mention_group_id at 191-197): on group objects,
// a parameter of POST /user_groups/create and PATCH /user_groups/{id}, with user_group update
// events, and who may mention the group (Zulip's check_user_group_mention_allowed).
let t: TestApp, mid: TestApp;
let log: EventLog;
let ann: TestUser, ben: TestUser, mod: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  mid = await testApp({ featureLevel: 195 });
  log = new EventLog(t);
  ann = await t.createUser({ name: 'Ann Member' });
  ben = await t.createUser({ name: 'Ben Member' });
  mod = await t.createUser({ name: 'Mia Moderator', role: Role.MODERATOR });
});
after(async () => { await t.close(); await mid.close(); });

const sys = async (app: TestApp) => Object.fromEntries((await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name'])
  .where('is_system_group', '=', 1).where('realm_id', '=', app.owner.row.realm_id).execute()).map((g) => [g.name, g.id]));
const groupsOf = async (app: TestApp, as: TestUser) => assertOk(await app.api('GET', '/api/v1/user_groups', { as })).user_groups as Array<Record<string, any>>;
const create = (app: TestApp, as: TestUser, name: string, extra: Record<string, unknown> = {}) =>
  app.api('POST', '/api/v1/user_groups/create', { as, params: { name, description: '', members: [ann.id], ...extra } });
const send = (as: TestUser, content: string) => t.api('POST', '/api/v1/messages', { as, params: { type: 'private', to: JSON.stringify([ann.id]), content } });

test('the field, its default and the parameters by either name', async () => {
  const g = await sys(t);
  assertOk(await create(t, ann, 'default-team'));
  const team = (await groupsOf(t, ben)).find((x) => x.name === 'default-team')!;
  assert.equal(team.can_mention_group, g['role:everyone']);
  assert.ok(!('can_mention_group_id' in team));
  log.clear();
  assertOk(await create(t, ann, 'mods-only', { can_mention_group: g['role:moderators'] }));
  assert.equal(log.one('user_group', 'add').event.group.can_mention_group, g['role:moderators']);
  assertOk(await create(t, ann, 'old-param', { can_mention_group_id: g['role:members'] }));
  assert.equal((await groupsOf(t, ben)).find((x) => x.name === 'old-param')!.can_mention_group, g['role:members']);
  // Zulip's checks of the setting; a refused request creates nothing.
  assertError(await create(t, ann, 'bad', { can_mention_group: g['role:owners'] }), "'can_mention_group' setting cannot be set to 'role:owners' group.");
  assertError(await create(t, ann, 'bad', { can_mention_group: g['role:internet'] }), "'can_mention_group' setting cannot be set to 'role:internet' group.");
  assertError(await create(t, ann, 'bad', { can_mention_group: 987654 }), 'Invalid user group');
  assert.ok(!(await groupsOf(t, ben)).some((x) => x.name === 'bad'));
  // Any group may be the setting, a user-made one too.
  assertOk(await create(t, ann, 'by-team', { can_mention_group: team.id }));

  const m = await sys(mid);
  const owner = mid.owner;
  assertOk(await mid.api('POST', '/api/v1/user_groups/create', { as: owner, params: { name: 'mid-team', description: '', members: [owner.id] } }));
  const midTeam = (await groupsOf(mid, owner)).find((x) => x.name === 'mid-team')!;
  assert.equal(midTeam.can_mention_group_id, m['role:everyone']);
  assert.ok(!('can_mention_group' in midTeam));
});

test('PATCH: the setting changes with an update event named by the level; no new data; checks', async () => {
  const g = await sys(t);
  assertOk(await create(t, ann, 'patch-me'));
  const id = (await groupsOf(t, ben)).find((x) => x.name === 'patch-me')!.id;
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/user_groups/${id}`, { as: ann, params: { can_mention_group: g['role:moderators'] } }));
  const e = log.one('user_group', 'update');
  assert.deepEqual(e.event, { type: 'user_group', op: 'update', group_id: id, data: { can_mention_group: g['role:moderators'] } });
  assert.ok(e.userIds.includes(ben.id));
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/user_groups/${id}`, { as: ann, params: { can_mention_group_id: g['role:moderators'] } }));
  assert.deepEqual(log.find('user_group', 'update'), []);
  assertError(await t.api('PATCH', `/api/v1/user_groups/${id}`, { as: ann, params: { can_mention_group: g['role:owners'] } }), "'can_mention_group' setting cannot be set to 'role:owners' group.");
  assertError(await t.api('PATCH', `/api/v1/user_groups/${id}`, { as: ann, params: {} }), 'No new data supplied');

  const owner = mid.owner;
  assertOk(await mid.api('POST', '/api/v1/user_groups/create', { as: owner, params: { name: 'mid-patch', description: '', members: [] } }));
  const midId = (await groupsOf(mid, owner)).find((x) => x.name === 'mid-patch')!.id;
  const midLog = new EventLog(mid);
  assertOk(await mid.api('PATCH', `/api/v1/user_groups/${midId}`, { as: owner, params: { can_mention_group: (await sys(mid))['role:members'] } }));
  assert.deepEqual(midLog.one('user_group', 'update').event.data, { can_mention_group_id: (await sys(mid))['role:members'] });
});

test('mentions: only members of can_mention_group may mention the group; silent mentions always', async () => {
  const g = await sys(t);
  assertOk(await create(t, ann, 'guarded', { can_mention_group: g['role:moderators'] }));
  assertError(await send(ben, 'hello @*guarded*'), "You are not allowed to mention user group 'guarded'.");
  assertOk(await send(ben, 'hello @_*guarded*'));
  assertOk(await send(mod, 'hello @*guarded*'));
  assertOk(await send(t.owner, 'hello @*guarded*'));
  // Editing into a mention is checked the same way.
  const sent = assertOk(await send(ben, 'plain'));
  assertError(await t.api('PATCH', `/api/v1/messages/${sent.id}`, { as: ben, params: { content: 'now @*guarded*' } }), "You are not allowed to mention user group 'guarded'.");
  // Below level 258 Zulip names the group needed.
  const owner = mid.owner;
  const member = await mid.createUser({ name: 'Mid Member' });
  assertOk(await mid.api('POST', '/api/v1/user_groups/create', { as: owner, params: { name: 'mid-guarded', description: '', members: [owner.id], can_mention_group_id: (await sys(mid))['role:administrators'] } }));
  assertError(await mid.api('POST', '/api/v1/messages', { as: member, params: { type: 'private', to: JSON.stringify([owner.id]), content: 'hi @*mid-guarded*' } }),
    "You are not allowed to mention user group 'mid-guarded'. You must be a member of 'role:administrators' to mention this group.");
});

test('register: server_supported_permission_settings from level 221, Zulip\'s values for the settings Parley has', async () => {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: ann, params: { fetch_event_types: ['realm'] } }));
  assert.deepEqual(reg.server_supported_permission_settings, {
    realm: reg.server_supported_permission_settings.realm, // its settings: test/realm/realm-group-settings.test.ts and invite-and-access-groups.test.ts
    stream: {
      can_remove_subscribers_group: {
        require_system_group: true, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: false, allow_everyone_group: true,
        default_group_name: 'role:administrators', id_field_name: 'can_remove_subscribers_group_id', default_for_system_groups: null, allowed_system_groups: [],
      },
    },
    group: {
      can_mention_group: {
        require_system_group: false, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: true,
        default_group_name: 'role:everyone', id_field_name: 'can_mention_group_id', default_for_system_groups: 'role:nobody', allowed_system_groups: [],
      },
    },
  });
  const below = assertOk(await mid.api('POST', '/api/v1/register', { as: mid.owner, params: { fetch_event_types: ['realm'] } }));
  assert.ok(!('server_supported_permission_settings' in below));
});
