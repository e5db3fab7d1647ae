import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { postMultipart } from '../helpers/multipart.js';
import { Role } from '../../src/lib/roles.js';

// Levels 299-363 (realmB): can_create_groups, can_manage_all_groups, can_add_custom_emoji_group,
// can_invite_users_group, can_add_subscribers_group, can_create_bots_group,
// can_create_write_only_bots_group, can_summarize_topics_group, can_mention_many_users_group,
// can_manage_billing_group; message_edit_history_visibility_policy (358). The policies they
// replaced stay below their levels and map onto them from old clients.
let t: TestApp, old: TestApp;
let log: EventLog;
let ann: TestUser, admin: TestUser, guest: TestUser;
let sys: Record<string, number>;
let png: Buffer;

const systemGroups = async (app: TestApp) => Object.fromEntries((await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name'])
  .where('is_system_group', '=', 1).where('realm_id', '=', app.owner.row.realm_id).execute()).map((g) => [g.name, g.id]));

before(async () => {
  t = await testApp({ featureLevel: 371 });
  old = await testApp({ featureLevel: 122 });
  log = new EventLog(t);
  ann = await t.createUser({ name: 'Ann Member' });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  sys = await systemGroups(t);
  png = await sharp({ create: { width: 20, height: 20, channels: 4, background: '#3366ff' } }).png().toBuffer();
});
after(async () => { await t.close(); await old.close(); });

const patch = (app: TestApp, params: Record<string, unknown>, as?: TestUser) => app.api('PATCH', '/api/v1/realm', { as: as ?? app.owner, params });
const register = async (app: TestApp, as: TestUser) => assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm', 'realm_user'] } }));
const msg = (r: { body: { msg?: string } }) => r.body.msg;
const emoji = (app: TestApp, as: TestUser, name: string) => postMultipart(app, `/api/v1/realm/emoji/${name}`, as, [{ field: 'file', filename: 'e.png', content: png }]);

const DEFAULTS: Record<string, string> = {
  can_create_groups: 'role:members',
  // Parley's realms had user_group_edit_policy members (1): Zulip's migration gave both settings that group.
  can_manage_all_groups: 'role:members',
  can_add_custom_emoji_group: 'role:members',
  can_invite_users_group: 'role:members',
  can_add_subscribers_group: 'role:members',
  can_create_bots_group: 'role:members',
  can_create_write_only_bots_group: 'role:members',
  can_summarize_topics_group: 'role:everyone',
  can_mention_many_users_group: 'role:administrators',
  can_manage_billing_group: 'role:administrators',
};

test('register at 371: each setting, the deprecated fields kept, the removed ones gone', async () => {
  const reg = await register(t, ann);
  for (const [name, group] of Object.entries(DEFAULTS)) assert.equal(reg[`realm_${name}`], sys[group], name);
  for (const gone of ['add_custom_emoji_policy', 'invite_to_realm_policy', 'invite_to_stream_policy', 'bot_creation_policy']) {
    assert.ok(!(`realm_${gone}` in reg), gone);
  }
  assert.equal(reg.realm_user_group_edit_policy, 1);
  assert.equal(reg.realm_wildcard_mention_policy, 5, 'the phone app requires it, a strict enum');
  assert.equal(reg.realm_allow_edit_history, true);
  assert.equal(reg.realm_message_edit_history_visibility_policy, 'all');
  assert.ok(!('can_subscribe_other_users' in reg), 'level 341');
  assert.equal(reg.server_can_summarize_topics, false);
  const supported = (reg.server_supported_permission_settings as { realm: Record<string, { default_group_name: string }> }).realm;
  for (const [name, group] of Object.entries(DEFAULTS)) if (name !== 'can_manage_all_groups') assert.equal(supported[name]?.default_group_name, group, name);
});

test('register at 122: the policies, no group settings, can_subscribe_other_users', async () => {
  const reg = await register(old, old.owner);
  for (const name of Object.keys(DEFAULTS)) assert.ok(!(`realm_${name}` in reg), name);
  assert.equal(reg.realm_add_custom_emoji_policy, 1);
  assert.equal(reg.realm_invite_to_realm_policy, 1);
  assert.equal(reg.realm_invite_to_stream_policy, 1);
  assert.equal(reg.realm_bot_creation_policy, 1);
  assert.equal(reg.realm_wildcard_mention_policy, 5);
  assert.equal(reg.can_subscribe_other_users, true);
  assert.ok(!('realm_message_edit_history_visibility_policy' in reg));
  assert.ok(!('server_can_summarize_topics' in reg));
});

test('307: can_add_custom_emoji_group decides uploads; update_dict to everyone; the old policy maps onto it', async () => {
  log.clear();
  assert.deepEqual(assertOk(await patch(t, { can_add_custom_emoji_group: sys['role:administrators'] })), { result: 'success', msg: '', can_add_custom_emoji_group: sys['role:administrators'] });
  const e = log.one('realm', 'update_dict');
  assert.deepEqual(e.event.data, { can_add_custom_emoji_group: sys['role:administrators'] });
  assert.ok(e.userIds.includes(ann.id) && e.userIds.includes(guest.id));
  assert.equal(log.find('realm', 'update').length, 0, 'add_custom_emoji_policy is gone from events at 307');
  assert.equal(msg(await emoji(t, ann, 'annmoji')), 'Insufficient permission');
  assert.equal((await emoji(t, admin, 'adminmoji')).status, 200);
  // An old client's policy parameter sets the group.
  assertOk(await patch(t, { add_custom_emoji_policy: 1 }));
  assert.equal((await register(t, ann)).realm_can_add_custom_emoji_group, sys['role:members']);
  assert.equal((await emoji(t, ann, 'annmoji')).status, 200);
  assert.equal(msg(await patch(t, { can_add_custom_emoji_group: sys['role:members'] }, ann)), 'Must be an organization administrator');
  // At 122 the policy: stored, announced, obeyed.
  const oldLog = new EventLog(old);
  assert.deepEqual(assertOk(await patch(old, { add_custom_emoji_policy: 2 })), { result: 'success', msg: '', add_custom_emoji_policy: 2 });
  assert.equal(oldLog.one('realm', 'update').event.property, 'add_custom_emoji_policy');
  assert.equal((await register(old, old.owner)).realm_add_custom_emoji_policy, 2);
  const member = await old.createUser({ name: 'Old Member' });
  assert.equal(msg(await emoji(old, member, 'oldmoji')), 'Insufficient permission');
  assertOk(await patch(old, { add_custom_emoji_policy: 1 }));
});

test('299/321/363: can_create_groups, can_manage_all_groups, can_invite_users_group, can_manage_billing_group are for owners to change', async () => {
  for (const name of ['can_create_groups', 'can_manage_all_groups', 'can_invite_users_group', 'can_manage_billing_group']) {
    assert.equal(msg(await patch(t, { [name]: sys['role:moderators'] }, admin)), 'Must be an organization owner', name);
  }
  assert.equal(msg(await patch(t, { can_manage_all_groups: sys['role:nobody'] })), "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
  assertOk(await patch(t, { can_create_groups: sys['role:administrators'], can_manage_all_groups: sys['role:administrators'] }));
  const reg = await register(t, ann);
  assert.equal(reg.realm_can_create_groups, sys['role:administrators']);
  assert.equal(reg.realm_user_group_edit_policy, 2, 'deprecated, follows can_manage_all_groups');
  // The old policy sets both (Zulip's migration).
  assertOk(await patch(t, { user_group_edit_policy: 1 }));
  const back = await register(t, ann);
  assert.equal(back.realm_can_create_groups, sys['role:members']);
  assert.equal(back.realm_can_manage_all_groups, sys['role:members']);
  assert.equal(back.realm_user_group_edit_policy, 1);
});

test('321: can_invite_users_group decides who invites', async () => {
  assertOk(await patch(t, { can_invite_users_group: sys['role:administrators'] }));
  const invite = (as: TestUser) => t.api('POST', '/api/v1/invites', { as, params: { invitee_emails: 'someone@example.com', stream_ids: '[]', invite_as: 400 } });
  assert.equal(msg(await invite(ann)), 'Insufficient permission');
  assertOk(await invite(admin));
  assertOk(await patch(t, { invite_to_realm_policy: 1 }));
  assert.equal((await register(t, ann)).realm_can_invite_users_group, sys['role:members']);
});

test('341: can_add_subscribers_group decides who subscribes others', async () => {
  await createStreams(t, { subs: [ann, admin] });
  assertOk(await patch(t, { can_add_subscribers_group: sys['role:administrators'] }));
  const add = (as: TestUser) => t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: JSON.stringify([{ name: 'subs' }]), principals: JSON.stringify([guest.id]) } });
  assert.equal(msg(await add(ann)), 'Insufficient permission');
  assertOk(await add(admin));
  assertOk(await patch(t, { invite_to_stream_policy: 1 }));
  assert.equal((await register(t, ann)).realm_can_add_subscribers_group, sys['role:members']);
  // At 122: can_subscribe_other_users follows the policy.
  assertOk(await patch(old, { invite_to_stream_policy: 2 }));
  const member = await old.createUser({ name: 'Sub Member' });
  assert.equal((await register(old, member)).can_subscribe_other_users, false);
  assertOk(await patch(old, { invite_to_stream_policy: 1 }));
});

test('344: can_create_bots_group and can_create_write_only_bots_group; bot_creation_policy maps onto both', async () => {
  const bot = (app: TestApp, as: TestUser, short: string, type: number) => app.api('POST', '/api/v1/bots', { as, params: { full_name: `Bot ${short}`, short_name: short, bot_type: type } });
  assertOk(await patch(t, { can_create_bots_group: sys['role:administrators'] }));
  assert.equal(msg(await bot(t, ann, 'generic', 1)), 'Insufficient permission');
  assertOk(await bot(t, ann, 'hook', 2));
  assertOk(await bot(t, admin, 'admingeneric', 1));
  assertOk(await patch(t, { bot_creation_policy: 3 }));
  const reg = await register(t, ann);
  assert.equal(reg.realm_can_create_bots_group, sys['role:administrators']);
  assert.equal(reg.realm_can_create_write_only_bots_group, sys['role:administrators']);
  assert.equal(msg(await bot(t, ann, 'hook2', 2)), 'Insufficient permission');
  assertOk(await patch(t, { bot_creation_policy: 1 }));
  // At 122: Zulip 9's error, and the policy in register follows both groups.
  assertOk(await patch(old, { bot_creation_policy: 2 }));
  const member = await old.createUser({ name: 'Bot Maker' });
  assert.equal(msg(await bot(old, member, 'oldgeneric', 1)), 'Must be an organization administrator');
  assertOk(await bot(old, member, 'oldhook', 2));
  assert.equal((await register(old, member)).realm_bot_creation_policy, 2);
  assertOk(await patch(old, { bot_creation_policy: 1 }));
});

test('352: can_mention_many_users_group decides wildcards in large streams; realm_wildcard_mention_policy follows it', async () => {
  const crowd: TestUser[] = [];
  for (let i = 0; i < 16; i++) crowd.push(await t.createUser({ name: `Crowd ${i}` }));
  await createStreams(t, { crowded: [ann, admin, ...crowd] });
  const send = (as: TestUser) => t.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: 'crowded', topic: 'all', content: '@**all** hello' } });
  assert.equal(msg(await send(ann)), 'You do not have permission to use channel wildcard mentions in this channel.');
  assertOk(await send(admin));
  log.clear();
  assertOk(await patch(t, { can_mention_many_users_group: sys['role:members'] }));
  assert.deepEqual(log.one('realm', 'update_dict').event.data, { can_mention_many_users_group: sys['role:members'] });
  // Kept in register, so announced too: a client's state stays a fresh register's.
  assert.deepEqual([log.one('realm', 'update').event.property, log.one('realm', 'update').event.value], ['wildcard_mention_policy', 2]);
  assertOk(await send(ann));
  assert.equal((await register(t, ann)).realm_wildcard_mention_policy, 2);
  // A named group: the deprecated policy says what allows the most (everyone), within the app's enum.
  const group = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: t.owner, params: { name: 'shouters', description: 'x', members: JSON.stringify([admin.id]) } }));
  const gid = (group.group_id as number | undefined) ?? (await t.app.ctx.store.db.selectFrom('user_group').select('id').where('name', '=', 'shouters').executeTakeFirstOrThrow()).id;
  assertOk(await patch(t, { can_mention_many_users_group: gid }));
  assert.equal((await register(t, ann)).realm_wildcard_mention_policy, 1);
  assert.equal(msg(await send(ann)), 'You do not have permission to use channel wildcard mentions in this channel.');
  assertOk(await send(admin));
  assertOk(await patch(t, { wildcard_mention_policy: 5 }));
  assert.equal((await register(t, ann)).realm_can_mention_many_users_group, sys['role:administrators']);
});

test('358: message_edit_history_visibility_policy; "moves" hides content edits, "none" the history', async () => {
  await createStreams(t, { history: [ann] });
  const id = assertOk(await t.api('POST', '/api/v1/messages', { as: ann, params: { type: 'stream', to: 'history', topic: 'one', content: 'first' } })).id as number;
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: ann, params: { content: 'second' } }));
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: ann, params: { topic: 'two' } }));
  const history = async () => t.api('GET', `/api/v1/messages/${id}/history`, { as: ann });
  assert.equal((assertOk(await history()).message_history as unknown[]).length, 3);
  assert.equal(msg(await patch(t, { message_edit_history_visibility_policy: 'some' })), 'Invalid message_edit_history_visibility_policy');
  log.clear();
  assert.deepEqual(assertOk(await patch(t, { message_edit_history_visibility_policy: 'moves' })),
    { result: 'success', msg: '', message_edit_history_visibility_policy: 'moves' });
  assert.deepEqual(log.find('realm', 'update').map((e) => [e.event.property, e.event.value]), [['message_edit_history_visibility_policy', 'moves']]);
  const moves = assertOk(await history()).message_history as Array<Record<string, unknown>>;
  assert.equal(moves.length, 2, 'the original and the move');
  assert.ok(moves.every((v) => !('prev_content' in v)));
  assert.equal(moves[1]!.prev_topic, 'one');
  const fetched = assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as: ann })).message as { edit_history: Array<Record<string, unknown>> };
  assert.deepEqual(fetched.edit_history.map((e) => 'prev_content' in e), [false]);
  log.clear();
  assertOk(await patch(t, { message_edit_history_visibility_policy: 'none' }));
  assert.deepEqual(log.find('realm', 'update').map((e) => e.event.property).sort(), ['allow_edit_history', 'message_edit_history_visibility_policy']);
  assert.equal(msg(await history()), 'Message edit history is disabled in this organization');
  assert.equal((await register(t, ann)).realm_allow_edit_history, false);
  // The old parameter sets the new policy.
  assertOk(await patch(t, { allow_edit_history: true }));
  assert.equal((await register(t, ann)).realm_message_edit_history_visibility_policy, 'all');
  // At 122 the policy is neither answered nor in register.
  assert.deepEqual(assertOk(await patch(old, { allow_edit_history: false })), { result: 'success', msg: '', allow_edit_history: false });
  assert.ok(!('realm_message_edit_history_visibility_policy' in await register(old, old.owner)));
  assertOk(await patch(old, { allow_edit_history: true }));
});

test('PATCH /realm needs authentication', async () => {
  assert.equal((await t.api('PATCH', '/api/v1/realm', { as: null, params: { can_add_custom_emoji_group: sys['role:members'] } })).status, 401);
});

test('350: hide_ai_features (a personal setting; Parley has no AI) from its level', async () => {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: ann, params: { fetch_event_types: ['user_settings'] } }));
  assert.equal((reg.user_settings as Record<string, unknown>).hide_ai_features, false);
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: ann, params: { hide_ai_features: true } }));
  const after = assertOk(await t.api('POST', '/api/v1/register', { as: ann, params: { fetch_event_types: ['user_settings'] } }));
  assert.equal((after.user_settings as Record<string, unknown>).hide_ai_features, true);
  const oldReg = assertOk(await old.api('POST', '/api/v1/register', { as: old.owner, params: { fetch_event_types: ['user_settings'] } }));
  assert.ok(!('hide_ai_features' in (oldReg.user_settings as Record<string, unknown>)));
});

test('363: no is_billing_admin in user objects, register or realm_user events; still there at 122', async () => {
  const me = assertOk(await t.api('GET', '/api/v1/users/me', { as: ann }));
  assert.ok(!('is_billing_admin' in me));
  const members = assertOk(await t.api('GET', '/api/v1/users', { as: ann })).members as Array<Record<string, unknown>>;
  assert.ok(members.every((u) => !('is_billing_admin' in u)));
  const reg = await register(t, ann);
  assert.ok(!('is_billing_admin' in reg));
  assert.ok((reg.realm_users as Array<Record<string, unknown>>).every((u) => !('is_billing_admin' in u)));
  log.clear();
  const newcomer = await t.createUser({ name: 'New Comer' });
  const added = log.find('realm_user', 'add').map((e) => e.event.person as Record<string, unknown>);
  assert.ok(added.some((p) => p.user_id === newcomer.id) && added.every((p) => !('is_billing_admin' in p)));
  assert.equal(assertOk(await old.api('GET', '/api/v1/users/me', { as: old.owner })).is_billing_admin, false);
  assert.equal((await register(old, old.owner)).is_billing_admin, false);
});
