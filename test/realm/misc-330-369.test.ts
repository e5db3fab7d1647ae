import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

/**
 * Zulip 10's register and realm additions: default streams as ids (330),
 * moderation_request_channel_id (331), deactivated-realm deletion days (332),
 * password_max_length (338), enable_guest_user_dm_warning (348), navigation_tour_video_url (369).
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

const register = async (t: TestApp, as: TestUser | undefined, types: string[]) =>
  assertOk(await t.api('POST', '/api/v1/register', { ...(as ? { as } : {}), params: { fetch_event_types: types } }));

async function stream(t: TestApp, name: string, inviteOnly = false): Promise<number> {
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: [{ name }], invite_only: inviteOnly } }));
  const r = assertOk(await t.api('GET', '/api/v1/get_stream_id', { params: { stream: name } }));
  return r.stream_id as number;
}

test('330 at 371: realm_default_streams and default_streams events carry ids; at 277 stream objects', async () => {
  const member = await at371.createUser({ name: 'Dee Default' });
  const guest = await at371.createUser({ name: 'Gus Guest', role: 600 });
  const id = await stream(at371, 'defaults-371');
  const log = new EventLog(at371);
  assertOk(await at371.api('POST', '/api/v1/default_streams', { params: { stream_id: id } }));
  const ev = log.find('default_streams');
  assert.equal(ev.length, 1);
  assert.ok((ev[0]!.event.default_streams as number[]).includes(id));
  assert.ok((ev[0]!.event.default_streams as unknown[]).every((s) => typeof s === 'number'));
  assert.ok(ev[0]!.userIds.includes(member.id));
  assert.ok(!ev[0]!.userIds.includes(guest.id));
  const state = await register(at371, member, ['default_streams', 'default_stream_groups']);
  assert.ok(state.realm_default_streams.includes(id));
  assert.ok(state.realm_default_streams.every((s: unknown) => typeof s === 'number'));
  assert.deepEqual(state.realm_default_stream_groups, []);

  const old = await stream(at277, 'defaults-277');
  const oldLog = new EventLog(at277);
  assertOk(await at277.api('POST', '/api/v1/default_streams', { params: { stream_id: old } }));
  assert.ok((oldLog.find('default_streams')[0]!.event.default_streams as Array<{ stream_id: number }>).some((s) => s.stream_id === old));
  const oldState = await register(at277, undefined, ['default_streams']);
  assert.ok(oldState.realm_default_streams.some((s: { stream_id: number }) => s.stream_id === old));
});

test('331/348 at 371: in register with Zulip\'s defaults; PATCH /realm sets them with a realm update event; the channel must be private', async () => {
  let state = await register(at371, undefined, ['realm']);
  assert.equal(state.realm_moderation_request_channel_id, -1);
  assert.equal(state.realm_enable_guest_user_dm_warning, true);
  const secret = await stream(at371, 'mods', true);
  const open = await stream(at371, 'open-mods');
  const log = new EventLog(at371);
  assertOk(await at371.api('PATCH', '/api/v1/realm', { params: { moderation_request_channel_id: secret, enable_guest_user_dm_warning: false } }));
  const props = log.find('realm', 'update').map((e) => [e.event.property, e.event.value]);
  assert.deepEqual(props.sort(), [['enable_guest_user_dm_warning', false], ['moderation_request_channel_id', secret]]);
  state = await register(at371, undefined, ['realm']);
  assert.equal(state.realm_moderation_request_channel_id, secret);
  assert.equal(state.realm_enable_guest_user_dm_warning, false);
  assertError(await at371.api('PATCH', '/api/v1/realm', { params: { moderation_request_channel_id: open } }), 'Moderation request channel must be private.');
  assertError(await at371.api('PATCH', '/api/v1/realm', { params: { enable_guest_user_dm_warning: 'x' } }), 'Argument "enable_guest_user_dm_warning" is not valid JSON.');
  assertOk(await at371.api('PATCH', '/api/v1/realm', { params: { moderation_request_channel_id: -1 } }));
  assert.equal((await register(at371, undefined, ['realm'])).realm_moderation_request_channel_id, -1);
  const member = await at371.createUser({ name: 'Mo Member' });
  assertError(await at371.api('PATCH', '/api/v1/realm', { as: member, params: { enable_guest_user_dm_warning: true } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
});

test('332/338/369 at 371: server fields in register; none of the new keys at 277', async () => {
  const state = await register(at371, undefined, ['realm']);
  assert.equal(state.server_min_deactivated_realm_deletion_days, 14);
  assert.equal(state.server_max_deactivated_realm_deletion_days, null);
  assert.equal(state.password_max_length, 100);
  assert.equal(state.navigation_tour_video_url, null);
  const old = await register(at277, undefined, ['realm']);
  for (const k of ['server_min_deactivated_realm_deletion_days', 'server_max_deactivated_realm_deletion_days', 'password_max_length',
    'navigation_tour_video_url', 'realm_moderation_request_channel_id', 'realm_enable_guest_user_dm_warning']) assert.equal(k in old, false, k);
});
