import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';
import { validateEvent } from '../../src/events/schemas.js';

/**
 * The realm package of issue 31 (levels 143 to 257): each answer or register key from its
 * level (t: 277) and the level-122 contract unchanged (spec: 122).
 */
let t: TestApp;
let spec: TestApp;
let u: Record<keyof typeof ROLES, TestUser>;
before(async () => {
  t = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  u = await t.createUsers(ROLES);
});
after(async () => { await t.close(); await spec.close(); });

const realmState = async (app: TestApp, as?: TestUser) => assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm'] } }));
const patch = (app: TestApp, params: Record<string, unknown>, as?: TestUser) => app.api('PATCH', '/api/v1/realm', { as: as ?? app.owner, params });
const settingEvents = (log: EventLog) => log.find('realm', 'update').map((e) => [(e.event as any).property, (e.event as any).value]);

test('143: only owners change the invitation and sign-up restrictions and the waiting period', async () => {
  for (const [name, value] of [['disallow_disposable_email_addresses', false], ['emails_restricted_to_domains', true], ['invite_required', false], ['waiting_period_threshold', 4]] as const) {
    assertError(await patch(t, { [name]: value }, u.admin), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
    assertError(await patch(t, { [name]: value }, u.member), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    assert.equal(Object.hasOwn(assertOk(await patch(t, { [name]: value })), name), true);
  }
  assertOk(await patch(t, { disallow_disposable_email_addresses: true, emails_restricted_to_domains: false, invite_required: true, waiting_period_threshold: 0 }));
});

test('150: each message-editing setting is its own event, and the answer names only the changed ones', async () => {
  const log = new EventLog(t);
  assert.deepEqual(assertOk(await patch(t, { allow_message_editing: false, edit_topic_policy: 2, message_content_edit_limit_seconds: 600 })),
    { result: 'success', msg: '', allow_message_editing: false, edit_topic_policy: 2 });
  assert.deepEqual(settingEvents(log), [['allow_message_editing', false], ['edit_topic_policy', 2]]);
  assertOk(await patch(t, { allow_message_editing: true, edit_topic_policy: 5 }));
  // Level 122 answers the three together.
  assert.deepEqual(assertOk(await patch(spec, { edit_topic_policy: 2 })),
    { result: 'success', msg: '', allow_message_editing: true, message_content_edit_limit_seconds: 600, edit_topic_policy: 2 });
});

test('195: no default code block language is "" from 195 (null at 122), in register, the answer and the event', async () => {
  assert.equal((await realmState(t)).realm_default_code_block_language, '');
  assert.equal((await realmState(spec)).realm_default_code_block_language, null);
  assertOk(await patch(t, { default_code_block_language: 'python' }));
  assert.equal((await realmState(t)).realm_default_code_block_language, 'python');
  const log = new EventLog(t);
  assert.equal(assertOk(await patch(t, { default_code_block_language: '' })).default_code_block_language, 'updated');
  assert.deepEqual(settingEvents(log), [['default_code_block_language', '']]);
  assert.equal((await realmState(t)).realm_default_code_block_language, '');
});

test('212: the organization\'s jitsi_server_url (null: the server\'s), PATCH /realm with "default", and server_jitsi_server_url', async () => {
  const state = await realmState(t);
  assert.equal(state.realm_jitsi_server_url, null);
  assert.equal(state.server_jitsi_server_url, 'https://meet.jit.si');
  const old = await realmState(spec);
  assert.equal('realm_jitsi_server_url' in old || 'server_jitsi_server_url' in old, false);
  const log = new EventLog(t);
  assert.equal(assertOk(await patch(t, { jitsi_server_url: JSON.stringify('https://jitsi.example.com') })).jitsi_server_url, 'updated');
  assert.deepEqual(settingEvents(log), [['jitsi_server_url', 'https://jitsi.example.com']]);
  assert.equal((await realmState(t)).realm_jitsi_server_url, 'https://jitsi.example.com');
  for (const bad of ['not a url', 'ftp:/x', `https://example.com/${'a'.repeat(200)}`]) {
    assertError(await patch(t, { jitsi_server_url: bad }), 'jitsi_server_url is not an allowed_type');
  }
  assertError(await patch(t, { jitsi_server_url: 'https://x.example.com' }, u.member), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  log.clear();
  assert.deepEqual(assertOk(await patch(t, { jitsi_server_url: 'default' })), { result: 'success', msg: '', jitsi_server_url: null });
  assert.deepEqual(settingEvents(log), [['jitsi_server_url', null]]);
  assert.equal((await realmState(t)).realm_jitsi_server_url, null);
});

test('216: enable_guest_user_indicator (true) from 216, PATCH /realm with its event', async () => {
  assert.equal((await realmState(t)).realm_enable_guest_user_indicator, true);
  assert.equal('realm_enable_guest_user_indicator' in (await realmState(spec)), false);
  const log = new EventLog(t);
  assert.deepEqual(assertOk(await patch(t, { enable_guest_user_indicator: false })), { result: 'success', msg: '', enable_guest_user_indicator: false });
  assert.deepEqual(settingEvents(log), [['enable_guest_user_indicator', false]]);
  assert.equal((await realmState(t)).realm_enable_guest_user_indicator, false);
  assertError(await patch(t, { enable_guest_user_indicator: 'maybe' }), 'Argument "enable_guest_user_indicator" is not valid JSON.');
  assertOk(await patch(t, { enable_guest_user_indicator: true }));
});

test('231, 251: push notifications end timestamp null; the upload quota (none) in MiB is null', async () => {
  const state = await realmState(t);
  assert.equal(state.realm_push_notifications_enabled_end_timestamp, null);
  assert.equal(state.realm_push_notifications_enabled, false);
  assert.equal(state.realm_upload_quota_mib, null);
  assert.equal('realm_push_notifications_enabled_end_timestamp' in (await realmState(spec)), false);
});

test('241, 242: announcement streams under their new names (old names at 122), zulip_/service_update_announcements_stream_id', async () => {
  const { news, signups } = await createStreams(t, { news: [t.owner], signups: [t.owner] });
  const state = await realmState(t);
  for (const key of ['realm_notifications_stream_id', 'realm_signup_notifications_stream_id']) assert.equal(key in state, false, key);
  assert.equal(state.realm_new_stream_announcements_stream_id, -1);
  assert.equal(state.realm_signup_announcements_stream_id, -1);
  assert.equal(state.realm_zulip_update_announcements_stream_id, -1);
  assert.equal(state.realm_service_update_announcements_stream_id, -1);
  const old = await realmState(spec);
  assert.equal(old.realm_notifications_stream_id, -1);
  for (const key of ['realm_new_stream_announcements_stream_id', 'realm_zulip_update_announcements_stream_id', 'realm_service_update_announcements_stream_id']) assert.equal(key in old, false, key);

  const log = new EventLog(t);
  assert.deepEqual(assertOk(await patch(t, { new_stream_announcements_stream_id: news.id, signup_announcements_stream_id: signups.id, zulip_update_announcements_stream_id: news.id })), {
    result: 'success', msg: '', new_stream_announcements_stream_id: news.id, signup_announcements_stream_id: signups.id,
    zulip_update_announcements_stream_id: news.id, service_update_announcements_stream_id: news.id,
  });
  assert.deepEqual(settingEvents(log), [
    ['notifications_stream_id', news.id], ['new_stream_announcements_stream_id', news.id],
    ['signup_notifications_stream_id', signups.id], ['signup_announcements_stream_id', signups.id],
    ['zulip_update_announcements_stream_id', news.id], ['service_update_announcements_stream_id', news.id],
  ]);
  const after = await realmState(t);
  assert.equal(after.realm_new_stream_announcements_stream_id, news.id);
  assert.equal(after.realm_signup_announcements_stream_id, signups.id);
  assert.equal(after.realm_service_update_announcements_stream_id, news.id);
  // The old names and the service_ spelling still work as requests.
  assertOk(await patch(t, { notifications_stream_id: -1, service_update_announcements_stream_id: -1 }));
  assert.equal((await realmState(t)).realm_new_stream_announcements_stream_id, -1);
  assert.equal((await realmState(t)).realm_zulip_update_announcements_stream_id, -1);
  assertError(await patch(t, { zulip_update_announcements_stream_id: 987_654 }), 'Invalid stream id');
  // A new stream's announcement goes where the setting under its new name says.
  assertOk(await patch(t, { new_stream_announcements_stream_id: news.id }));
  assert.equal((await realmState(t)).realm_new_stream_announcements_stream_id, news.id);
});

test('243: realm_authentication_methods as {enabled, available} from 243, booleans at 122; /server_settings keeps booleans', async () => {
  const methods = (await realmState(t)).realm_authentication_methods;
  // Keyed by Zulip's backend names (authentication_methods_dict), unlike /server_settings.
  assert.deepEqual(methods.Email, { enabled: true, available: true });
  assert.deepEqual(methods.GitHub, { enabled: false, available: true });
  assert.deepEqual(methods['OpenID Connect'], { enabled: false, available: true });
  assert.equal((await realmState(spec)).realm_authentication_methods.Email, true);
  assert.equal(assertOk(await t.api('GET', '/api/v1/server_settings', { as: null })).authentication_methods.password, true);
});

test('246: require_unique_names refuses a name another user has, up to case and NFKC, on sign-up and on renames', async () => {
  assert.equal((await realmState(t)).realm_require_unique_names, false);
  assert.equal('realm_require_unique_names' in (await realmState(spec)), false);
  const rename = (target: TestUser, full_name: string, as: TestUser = t.owner) => t.api('PATCH', `/api/v1/users/${target.id}`, { as, params: { full_name } });
  assertOk(await rename(u.other, 'Same Name'));
  assertOk(await rename(u.member, 'same name'));
  const log = new EventLog(t);
  assert.deepEqual(assertOk(await patch(t, { require_unique_names: true })), { result: 'success', msg: '', require_unique_names: true });
  assert.deepEqual(settingEvents(log), [['require_unique_names', true]]);
  assertError(await rename(u.member, 'SAME NAME'), 'Unique names required in this organization.');
  // Fullwidth letters are the same name after NFKC.
  assertError(await rename(u.admin, 'Ｓａｍｅ Ｎａｍｅ'), 'Unique names required in this organization.');
  assertError(await t.api('PATCH', '/api/v1/settings', { as: u.admin, params: { full_name: 'same NAME' } }), 'Unique names required in this organization.');
  assertError(await t.api('POST', '/api/v1/users', { params: { email: 'twin@parley.test', password: 'pw-12345678', full_name: 'Same name' } }), 'Unique names required in this organization.');
  assertOk(await rename(u.other, 'Other Name'));
  // The user's own name is no collision: a change of case alone is fine.
  assertOk(await rename(u.member, 'Same Name'));
  assertOk(await patch(t, { require_unique_names: false }));
  assertOk(await t.api('POST', '/api/v1/users', { params: { email: 'twin@parley.test', password: 'pw-12345678', full_name: 'Other Name' } }));
});

test('257: realm_url beside realm_uri in register and /server_settings from 257', async () => {
  const state = await realmState(t);
  assert.equal(state.realm_url, state.realm_uri);
  const server = assertOk(await t.api('GET', '/api/v1/server_settings', { as: null }));
  assert.equal(server.realm_url, server.realm_uri);
  assert.equal('realm_url' in (await realmState(spec)), false);
  assert.equal('realm_url' in assertOk(await spec.api('GET', '/api/v1/server_settings', { as: null })), false);
});

test('guard at 277: register + the settings\' events = a fresh register', async () => {
  const { guarded } = await createStreams(t, { guarded: [t.owner, u.member] });
  const keys = ['realm_new_stream_announcements_stream_id', 'realm_signup_announcements_stream_id', 'realm_zulip_update_announcements_stream_id',
    'realm_service_update_announcements_stream_id', 'realm_jitsi_server_url', 'realm_enable_guest_user_indicator', 'realm_require_unique_names',
    'realm_default_code_block_language', 'realm_allow_message_editing', 'realm_message_content_edit_limit_seconds', 'realm_edit_topic_policy'];
  const params = { fetch_event_types: ['realm'], event_types: ['realm'] };
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: u.member, params }));
  assertOk(await patch(t, {
    new_stream_announcements_stream_id: guarded.id, signup_announcements_stream_id: guarded.id, zulip_update_announcements_stream_id: guarded.id,
    jitsi_server_url: 'https://meet.example.com', enable_guest_user_indicator: false, require_unique_names: true, default_code_block_language: 'rust',
    allow_message_editing: false, message_content_edit_limit_seconds: 'unlimited', edit_topic_policy: 3,
  }));
  assertOk(await patch(t, { default_code_block_language: '' }));
  const events = assertOk(await t.api('GET', '/api/v1/events', { as: u.member, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } })).events;
  for (const e of events) {
    assert.deepEqual(validateEvent(e), []);
    applyEvent(reg, e as ClientEvent, u.member.id);
  }
  const fresh = assertOk(await t.api('POST', '/api/v1/register', { as: u.member, params }));
  assert.deepEqual(Object.fromEntries(keys.map((k) => [k, reg[k]])), Object.fromEntries(keys.map((k) => [k, fresh[k]])));
  assert.equal(fresh.realm_jitsi_server_url, 'https://meet.example.com');
  assertOk(await patch(t, { require_unique_names: false, allow_message_editing: true, message_content_edit_limit_seconds: 600, edit_topic_policy: 5 }));
});

test('233/259: register onboarding_steps (none) from 233; POST /users/me/onboarding_steps marks a known one-time notice, with an event to the user', async () => {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: u.member, params: { fetch_event_types: ['onboarding_steps'], event_types: ['onboarding_steps'] } }));
  assert.deepEqual(reg.onboarding_steps, []);
  assert.equal('onboarding_steps' in assertOk(await spec.api('POST', '/api/v1/register', { params: { fetch_event_types: ['onboarding_steps'] } })), false);
  const log = new EventLog(t);
  assertOk(await t.api('POST', '/api/v1/users/me/onboarding_steps', { as: u.member, params: { onboarding_step: 'intro_inbox_view_modal' } }));
  const e = log.one('onboarding_steps');
  assert.deepEqual(e.event, { type: 'onboarding_steps', onboarding_steps: [] });
  assert.deepEqual(e.userIds, [u.member.id]);
  const events = assertOk(await t.api('GET', '/api/v1/events', { as: u.member, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } })).events;
  assert.deepEqual(events.map((x: any) => validateEvent(x)), [[]]);
  for (const x of events) applyEvent(reg, x as ClientEvent, u.member.id);
  assert.deepEqual(reg.onboarding_steps, []);
  assertError(await t.api('POST', '/api/v1/users/me/onboarding_steps', { as: u.member, params: { onboarding_step: 'intro_streams' } }), 'Unknown onboarding_step: intro_streams');
  assertError(await t.api('POST', '/api/v1/users/me/onboarding_steps', { as: u.member, params: {} }), "Missing 'onboarding_step' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'onboarding_step' });
  assertOk(await spec.api('POST', '/api/v1/users/me/onboarding_steps', { params: { onboarding_step: 'visibility_policy_banner' } }));
  const bot = await t.createBot(u.member, { fullName: 'Step Bot', shortName: 'stepbot' });
  assertError(await t.api('POST', '/api/v1/users/me/onboarding_steps', { as: bot, params: { onboarding_step: 'visibility_policy_banner' } }), 'This endpoint does not accept bot requests.');
  assert.equal((await t.api('POST', '/api/v1/users/me/onboarding_steps', { as: null, params: { onboarding_step: 'x' } })).status, 401);
});
