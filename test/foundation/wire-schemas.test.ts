import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { testApp, people, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { postMultipart, uploadOne } from '../helpers/multipart.js';
import {
  WireAttachment, WireBot, WireCreatedBot, WireDraft, WireInvite, WireLinkifier, WireListedBot, WireListedStream, WireMessage,
  WireNeverSubscribedStream, WireOwnUser, WirePatchedBot, WirePresences, WireProfileField, WireReaction, WireRealmEmojiDict,
  WireServerSettings, WireStream, WireStreamRef, WireSubscription, WireUser, WireUserGroup, WireUserStatus,
} from '../../src/schemas/wire.js';

/**
 * The wire schemas (src/schemas/wire.ts) against objects built through the API: each
 * presenter's output, in every variant the tests can reach, matches its schema exactly
 * (the schemas allow no undeclared property).
 */
let t: TestApp;
let u: Record<'alice' | 'bob' | 'carol', TestUser>;
let bot: TestUser;
let log: EventLog;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  u = await t.createUsers(people('alice', 'bob', 'carol'));
  bot = await t.createBot(u.alice, { fullName: 'Helper Bot', shortName: 'helper' });
  await createStreams(t, {
    general: [t.owner, u.alice, u.bob, u.carol],
    secret: { inviteOnly: true, subscribers: [t.owner, u.alice] },
    quiet: [u.bob],
  });
});
after(() => t.close());

/** Asserts that `value` matches `schema`, printing TypeBox's errors and the value when not. */
function check(schema: TSchema, value: unknown, what: string): void {
  if (Value.Check(schema, value)) return;
  const errors = [...Value.Errors(schema, value)].map((e) => `  ${e.path || '/'}: ${e.message} (got ${JSON.stringify(e.value)})`);
  assert.fail(`${what} does not match ${String(schema.$id ?? 'its schema')}:\n${errors.join('\n')}\nvalue: ${JSON.stringify(value, null, 1)}`);
}

const checkAll = (schema: TSchema, values: unknown[], what: string) => {
  assert.ok(Array.isArray(values) && values.length > 0, `${what}: expected a non-empty list, got ${JSON.stringify(values)}`);
  values.forEach((v, i) => check(schema, v, `${what}[${i}]`));
};

/** The success answer without its envelope. */
function answer(r: ApiResult): Record<string, unknown> {
  const { result: _result, msg: _msg, ...rest } = assertOk(r);
  return rest;
}

const get = async (url: string, as: TestUser | null = t.owner, params?: Record<string, unknown>) => answer(await t.api('GET', `/api/v1${url}`, { as, params }));
const post = async (url: string, as: TestUser, params: Record<string, unknown> = {}) => answer(await t.api('POST', `/api/v1${url}`, { as, params }));

test('the schemas are closed: an undeclared or missing property fails the check', async () => {
  const [someone] = (await get('/users')).members as Array<Record<string, unknown>>;
  check(WireUser, someone, 'a user');
  assert.equal(Value.Check(WireUser, { ...someone, surprise: 1 }), false);
  const { full_name: _f, ...missing } = someone!;
  assert.equal(Value.Check(WireUser, missing), false);
});

test('User: GET /users (each option), GET /users/{id}, register realm_users', async () => {
  await post('/realm/profile_fields', t.owner, { name: 'Phone', field_type: 1 }).then(async ({ id }) =>
    assertOk(await t.api('PATCH', '/api/v1/users/me/profile_data', { as: u.alice, params: { data: [{ id, value: '+1 555' }] } })));
  for (const as of [t.owner, u.bob]) {
    for (const params of [{}, { client_gravatar: false, include_custom_profile_fields: true }]) {
      const members = (await get('/users', as, params)).members as Array<Record<string, unknown>>;
      checkAll(WireUser, members, `GET /users ${JSON.stringify(params)} as ${as.email}`);
      assert.ok(members.some((m) => m.is_bot === true && 'bot_owner_id' in m), 'a bot is listed with its owner');
      if (as === t.owner) assert.ok(members.every((m) => 'delivery_email' in m), 'administrators see delivery emails');
      if ('include_custom_profile_fields' in params) {
        assert.ok(members.some((m) => Object.keys((m.profile_data ?? {}) as object).length > 0), 'some profile data is shown');
      }
    }
  }
  check(WireUser, (await get(`/users/${u.alice.id}`, u.bob, { include_custom_profile_fields: true })).user, 'GET /users/{id}');
  check(WireUser, (await get(`/users/${bot.id}`, u.bob)).user, 'GET /users/{bot id}');
  const reg = await post('/register', u.bob, { fetch_event_types: ['realm_user'] });
  checkAll(WireUser, reg.realm_users as unknown[], 'register realm_users');
});

test('OwnUser: GET /users/me', async () => {
  check(WireOwnUser, await get('/users/me', u.alice), 'GET /users/me');
  check(WireOwnUser, await get('/users/me', bot), 'GET /users/me as a bot');
});

test('Stream: GET /streams (with include_default), GET /streams/{id}, register streams', async () => {
  const plain = (await get('/streams', u.alice)).streams as Array<{ stream_id: number }>;
  checkAll(WireListedStream, plain, 'GET /streams');
  checkAll(WireStream, plain, 'GET /streams without include_default');
  checkAll(WireListedStream, (await get('/streams', t.owner, { include_default: true, include_all_active: true })).streams as unknown[], 'GET /streams include_default');
  check(WireStream, (await get(`/streams/${plain[0]!.stream_id}`, u.alice)).stream, 'GET /streams/{id}');
  const reg = await post('/register', u.alice, { fetch_event_types: ['stream'] });
  checkAll(WireStream, reg.streams as unknown[], 'register streams');
});

test('Subscription: GET /users/me/subscriptions, register subscriptions / unsubscribed / never_subscribed', async () => {
  for (const params of [{}, { include_subscribers: true }]) {
    checkAll(WireSubscription, (await get('/users/me/subscriptions', u.alice, params)).subscriptions as unknown[], `GET /users/me/subscriptions ${JSON.stringify(params)}`);
  }
  // A past subscription, and a stream never joined.
  await post('/users/me/subscriptions', u.carol, { subscriptions: [{ name: 'quiet' }] });
  const removed = answer(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: u.carol, params: { subscriptions: ['quiet'] } }));
  assert.deepEqual(removed.removed, ['quiet']);
  for (const params of [{}, { client_capabilities: { notification_settings_null: true }, include_subscribers: true }]) {
    const reg = await post('/register', u.carol, { fetch_event_types: ['subscription'], ...params });
    checkAll(WireSubscription, reg.subscriptions as unknown[], 'register subscriptions');
    checkAll(WireSubscription, reg.unsubscribed as unknown[], 'register unsubscribed');
    const never = reg.never_subscribed as unknown[];
    never.forEach((s, i) => check(WireNeverSubscribedStream, s, `register never_subscribed[${i}]`));
  }
});

test('Message and Reaction: GET /messages with stream and private messages, reactions, edits and search', async () => {
  const emojiId = await uploadEmoji('wave_custom', await png());
  const streamMsg = await sendMessage(t, u.alice, { type: 'stream', to: 'general', topic: 'schemas #123', content: 'hello **schemas**' });
  const pm = await sendMessage(t, u.alice, { type: 'private', to: JSON.stringify([u.bob.id]), content: 'a private hello' });
  const group = await sendMessage(t, u.alice, { type: 'private', to: JSON.stringify([u.bob.id, u.carol.id]), content: 'a group hello' });
  await post('/realm/filters', t.owner, { pattern: '#(?P<id>[0-9]+)', url_format_string: 'https://example.com/issue/%(id)s' });
  for (const id of [streamMsg, pm, group]) {
    assertOk(await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: u.bob, params: { emoji_name: 'smile' } }));
  }
  assertOk(await t.api('POST', `/api/v1/messages/${streamMsg}/reactions`, { as: u.alice, params: { emoji_name: 'wave_custom', emoji_code: String(emojiId), reaction_type: 'realm_emoji' } }));
  assertOk(await t.api('POST', `/api/v1/messages/${streamMsg}/reactions`, { as: u.alice, params: { emoji_name: 'zulip', reaction_type: 'zulip_extra_emoji', emoji_code: 'zulip' } }));
  assertOk(await t.api('PATCH', `/api/v1/messages/${streamMsg}`, { as: u.alice, params: { content: 'hello **edited schemas**', topic: 'schemas #124' } }));

  const seen = { stream: 0, private: 0, edited: 0, reactionTypes: new Set<string>() };
  for (const params of [{}, { apply_markdown: false, client_gravatar: true }, { narrow: [{ operator: 'search', operand: 'hello' }] }]) {
    const messages = (await get('/messages', u.bob, { anchor: 'newest', num_before: 50, num_after: 0, ...params })).messages as Array<Record<string, any>>;
    checkAll(WireMessage, messages, `GET /messages ${JSON.stringify(params)}`);
    for (const m of messages) {
      if (typeof m.display_recipient === 'string') seen.stream += 1;
      else seen.private += 1;
      if (m.edit_history) seen.edited += 1;
      for (const r of m.reactions) {
        check(WireReaction, r, 'a reaction');
        seen.reactionTypes.add(r.reaction_type);
      }
    }
    if ('narrow' in params) assert.ok(messages.every((m) => typeof m.match_content === 'string'), 'search results carry match_content');
  }
  assert.ok(seen.stream > 0 && seen.private > 0 && seen.edited > 0, JSON.stringify(seen));
  assert.deepEqual([...seen.reactionTypes].sort(), ['realm_emoji', 'service_extra_emoji', 'unicode_emoji']);
  check(WireMessage, (await get(`/messages/${group}`, u.carol)).message, 'GET /messages/{id}');
});

test('Draft: GET /drafts and register drafts', async () => {
  const streamId = (await get('/get_stream_id', u.alice, { stream: 'general' })).stream_id as number;
  await post('/drafts', u.alice, {
    drafts: JSON.stringify([
      { type: '', to: [], topic: '', content: 'unaddressed' },
      { type: 'stream', to: [streamId], topic: 'plans', content: 'a stream draft' },
      { type: 'private', to: [u.bob.id], topic: '', content: 'a private draft', timestamp: 1_700_000_000.5 },
    ]),
  });
  const body = await get('/drafts', u.alice);
  checkAll(WireDraft, body.drafts as unknown[], 'GET /drafts');
  checkAll(WireDraft, (await post('/register', u.alice, { fetch_event_types: ['drafts'] })).drafts as unknown[], 'register drafts');
});

test('ProfileField: GET /realm/profile_fields, register custom_profile_fields', async () => {
  await post('/realm/profile_fields', t.owner, {
    name: 'Editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } },
  });
  await post('/realm/profile_fields', t.owner, { field_type: 7, field_data: { subtype: 'github' } });
  checkAll(WireProfileField, (await get('/realm/profile_fields', u.bob)).custom_fields as unknown[], 'GET /realm/profile_fields');
  checkAll(WireProfileField, (await post('/register', u.bob, { fetch_event_types: ['custom_profile_fields'] })).custom_profile_fields as unknown[], 'register custom_profile_fields');
});

const png = (color = '#3366ff') => sharp({ create: { width: 64, height: 64, channels: 4, background: color } }).png().toBuffer();

async function uploadEmoji(name: string, content: Buffer, filename = `${name}.png`): Promise<number> {
  const r = await postMultipart(t, `/api/v1/realm/emoji/${name}`, u.alice, [{ field: 'file', filename, content }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const dict = (await get('/realm/emoji', u.alice)).emoji as Record<string, { id: string; name: string }>;
  return Number(Object.values(dict).find((e) => e.name === name)!.id);
}

test('RealmEmoji: GET /realm/emoji (still, animated, deactivated), register realm_emoji', async () => {
  const frames = [await png('#ff0000'), await png('#00ff00')];
  await uploadEmoji('blinker', await sharp(frames, { join: { animated: true } }).gif().toBuffer(), 'blinker.gif');
  await uploadEmoji('gone_soon', await png('#000000'));
  assertOk(await t.api('DELETE', '/api/v1/realm/emoji/gone_soon', { as: t.owner }));
  const dict = (await get('/realm/emoji', u.bob)).emoji as Record<string, { still_url: string | null; deactivated: boolean }>;
  check(WireRealmEmojiDict, dict, 'GET /realm/emoji');
  assert.ok(Object.values(dict).some((e) => e.still_url !== null), 'an animated emoji has a still_url');
  assert.ok(Object.values(dict).some((e) => e.deactivated), 'a deactivated emoji is listed');
  check(WireRealmEmojiDict, (await post('/register', u.bob, { fetch_event_types: ['realm_emoji'] })).realm_emoji, 'register realm_emoji');
});

test('Attachment: GET /attachments, linked and unlinked', async () => {
  const uri = await uploadOne(t, u.carol, 'notes.txt', 'some notes');
  await uploadOne(t, u.carol, 'unlinked.txt', 'nothing links me');
  await sendMessage(t, u.carol, { type: 'stream', to: 'general', topic: 'files', content: `[notes](${uri})` });
  const body = await get('/attachments', u.carol);
  const list = body.attachments as Array<{ messages: unknown[] }>;
  checkAll(WireAttachment, list, 'GET /attachments');
  assert.ok(list.some((a) => a.messages.length > 0) && list.some((a) => a.messages.length === 0));
});

test('Invite: GET /invites with email invitations and reusable links', async () => {
  const streamId = (await get('/get_stream_id', t.owner, { stream: 'general' })).stream_id as number;
  await post('/invites', t.owner, { invitee_emails: 'newcomer@parley.test', stream_ids: [streamId] });
  await post('/invites', t.owner, { invitee_emails: 'forever@parley.test', stream_ids: [streamId], invite_expires_in_days: null });
  await post('/invites/multiuse', t.owner, { stream_ids: [streamId] });
  const list = (await get('/invites', t.owner)).invites as Array<{ is_multiuse: boolean; expiry_date: number | null }>;
  checkAll(WireInvite, list, 'GET /invites');
  assert.ok(list.some((i) => i.is_multiuse) && list.some((i) => !i.is_multiuse) && list.some((i) => i.expiry_date === null));
});

test('ServerSettings: GET /server_settings without credentials', async () => {
  check(WireServerSettings, await get('/server_settings', null), 'GET /server_settings');
});

test('Presence: GET /realm/presence by email and slim, register presences', async () => {
  for (const [as, status] of [[u.alice, 'active'], [u.bob, 'idle']] as const) {
    assertOk(await t.api('POST', '/api/v1/users/me/presence', { as, params: { status }, headers: { 'user-agent': 'ZulipTerminal/0.7.0 Linux' } }));
  }
  assertOk(await t.api('POST', '/api/v1/users/me/presence', { as: u.alice, params: { status: 'active', client: 'website' } }));
  for (const params of [{}, { slim_presence: true }]) {
    const presences = (await get('/realm/presence', u.carol, params)).presences as Record<string, Record<string, unknown>>;
    assert.ok(Object.keys(presences).length >= 2, JSON.stringify(presences));
    check(WirePresences, presences, `GET /realm/presence ${JSON.stringify(params)}`);
  }
  check(WirePresences, (await post('/register', u.carol, { fetch_event_types: ['presence'] })).presences, 'register presences');
});

test('Bots: GET /bots, POST /bots, PATCH /bots/{id}, register realm_bots', async () => {
  const created = await post('/bots', u.alice, { full_name: 'Outgoing Bot', short_name: 'outgoing', bot_type: 3, payload_url: 'http://localhost/hook', interface_type: 2 });
  check(WireCreatedBot, created, 'POST /bots');
  await post('/bots', u.alice, { full_name: 'Sender Bot', short_name: 'sender', default_sending_stream: 'general', default_events_register_stream: 'general' });
  const patched = answer(await t.api('PATCH', `/api/v1/bots/${created.user_id}`, { as: u.alice, params: { full_name: 'Outgoing Bot 2' } }));
  check(WirePatchedBot, patched, 'PATCH /bots/{id}');
  const owned = answer(await t.api('PATCH', `/api/v1/bots/${created.user_id}`, { as: t.owner, params: { bot_owner_id: u.bob.id, service_payload_url: 'http://localhost/other' } }));
  check(WirePatchedBot, owned, 'PATCH /bots/{id} changing the owner');
  for (const as of [u.alice, t.owner]) checkAll(WireListedBot, (await get('/bots', as)).bots as unknown[], `GET /bots as ${as.email}`);
  for (const as of [u.bob, t.owner]) {
    const bots = (await post('/register', as, { fetch_event_types: ['realm_bot'] })).realm_bots as Array<{ services: unknown[] }>;
    checkAll(WireBot, bots, `register realm_bots as ${as.email}`);
    if (as === t.owner) assert.ok(bots.some((b) => b.services.length > 0), 'an outgoing-webhook bot shows its service');
  }
});

test('Linkifier: GET /realm/linkifiers, register realm_linkifiers', async () => {
  // From level 176 register lists linkifiers only to a client with linkifier_url_template (ignored at 122).
  await post('/realm/filters', t.owner, { pattern: 'JIRA-(?P<id>[0-9]+)', url_format_string: 'https://jira.example.com/browse/JIRA-%(id)s' });
  checkAll(WireLinkifier, (await get('/realm/linkifiers', u.bob)).linkifiers as unknown[], 'GET /realm/linkifiers');
  checkAll(WireLinkifier, (await post('/register', u.bob, { fetch_event_types: ['realm_linkifiers'], client_capabilities: { linkifier_url_template: true } })).realm_linkifiers as unknown[], 'register realm_linkifiers');
});

test('UserStatus: register user_status, each variant', async () => {
  await post('/users/me/status', u.alice, { status_text: 'On a train', away: true, emoji_name: 'train' });
  await post('/users/me/status', u.bob, { away: true });
  await post('/users/me/status', u.carol, { status_text: 'Reading' });
  const statuses = (await post('/register', u.bob, { fetch_event_types: ['user_status'] })).user_status as Record<string, unknown>;
  const entries = Object.entries(statuses);
  assert.ok(entries.length >= 3, JSON.stringify(statuses));
  for (const [id, s] of entries) check(WireUserStatus, s, `register user_status[${id}]`);
  check(Type.Record(Type.String(), WireUserStatus), statuses, 'register user_status');
});

test('UserGroup: GET /user_groups', async () => {
  await post('/user_groups/create', t.owner, { name: 'travellers', description: 'On the move', members: [u.alice.id, u.bob.id] });
  checkAll(WireUserGroup, (await get('/user_groups', u.carol)).user_groups as unknown[], 'GET /user_groups');
});

test('events carry the same objects: stream, subscription, message, user, bot, group, emoji, draft, attachment, profile fields', async () => {
  log.clear();
  await post('/users/me/subscriptions', u.alice, { subscriptions: [{ name: 'evented', description: 'for *events*' }], principals: [u.bob.id] });
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: u.bob, params: { subscriptions: ['evented'] } }));
  await sendMessage(t, u.alice, { type: 'stream', to: 'evented', topic: 'events', content: 'an evented message' });
  await sendMessage(t, u.alice, { type: 'private', to: JSON.stringify([u.bob.id, u.carol.id]), content: 'an evented private message' });
  await post('/users', t.owner, { email: 'newbie@parley.test', password: 'newbie-password-1', full_name: 'New Bie' });
  await post('/bots', u.alice, { full_name: 'Evented Bot', short_name: 'evented' });
  await post('/user_groups/create', t.owner, { name: 'evented', description: 'x', members: [u.alice.id] });
  await uploadEmoji('evented_emoji', await png('#123456'));
  await post('/drafts', u.alice, { drafts: JSON.stringify([{ type: 'private', to: [u.bob.id], topic: '', content: 'evented draft' }]) });
  await uploadOne(t, u.alice, 'evented.txt', 'evented');
  await post('/realm/profile_fields', t.owner, { name: 'Evented field', field_type: 2 });

  const events = (type: string, op?: string) => {
    const found = log.find(type, op).map((e) => e.event as Record<string, any>);
    assert.ok(found.length > 0, `no ${type}/${op} event`);
    return found;
  };
  for (const e of events('stream', 'create')) checkAll(WireStream, e.streams, 'stream create event');
  for (const e of events('subscription', 'add')) checkAll(WireSubscription, e.subscriptions, 'subscription add event');
  for (const e of events('subscription', 'remove')) checkAll(WireStreamRef, e.subscriptions, 'subscription remove event');
  for (const e of events('message')) check(WireMessage, e.message, 'message event');
  for (const e of events('realm_user', 'add')) check(WireUser, e.person, 'realm_user add event');
  for (const e of events('realm_bot', 'add')) check(WireBot, e.bot, 'realm_bot add event');
  for (const e of events('user_group', 'add')) check(WireUserGroup, e.group, 'user_group add event');
  for (const e of events('realm_emoji')) check(WireRealmEmojiDict, e.realm_emoji, 'realm_emoji event');
  for (const e of events('drafts', 'add')) checkAll(WireDraft, e.drafts, 'drafts add event');
  for (const e of events('attachment', 'add')) check(WireAttachment, e.attachment, 'attachment add event');
  for (const e of events('custom_profile_fields')) checkAll(WireProfileField, e.fields, 'custom_profile_fields event');
});
