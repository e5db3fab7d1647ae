import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

/**
 * Level 148 (Zulip 6's do_update_user_status and format_user_status): a status's `away` is the
 * presence_enabled setting turned off. POST /users/me/status `away` sets the setting (with its
 * user_settings event) and register's user_status reports `away` from it; at 122 `away` stays
 * part of the status and the setting is untouched.
 */
const apps: TestApp[] = [];
let latest: TestApp;
let spec: TestApp;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  latest = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  apps.push(latest, spec);
});

const register = async (t: TestApp, as: TestUser) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['user_status', 'user_settings'] } }));

test('at 277 away sets presence_enabled, and register reports away from the setting', async () => {
  const [me, other] = [await latest.createUser({ name: 'Avery Away' }), await latest.createUser({ name: 'Oscar Other' })];
  const log = new EventLog(latest);
  assertOk(await latest.api('POST', '/api/v1/users/me/status', { as: me, params: { away: true, status_text: 'lunch' } }));
  const settingEvent = log.one('user_settings', 'update');
  assert.deepEqual(settingEvent.event, { type: 'user_settings', op: 'update', property: 'presence_enabled', value: false });
  assert.deepEqual(settingEvent.userIds, [me.id]);
  assert.equal(log.one('user_status').event.away, true);
  let state = await register(latest, other);
  assert.deepEqual(state.user_status[String(me.id)], { away: true, status_text: 'lunch' });
  assert.equal((await register(latest, me)).user_settings.presence_enabled, false);

  // Turning presence back on through the settings clears `away` (no user_status event, as Zulip).
  log.clear();
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { presence_enabled: true } }));
  assert.equal(log.find('user_status').length, 0);
  state = await register(latest, other);
  assert.deepEqual(state.user_status[String(me.id)], { status_text: 'lunch' });

  // And off through the settings: away again, for a user with a status row.
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { presence_enabled: false } }));
  assert.deepEqual((await register(latest, other)).user_status[String(me.id)], { away: true, status_text: 'lunch' });

  // away: false turns it on; a status with nothing left disappears from register.
  log.clear();
  assertOk(await latest.api('POST', '/api/v1/users/me/status', { as: me, params: { away: false, status_text: '' } }));
  assert.deepEqual(log.one('user_settings', 'update').event.value, true);
  assert.equal(String(me.id) in (await register(latest, other)).user_status, false);
  // Unchanged: no setting event.
  log.clear();
  assertOk(await latest.api('POST', '/api/v1/users/me/status', { as: me, params: { away: false } }));
  assert.equal(log.find('user_settings').length, 0);
  assert.equal(log.find('user_status').length, 1);
});

test('at 122 away is part of the status and presence_enabled does not change', async () => {
  const [me, other] = [await spec.createUser({ name: 'Sid Spec' }), await spec.createUser({ name: 'Olga Other' })];
  const log = new EventLog(spec);
  assertOk(await spec.api('POST', '/api/v1/users/me/status', { as: me, params: { away: true } }));
  assert.equal(log.find('user_settings').length, 0);
  assert.equal((await register(spec, me)).user_settings.presence_enabled, true);
  assert.deepEqual((await register(spec, other)).user_status[String(me.id)], { away: true });
  assertOk(await spec.api('PATCH', '/api/v1/settings', { as: me, params: { presence_enabled: false } }));
  assertOk(await spec.api('POST', '/api/v1/users/me/status', { as: me, params: { away: false } }));
  assert.equal(String(me.id) in (await register(spec, other)).user_status, false);
});
