import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, FEATURE_LEVEL, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';

/**
 * PATCH /realm and PATCH /realm/user_settings_defaults: Zulip 5's validators and messages,
 * who may change what, the events every active user hears, register afterwards, and the
 * policies taking effect where other operations read them.
 */
let t: TestApp;
let u: Record<keyof typeof ROLES, TestUser>;
let log: EventLog;

before(async () => {
  t = await testApp();
  u = await t.createUsers(ROLES);
  log = new EventLog(t);
});
after(() => t.close());

const patch = (params: Record<string, unknown>, as: TestUser = t.owner) => t.api('PATCH', '/api/v1/realm', { as, params });
const register = async (as: TestUser) => assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm', 'realm_user_settings_defaults'] } }));
const activeHumans = () => sorted([t.owner.id, ...Object.values(u).map((x) => x.id)]);

test('PATCH /realm: changes, answers the changed values, tells every active user, and register follows', async () => {
  log.clear();
  const body = assertOk(await patch({ name: 'Renamed Org', description: 'We **ship**.', create_public_stream_policy: 2, mandatory_topics: true, default_language: 'de' }));
  // From level 264 the policy also sets can_create_public_channel_group (2: administrators), and the answer names it.
  const groups = assertOk(await t.api('GET', '/api/v1/user_groups', { as: t.owner })).user_groups as Array<{ id: number; name: string }>;
  const policyGroup = FEATURE_LEVEL >= 264 ? { can_create_public_channel_group: groups.find((g) => g.name === 'role:administrators')!.id } : {};
  assert.deepEqual(body, { result: 'success', msg: '', name: 'updated', description: 'updated', create_public_stream_policy: 2, mandatory_topics: true, default_language: 'updated', ...policyGroup });
  const updates = log.find('realm', 'update');
  assert.deepEqual(updates.map((e) => [(e.event as any).property, (e.event as any).value]).sort(),
    [['create_public_stream_policy', 2], ['default_language', 'de'], ['description', 'We **ship**.'], ['mandatory_topics', true], ['name', 'Renamed Org']]);
  for (const e of updates) assert.deepEqual(sorted(e.userIds), activeHumans());
  const reg = await register(u.member);
  assert.equal(reg.realm_name, 'Renamed Org');
  assert.equal(reg.realm_description, 'We **ship**.');
  assert.equal(reg.realm_create_public_stream_policy, 2);
  assert.equal(reg.realm_mandatory_topics, true);
  assert.equal(reg.realm_default_language, 'de');
  // The login page's description is rendered.
  const server = assertOk(await t.api('GET', '/api/v1/server_settings', { as: null }));
  assert.equal(server.realm_description, '<p>We <strong>ship</strong>.</p>');

  // Nothing changes: no events, an empty answer.
  log.clear();
  assert.deepEqual(assertOk(await patch({ name: 'Renamed Org', mandatory_topics: true })), { result: 'success', msg: '' });
  assert.equal(log.find('realm').length, 0);
  assertOk(await patch({ mandatory_topics: false, create_public_stream_policy: 1, default_language: 'en' }));
});

test('PATCH /realm: the message-editing settings are announced one by one (level 150); the answer names all three only before 150', async () => {
  log.clear();
  const body = assertOk(await patch({ edit_topic_policy: 2, allow_message_editing: false }));
  // From level 316 edit_topic_policy sets can_move_messages_between_topics_group (2: administrators),
  // which the answer and an update_dict name instead of the policy.
  const admins = (await t.app.ctx.store.db.selectFrom('user_group').select('id').where('name', '=', 'role:administrators')
    .where('realm_id', '=', t.owner.row.realm_id).executeTakeFirstOrThrow()).id;
  const topics = FEATURE_LEVEL >= 316;
  const changedOnly = { result: 'success', msg: '', allow_message_editing: false, ...(topics ? { can_move_messages_between_topics_group: admins } : { edit_topic_policy: 2 }) };
  assert.deepEqual(body, FEATURE_LEVEL >= 150 ? changedOnly : { ...changedOnly, message_content_edit_limit_seconds: 600 });
  assert.equal(log.find('realm', 'update_dict').length, topics ? 1 : 0);
  const updates = log.find('realm', 'update');
  assert.deepEqual(updates.map((e) => e.event).sort((a: any, b: any) => a.property.localeCompare(b.property)), [
    { type: 'realm', op: 'update', property: 'allow_message_editing', value: false },
    ...(topics ? [] : [{ type: 'realm', op: 'update', property: 'edit_topic_policy', value: 2 }]),
  ]);
  for (const e of updates) assert.deepEqual(sorted(e.userIds), activeHumans());
  const reg = await register(u.member);
  if (topics) assert.equal(reg.realm_can_move_messages_between_topics_group, admins);
  else assert.equal(reg.realm_edit_topic_policy, 2);
  assert.equal(reg.realm_allow_message_editing, false);
  log.clear();
  // No limit: null from level 138 (0 before), in the answer and the event.
  const unlimited = FEATURE_LEVEL >= 138 ? null : 0;
  assert.deepEqual(assertOk(await patch({ message_content_edit_limit_seconds: 'unlimited', allow_message_editing: false })),
    FEATURE_LEVEL >= 150 ? { result: 'success', msg: '', message_content_edit_limit_seconds: unlimited }
      : { result: 'success', msg: '', allow_message_editing: false, edit_topic_policy: 2, message_content_edit_limit_seconds: unlimited });
  assert.deepEqual(log.one('realm', 'update').event, { type: 'realm', op: 'update', property: 'message_content_edit_limit_seconds', value: unlimited });
  assertOk(await patch({ edit_topic_policy: 5, allow_message_editing: true, message_content_edit_limit_seconds: 600 }));
});

test('PATCH /realm: retention and deletion limits take "unlimited"; notification streams must exist', async () => {
  assert.deepEqual(assertOk(await patch({ message_retention_days: 30 })).message_retention_days, 30);
  assert.equal((await register(u.member)).realm_message_retention_days, 30);
  assert.equal(assertOk(await patch({ message_retention_days: 'unlimited' })).message_retention_days, -1);
  assertError(await patch({ message_retention_days: 'forever' }), "Bad value for 'message_retention_days': forever");
  assertError(await patch({ message_retention_days: 0 }), "Bad value for 'message_retention_days': 0");
  assertError(await patch({ message_retention_days: '[1]' }), 'message_retention_days is not a string or integer');

  assert.equal(assertOk(await patch({ message_content_delete_limit_seconds: 120 })).message_content_delete_limit_seconds, 120);
  assert.equal(assertOk(await patch({ message_content_delete_limit_seconds: 'unlimited' })).message_content_delete_limit_seconds, null);
  assert.equal((await register(u.member)).realm_message_content_delete_limit_seconds, null);
  assertError(await patch({ message_content_delete_limit_seconds: -5 }), "Bad value for 'message_content_delete_limit_seconds': -5");

  const { announce, secret } = await createStreams(t, { announce: [t.owner], secret: { inviteOnly: true, subscribers: [u.member] } });
  log.clear();
  // The answer names the setting as the level does (renamed at 241), whichever name was sent.
  assert.equal(assertOk(await patch({ notifications_stream_id: announce.id }))[FEATURE_LEVEL >= 241 ? 'new_stream_announcements_stream_id' : 'notifications_stream_id'], announce.id);
  // Announced under the name of level 122 and level 241's; register says the one of its level.
  assert.deepEqual(log.find('realm', 'update').map((e) => e.event), ['notifications_stream_id', 'new_stream_announcements_stream_id'].map((property) =>
    ({ type: 'realm', op: 'update', property, value: announce.id })));
  assert.equal((await register(u.member))[FEATURE_LEVEL >= 241 ? 'realm_new_stream_announcements_stream_id' : 'realm_notifications_stream_id'], announce.id);
  // A private stream the administrator is not in is as good as missing.
  assertError(await patch({ signup_notifications_stream_id: secret.id }), 'Invalid stream id');
  assertError(await patch({ notifications_stream_id: 987_654 }), 'Invalid stream id');
  assertOk(await patch({ notifications_stream_id: -1, signup_notifications_stream_id: announce.id }));
  const reg = await register(u.member);
  assert.equal(reg[FEATURE_LEVEL >= 241 ? 'realm_new_stream_announcements_stream_id' : 'realm_notifications_stream_id'], -1);
  assert.equal(reg[FEATURE_LEVEL >= 241 ? 'realm_signup_announcements_stream_id' : 'realm_signup_notifications_stream_id'], announce.id);
});

test('PATCH /realm: every validator\'s message', async () => {
  assertError(await patch({ edit_topic_policy: 9 }), 'Invalid edit_topic_policy');
  assertError(await patch({ create_web_public_stream_policy: 1 }), 'Invalid create_web_public_stream_policy');
  assertError(await patch({ private_message_policy: 3 }), 'Invalid private_message_policy');
  assertError(await patch({ wildcard_mention_policy: 0 }), 'Invalid wildcard_mention_policy');
  // From level 163 email_address_visibility is each user's own setting: PATCH /realm no longer reads it.
  if (FEATURE_LEVEL >= 163) assert.deepEqual(assertOk(await patch({ email_address_visibility: 6 })), { result: 'success', msg: '' });
  else assertError(await patch({ email_address_visibility: 6 }), 'Invalid email_address_visibility');
  assertError(await patch({ edit_topic_policy: '"2"' }), 'edit_topic_policy is not an integer');
  assertError(await patch({ mandatory_topics: '"yes"' }), 'mandatory_topics is not a boolean');
  assertError(await patch({ message_content_edit_limit_seconds: -1 }), "Bad value for 'message_content_edit_limit_seconds': -1");
  assertError(await patch({ waiting_period_threshold: -3 }), "Bad value for 'waiting_period_threshold': -3");
  assertError(await patch({ default_language: 'xx' }), "Invalid language 'xx'");
  assertError(await patch({ video_chat_provider: 99 }), 'Invalid video_chat_provider 99');
  assertError(await patch({ giphy_rating: 7 }), 'Invalid giphy_rating 7');
  assertError(await patch({ name: 'n'.repeat(41) }), 'name is too long (limit: 40 characters)');
  assertError(await patch({ description: 'd'.repeat(1001) }), 'description is too long (limit: 1000 characters)');
  assertError(await patch({ string_id: 'elsewhere' }), 'Must be a demo organization.');
  // A refused request changes nothing, even where its other parameters were fine.
  assertError(await patch({ name: 'Half Done', edit_topic_policy: 9 }), 'Invalid edit_topic_policy');
  assert.equal((await register(u.member)).realm_name, 'Renamed Org');
});

test('PATCH /realm: administrators only; some settings owners only; credentials required', async () => {
  for (const as of [u.member, u.guest]) {
    assertError(await patch({ name: 'Mine now' }, as), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    assertError(await patch({ edit_topic_policy: 99 }, as), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  }
  assertOk(await patch({ inline_image_preview: false }, u.admin));
  for (const params of [{ waiting_period_threshold: 3 }, { invite_required: false }, { invite_to_realm_policy: 2 }, { message_retention_days: 10 },
    { emails_restricted_to_domains: true }, { disallow_disposable_email_addresses: false }, { string_id: 'x' }]) {
    assertError(await patch(params, u.admin), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  }
  assertOk(await patch({ waiting_period_threshold: 3, inline_image_preview: true }));
  assertOk(await patch({ waiting_period_threshold: 0 }));
  assertUnauthenticated(await t.api('PATCH', '/api/v1/realm', { as: null, params: { name: 'x' } }));
  assertUnauthenticated(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { as: null, params: { enter_sends: true } }));
});

test('policies set through PATCH /realm take effect', async () => {
  const { lounge } = await createStreams(t, { lounge: [t.owner, u.admin, u.member, u.other] });
  const post = (as: TestUser, content: string, topic = 'policy') =>
    t.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: lounge.id, topic, content } });
  const id = assertOk(await post(u.member, 'first')).id as number;

  // Topic edits (everyone by default), then administrators only.
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: u.other, params: { topic: 'renamed' } }));
  assertOk(await patch({ edit_topic_policy: 2 }));
  assertError(await t.api('PATCH', `/api/v1/messages/${id}`, { as: u.member, params: { topic: 'again' } }), "You don't have permission to edit this message");
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: u.admin, params: { topic: 'again' } }));
  assertOk(await patch({ edit_topic_policy: 5 }));

  // Content edits turned off.
  assertOk(await patch({ allow_message_editing: false }));
  assertError(await t.api('PATCH', `/api/v1/messages/${id}`, { as: u.member, params: { content: 'changed' } }), 'Your organization has turned off message editing');
  assertOk(await patch({ allow_message_editing: true }));

  // Empty topics refused once topics are mandatory.
  assertOk(await patch({ mandatory_topics: true }));
  assertError(await post(u.member, 'no topic', ''), 'Topics are required in this organization');
  assertOk(await patch({ mandatory_topics: false }));

  // Deleting one's own messages: administrators only.
  assertOk(await patch({ delete_own_message_policy: 2 }));
  assertError(await t.api('DELETE', `/api/v1/messages/${id}`, { as: u.member }), "You don't have permission to delete this message");
  assertOk(await patch({ delete_own_message_policy: 1 }));

  // Stream creation: administrators only (and register says so).
  assertOk(await patch({ create_public_stream_policy: 2, invite_to_stream_policy: 2 }));
  const reg = await register(u.member);
  // Level 341 removed can_subscribe_other_users: invite_to_stream_policy now sets can_add_subscribers_group.
  assert.deepEqual([reg.can_create_public_streams, reg.can_create_private_streams, reg.can_create_streams, reg.can_subscribe_other_users], [false, true, true, FEATURE_LEVEL >= 341 ? undefined : false]);
  if (FEATURE_LEVEL >= 341) {
    const groups = assertOk(await t.api('GET', '/api/v1/user_groups', { as: t.owner })).user_groups as Array<{ id: number; name: string }>;
    assert.equal(reg.realm_can_add_subscribers_group, groups.find((g) => g.name === 'role:administrators')!.id);
  }
  assert.equal((await register(u.admin)).can_create_public_streams, true);
  assertOk(await patch({ invite_to_stream_policy: 1 }));
  assertError(await t.api('POST', '/api/v1/users/me/subscriptions', { as: u.member, params: { subscriptions: [{ name: 'new place' }] } }), 'Insufficient permission');
  assertOk(await patch({ create_public_stream_policy: 1 }));

  // Edit history hidden.
  assertOk(await patch({ allow_edit_history: false }));
  assertError(await t.api('GET', `/api/v1/messages/${id}/history`, { as: u.member }), 'Message edit history is disabled in this organization');
  assertOk(await patch({ allow_edit_history: true }));
});

test('private_message_policy: disabled means private messages only with bots', async () => {
  const bot = await t.createBot(u.member, { fullName: 'Helper Bot', shortName: 'helper' });
  const pm = (as: TestUser, to: number[]) => t.api('POST', '/api/v1/messages', { as, params: { type: 'private', to, content: 'hi' } });
  assertOk(await patch({ private_message_policy: 2 }));
  // From level 270 the policy sets direct_message_permission_group to role:nobody (Zulip 9's wording).
  const disabled = FEATURE_LEVEL >= 270 ? 'Direct messages are disabled in this organization.' : 'Private messages are disabled in this organization.';
  assertError(await pm(u.member, [u.other.id]), disabled);
  assertError(await pm(u.member, [u.other.id, u.admin.id]), disabled);
  assertError(await pm(u.member, [bot.id, u.other.id]), disabled);
  assertOk(await pm(u.member, [bot.id]));
  assertOk(await pm(bot, [u.other.id]));
  assertOk(await patch({ private_message_policy: 1 }));
  assertOk(await pm(u.member, [u.other.id]));
});

test('wildcard_mention_policy: applies in streams of more than 15 subscribers', async () => {
  const crowd = [t.owner, u.admin, u.member, u.other];
  for (let i = 0; i < 12; i++) crowd.push(await t.createUser({ name: `Crowd ${i}` }));
  const { big, small } = await createStreams(t, { big: crowd, small: [t.owner, u.member] });
  const post = (as: TestUser, stream: number, content = 'hey @**all**') =>
    t.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: stream, topic: 'wild', content } });
  // Level 229: its own error code, in Zulip 9's words.
  const refusedWildcard: [string, string] = FEATURE_LEVEL >= 229
    ? ['You do not have permission to use channel wildcard mentions in this channel.', 'STREAM_WILDCARD_MENTION_NOT_ALLOWED']
    : ['You do not have permission to use wildcard mentions in this stream.', 'BAD_REQUEST'];
  // Administrators only (the default).
  assertError(await post(u.member, big.id), ...refusedWildcard);
  assertOk(await post(u.admin, big.id));
  assertOk(await post(u.member, small.id));
  // A silent wildcard mention notifies nobody, so it is allowed.
  assertOk(await post(u.member, big.id, 'hey @_**all**'));
  assertOk(await patch({ wildcard_mention_policy: 2 }));
  assertOk(await post(u.member, big.id));
  assertOk(await patch({ wildcard_mention_policy: 6 }));
  assertError(await post(t.owner, big.id), ...refusedWildcard);
  assertOk(await patch({ wildcard_mention_policy: 5 }));
});

test('PATCH /realm/user_settings_defaults: validators, events, register, and new users start with them', async () => {
  log.clear();
  assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { as: u.admin, params: { enter_sends: true, emojiset: 'twitter', color_scheme: 3 } }));
  const events = log.find('realm_user_settings_defaults', 'update');
  assert.deepEqual(events.map((e) => [(e.event as any).property, (e.event as any).value]).sort(), [['color_scheme', 3], ['emojiset', 'twitter'], ['enter_sends', true]]);
  for (const e of events) assert.ok(activeHumans().every((id) => e.userIds.includes(id)));
  const defaults = (await register(u.member)).realm_user_settings_defaults;
  assert.equal(defaults.enter_sends, true);
  assert.equal(defaults.emojiset, 'twitter');
  assert.equal(defaults.color_scheme, 3);
  assert.equal('timezone' in defaults, false);

  const newcomer = await t.createUser({ name: 'Nina Newcomer' });
  const settings = assertOk(await t.api('POST', '/api/v1/register', { as: newcomer, params: { fetch_event_types: ['user_settings'] } })).user_settings;
  assert.equal(settings.enter_sends, true);
  assert.equal(settings.emojiset, 'twitter');
  assert.equal(settings.color_scheme, 3);
  // Existing users keep their own settings.
  const old = assertOk(await t.api('POST', '/api/v1/register', { as: u.member, params: { fetch_event_types: ['user_settings'] } })).user_settings;
  assert.equal(old.enter_sends, false);

  const ignored = assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { enter_sends: true, timezone: 'UTC', bogus: 1 } }));
  assert.deepEqual(ignored.ignored_parameters_unsupported, ['timezone', 'bogus']);

  const defaultsPatch = (params: Record<string, unknown>, as: TestUser = t.owner) => t.api('PATCH', '/api/v1/realm/user_settings_defaults', { as, params });
  assertError(await defaultsPatch({ color_scheme: 9 }), 'Invalid color_scheme');
  assertError(await defaultsPatch({ emojiset: 'nope' }), 'Invalid emojiset');
  assertError(await defaultsPatch({ notification_sound: 'klaxon' }), "Invalid notification sound 'klaxon'");
  assertError(await defaultsPatch({ email_notifications_batching_period_seconds: 0 }), 'Invalid email batching period: 0 seconds');
  assertError(await defaultsPatch({ enter_sends: '"maybe"' }), 'enter_sends is not a boolean');
  assertError(await defaultsPatch({ enter_sends: false }, u.member), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await defaultsPatch({ enter_sends: false }, u.guest), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
});
