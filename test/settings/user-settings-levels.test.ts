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
const NEW: Record<string, { since: number; default: unknown; other: unknown }> = {
  display_emoji_reaction_users: { since: 125, default: true, other: false }, user_list_style: { since: 141, default: 2, other: 3 },
  web_mark_read_on_scroll_policy: { since: 175, default: 1, other: 3 },
  enable_followed_topic_desktop_notifications: { since: 189, default: true, other: false },
  enable_followed_topic_email_notifications: { since: 189, default: true, other: false },
  enable_followed_topic_push_notifications: { since: 189, default: true, other: false },
  enable_followed_topic_audible_notifications: { since: 189, default: true, other: false },
  enable_followed_topic_wildcard_mentions_notify: { since: 189, default: true, other: false },
  web_stream_unreads_count_display_policy: { since: 210, default: 2, other: 3 },
  automatically_follow_topics_policy: { since: 214, default: 3, other: 4 },
  automatically_unmute_topics_in_muted_streams_policy: { since: 214, default: 2, other: 1 },
  automatically_follow_topics_where_mentioned: { since: 235, default: true, other: false },
  web_font_size_px: { since: 245, default: 14, other: 16 },
  web_line_height_percent: { since: 245, default: 122, other: 140 },
  receives_typing_notifications: { since: 253, default: true, other: false },
  web_navigate_to_sent_message: { since: 268, default: true, other: false },
  web_channel_default_view: { since: 269, default: 1, other: 2 },
  web_animate_image_previews: { since: 275, default: 'on_hover', other: 'always' },
};

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

test('each new setting: PATCH at 277 stores it, register shows it, invalid values are refused', async () => {
  const me = await latest.createUser({ name: 'Nell New' });
  const params = Object.fromEntries(Object.entries(NEW).map(([n, s]) => [n, typeof s.other === 'string' ? s.other : JSON.stringify(s.other)]));
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params }));
  const mine = (await register(latest, me)).user_settings;
  for (const [n, s] of Object.entries(NEW)) assert.deepEqual(mine[n], s.other, n);
  for (const [n, bad] of [['web_mark_read_on_scroll_policy', 4], ['web_stream_unreads_count_display_policy', 0], ['automatically_follow_topics_policy', 5],
    ['automatically_unmute_topics_in_muted_streams_policy', 0], ['web_channel_default_view', 9], ['web_animate_image_previews', 'sometimes']] as const) {
    assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { [n]: bad } }), `Invalid ${n}`);
  }
});

/**
 * Settings a level renamed or renumbered (168 realm_name_in_email_notifications_policy, 219
 * web_home_view / web_escape_navigates_to_home_view, 227 desktop_icon_count_display): each
 * level's clients see and send their own names and numbering, in register, events and the
 * organization's defaults; both names are taken at any level.
 */
test('168/219/227 at 277: today\'s names and numbering; the old names are still taken', async () => {
  const me = await latest.createUser({ name: 'Rena Renamed' });
  let s = (await register(latest, me)).user_settings;
  assert.equal(s.realm_name_in_email_notifications_policy, 1);
  assert.equal(s.web_home_view, 'recent_topics');
  assert.equal(s.web_escape_navigates_to_home_view, true);
  for (const old of ['realm_name_in_notifications', 'default_view', 'escape_navigates_to_default_view']) assert.equal(old in s, false, old);
  const log = new EventLog(latest);
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { realm_name_in_notifications: true, default_view: 'all_messages', desktop_icon_count_display: 2 } }));
  assert.deepEqual(log.find('user_settings', 'update').map((e) => [e.event.property, e.event.value]).sort(),
    [['desktop_icon_count_display', 2], ['realm_name_in_email_notifications_policy', 2], ['web_home_view', 'all_messages']]);
  s = (await register(latest, me)).user_settings;
  assert.equal(s.realm_name_in_email_notifications_policy, 2);
  assert.equal(s.web_home_view, 'all_messages');
  assert.equal(s.desktop_icon_count_display, 2);
  assertOk(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { realm_name_in_email_notifications_policy: 3, web_home_view: 'inbox', web_escape_navigates_to_home_view: false, desktop_icon_count_display: 4 } }));
  s = (await register(latest, me)).user_settings;
  assert.deepEqual([s.realm_name_in_email_notifications_policy, s.web_home_view, s.web_escape_navigates_to_home_view, s.desktop_icon_count_display], [3, 'inbox', false, 4]);
  // Legacy top-level keys (Zulip renamed them with the settings).
  const legacy = await register(latest, me, { client_capabilities: {} });
  assert.equal(legacy.web_home_view, 'inbox');
  assert.equal(legacy.realm_name_in_email_notifications_policy, 3);
  assert.equal('default_view' in legacy, false);
  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { realm_name_in_email_notifications_policy: 4 } }), 'Invalid realm_name_in_email_notifications_policy');
  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { desktop_icon_count_display: 5 } }), 'Invalid desktop_icon_count_display');
  assertError(await latest.api('PATCH', '/api/v1/settings', { as: me, params: { web_home_view: 'feed' } }), 'Invalid web_home_view');
  const defaults = (await register(latest, me)).realm_user_settings_defaults;
  assert.equal(defaults.realm_name_in_email_notifications_policy, 1);
  assert.equal(defaults.web_home_view, 'recent_topics');
});

test('168/219/227 at 122: the old names and numbering in register, events and defaults', async () => {
  const me = await spec.createUser({ name: 'Olaf Oldnames' });
  let s = (await register(spec, me)).user_settings;
  assert.equal(s.realm_name_in_notifications, false);
  assert.equal(s.default_view, 'recent_topics');
  assert.equal(s.escape_navigates_to_default_view, true);
  for (const n of ['realm_name_in_email_notifications_policy', 'web_home_view', 'web_escape_navigates_to_home_view']) assert.equal(n in s, false, n);
  const log = new EventLog(spec);
  // Old numbering: 2 is "DMs and mentions" (stored as today's 3), 3 "none" (today's 4).
  assertOk(await spec.api('PATCH', '/api/v1/settings', { as: me, params: { realm_name_in_notifications: true, default_view: 'all_messages', desktop_icon_count_display: 3 } }));
  assert.deepEqual(log.find('user_settings', 'update').map((e) => [e.event.property, e.event.value]).sort(),
    [['default_view', 'all_messages'], ['desktop_icon_count_display', 3], ['realm_name_in_notifications', true]]);
  assert.deepEqual(log.find('update_global_notifications').map((e) => [e.event.notification_name, e.event.setting]).sort(),
    [['desktop_icon_count_display', 3], ['realm_name_in_notifications', true]]);
  assert.deepEqual(log.find('update_display_settings').map((e) => [e.event.setting_name, e.event.setting]), [['default_view', 'all_messages']]);
  s = (await register(spec, me)).user_settings;
  assert.deepEqual([s.realm_name_in_notifications, s.default_view, s.desktop_icon_count_display], [true, 'all_messages', 3]);
  const row = await spec.app.ctx.store.db.selectFrom('users').select('settings').where('id', '=', me.id).executeTakeFirstOrThrow();
  const stored = JSON.parse(row.settings) as Record<string, unknown>;
  assert.deepEqual([stored.realm_name_in_email_notifications_policy, stored.web_home_view, stored.desktop_icon_count_display], [2, 'all_messages', 4]);
  // Today's names are taken too; 4 and "inbox" are not values of this level.
  assertOk(await spec.api('PATCH', '/api/v1/settings', { as: me, params: { realm_name_in_email_notifications_policy: 3, desktop_icon_count_display: 2 } }));
  s = (await register(spec, me)).user_settings;
  assert.deepEqual([s.realm_name_in_notifications, s.desktop_icon_count_display], [false, 2]);
  assertError(await spec.api('PATCH', '/api/v1/settings', { as: me, params: { desktop_icon_count_display: 4 } }), 'Invalid desktop_icon_count_display');
  assertError(await spec.api('PATCH', '/api/v1/settings', { as: me, params: { default_view: 'inbox' } }), 'Invalid default_view');
  const legacy = await register(spec, me, { client_capabilities: {} });
  assert.equal(legacy.default_view, 'all_messages');
  assert.equal(legacy.realm_name_in_notifications, false);
  const defaults = (await register(spec, me)).realm_user_settings_defaults;
  assert.equal(defaults.realm_name_in_notifications, false);
  assert.equal('web_home_view' in defaults, false);
  log.clear();
  assertOk(await spec.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { default_view: 'all_messages' } }));
  assert.deepEqual(log.find('realm_user_settings_defaults').map((e) => [e.event.property, e.event.value]), [['default_view', 'all_messages']]);
  assert.equal((await register(spec, me)).realm_user_settings_defaults.default_view, 'all_messages');
  assertOk(await spec.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { default_view: 'recent_topics' } }));
});

test('273: register has server_thumbnail_formats, empty (no thumbnails yet), from its level only', async () => {
  const me = await latest.createUser({ name: 'Theo Thumbs' });
  const state = assertOk(await latest.api('POST', '/api/v1/register', { as: me, params: { fetch_event_types: ['realm'] } }));
  assert.deepEqual(state.server_thumbnail_formats, []);
  const old = await spec.createUser({ name: 'Otto Oldthumbs' });
  const before = assertOk(await spec.api('POST', '/api/v1/register', { as: old, params: { fetch_event_types: ['realm'] } }));
  assert.equal('server_thumbnail_formats' in before, false);
});
