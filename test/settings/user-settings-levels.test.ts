import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

/**
 * Personal settings of later feature levels: display_emoji_reaction_users (125) and
 * user_list_style (141). Taken by PATCH /settings and PATCH /realm/user_settings_defaults
 * at any level; shown by register only from their level, never among the legacy keys.
 */
const NEW = { display_emoji_reaction_users: { since: 125, default: true, other: false }, user_list_style: { since: 141, default: 2, other: 3 } };

const apps: TestApp[] = [];
let latest: TestApp;
let spec: TestApp;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  latest = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  apps.push(latest, spec);
});

const register = async (t: TestApp, as: TestUser, params: Record<string, unknown> = {}) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['user_settings', 'realm_user_settings_defaults', 'update_display_settings', 'update_global_notifications'], ...params } }));

test('at 277 register has the settings, with Zulip\'s defaults, in user_settings and the organization defaults; never as legacy keys', async () => {
  const user = await latest.createUser({ name: 'Lena Latest' });
  const modern = await register(latest, user, { client_capabilities: { user_settings_object: true } });
  const legacy = await register(latest, user, { client_capabilities: {} });
  for (const [name, s] of Object.entries(NEW)) {
    assert.equal(modern.user_settings[name], s.default, name);
    assert.equal(modern.realm_user_settings_defaults[name], s.default, name);
    assert.equal(name in legacy, false, `legacy ${name}`);
    assert.equal(legacy.user_settings[name], s.default, name);
  }
});

test('at 122 register leaves them out, and PATCH still takes them', async () => {
  const user = await spec.createUser({ name: 'Sam Spec' });
  const before = await register(spec, user, { client_capabilities: {} });
  for (const name of Object.keys(NEW)) {
    assert.equal(name in before.user_settings, false, name);
    assert.equal(name in before.realm_user_settings_defaults, false, name);
    assert.equal(name in before, false, name);
  }
  const r = assertOk(await spec.api('PATCH', '/api/v1/settings', { as: user, params: { display_emoji_reaction_users: false, user_list_style: 1 } }));
  assert.equal('ignored_parameters_unsupported' in r, false);
  assertOk(await spec.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { display_emoji_reaction_users: false } }));
});

test('PATCH /settings: changes, checks and events to the user\'s own clients only (no legacy event)', async () => {
  const [me, other] = [await latest.createUser({ name: 'Pat Patcher' }), await latest.createUser({ name: 'Oli Other' })];
  const log = new EventLog(latest);
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { display_emoji_reaction_users: false, user_list_style: 3 } }));
  const ev = log.find('user_settings', 'update');
  assert.deepEqual(ev.map((e) => [e.event.property, e.event.value]).sort(), [['display_emoji_reaction_users', false], ['user_list_style', 3]]);
  for (const e of ev) assert.deepEqual(e.userIds, [me.id]);
  assert.equal(log.find('update_display_settings').length + log.find('update_global_notifications').length, 0);
  const after = (await register(latest, me)).user_settings;
  assert.equal(after.display_emoji_reaction_users, false);
  assert.equal(after.user_list_style, 3);
  assert.equal((await register(latest, other)).user_settings.display_emoji_reaction_users, true);
  // Unchanged values send nothing.
  log.clear();
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { display_emoji_reaction_users: false } }));
  assert.equal(log.find('user_settings').length, 0);

  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { display_emoji_reaction_users: 'yes' } }), 'Argument "display_emoji_reaction_users" is not valid JSON.');
  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { display_emoji_reaction_users: 3 } }), 'display_emoji_reaction_users is not a boolean');
  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { user_list_style: 4 } }), 'Invalid user_list_style');
  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { user_list_style: '"big"' } }), 'user_list_style is not an integer');
  assertUnauthenticated(await latest.api('PATCH', '/api/v1/settings', { as: null, params: { display_emoji_reaction_users: true } }));
});

test('PATCH /realm/user_settings_defaults: event to every user, register follows, new users start with them', async () => {
  const member = await latest.createUser({ name: 'Mia Member' });
  const log = new EventLog(latest);
  assertOk(await latest.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { display_emoji_reaction_users: false, user_list_style: 1 } }));
  const ev = log.find('realm_user_settings_defaults', 'update');
  assert.deepEqual(ev.map((e) => [e.event.property, e.event.value]).sort(), [['display_emoji_reaction_users', false], ['user_list_style', 1]]);
  for (const e of ev) assert.ok(e.userIds.includes(member.id) && e.userIds.includes(latest.owner.id));
  const defaults = (await register(latest, member)).realm_user_settings_defaults;
  assert.equal(defaults.display_emoji_reaction_users, false);
  assert.equal(defaults.user_list_style, 1);
  assert.equal((await register(latest, member)).user_settings.display_emoji_reaction_users, true, 'existing users keep theirs');
  const newcomer = await latest.createUser({ name: 'Nico Newcomer' });
  const mine = (await register(latest, newcomer)).user_settings;
  assert.equal(mine.display_emoji_reaction_users, false);
  assert.equal(mine.user_list_style, 1);
  assertError(await latest.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { user_list_style: 0 } }), 'Invalid user_list_style');
  assertError(await latest.api('PATCH', '/api/v1/realm/user_settings_defaults', { as: member, params: { display_emoji_reaction_users: true } }),
    'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  // Put back for the other tests.
  assertOk(await latest.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { display_emoji_reaction_users: true, user_list_style: 2 } }));
});
