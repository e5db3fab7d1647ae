import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

/**
 * Personal settings of Zulip 10: allow_private_data_export (293), web_suggest_update_timezone
 * (329); dense_mode removed (364), when new users' density defaults became 16 px / 140%.
 */
const apps: TestApp[] = [];
let at371: TestApp;
let at277: TestApp;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  at371 = await testApp({ featureLevel: 371 });
  at277 = await testApp({ featureLevel: 277 });
  apps.push(at371, at277);
});

const register = async (t: TestApp, as: TestUser) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['user_settings', 'realm_user_settings_defaults'], client_capabilities: { user_settings_object: true } } }));

test('293/329 at 371: in user_settings and the organization defaults with Zulip\'s defaults; PATCH changes them with an event to the user only', async () => {
  const me = await at371.createUser({ name: 'Ada Export' });
  const other = await at371.createUser({ name: 'Otto Other' });
  const state = await register(at371, me);
  assert.equal(state.user_settings.allow_private_data_export, false);
  assert.equal(state.user_settings.web_suggest_update_timezone, true);
  assert.equal(state.realm_user_settings_defaults.allow_private_data_export, false);
  assert.equal(state.realm_user_settings_defaults.web_suggest_update_timezone, true);
  const log = new EventLog(at371);
  assertOk(await at371.api('PATCH', '/api/v1/settings', { as: me, params: { allow_private_data_export: true, web_suggest_update_timezone: false } }));
  const ev = log.find('user_settings', 'update');
  assert.deepEqual(ev.map((e) => [e.event.property, e.event.value]).sort(), [['allow_private_data_export', true], ['web_suggest_update_timezone', false]]);
  for (const e of ev) assert.deepEqual(e.userIds, [me.id]);
  const after = (await register(at371, me)).user_settings;
  assert.equal(after.allow_private_data_export, true);
  assert.equal(after.web_suggest_update_timezone, false);
  assert.equal((await register(at371, other)).user_settings.allow_private_data_export, false);
  assertError(await at371.api('PATCH', '/api/v1/settings', { as: me, params: { allow_private_data_export: 3 } }), 'allow_private_data_export is not a boolean');
  assertOk(await at371.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { web_suggest_update_timezone: false } }));
  assert.equal((await register(at371, other)).realm_user_settings_defaults.web_suggest_update_timezone, false);
});

test('293/329 at 277: not in register; PATCH still takes them', async () => {
  const me = await at277.createUser({ name: 'Old Olga' });
  const state = await register(at277, me);
  for (const k of ['allow_private_data_export', 'web_suggest_update_timezone']) {
    assert.equal(k in state.user_settings, false, k);
    assert.equal(k in state.realm_user_settings_defaults, false, k);
  }
  assertOk(await at277.api('PATCH', '/api/v1/settings', { as: me, params: { allow_private_data_export: true } }));
});

test('364: dense_mode gone from register and events at 371 (PATCH still takes it); new users default to 16 px / 140%', async () => {
  const me = await at371.createUser({ name: 'Dina Dense' });
  const state = await register(at371, me);
  assert.equal('dense_mode' in state.user_settings, false);
  assert.equal('dense_mode' in state.realm_user_settings_defaults, false);
  assert.equal(state.user_settings.web_font_size_px, 16);
  assert.equal(state.user_settings.web_line_height_percent, 140);
  assert.equal(state.realm_user_settings_defaults.web_font_size_px, 16);
  assert.equal(state.realm_user_settings_defaults.web_line_height_percent, 140);
  const log = new EventLog(at371);
  const r = assertOk(await at371.api('PATCH', '/api/v1/settings', { as: me, params: { dense_mode: false, web_font_size_px: 15 } }));
  assert.deepEqual(log.find('user_settings', 'update').map((e) => e.event.property), ['web_font_size_px']);
  assert.equal('ignored_parameters_unsupported' in r, false);
});

test('364 at 277: dense_mode still there, defaults 14 px / 122%', async () => {
  const me = await at277.createUser({ name: 'Dora Dense' });
  const state = await register(at277, me);
  assert.equal(state.user_settings.dense_mode, true);
  assert.equal(state.user_settings.web_font_size_px, 14);
  assert.equal(state.user_settings.web_line_height_percent, 122);
  assert.equal(state.realm_user_settings_defaults.web_font_size_px, 14);
  const log = new EventLog(at277);
  assertOk(await at277.api('PATCH', '/api/v1/settings', { as: me, params: { dense_mode: false } }));
  assert.deepEqual(log.find('user_settings', 'update').map((e) => [e.event.property, e.event.value]), [['dense_mode', false]]);
});
