import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { subscribe } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';
import { refreshRecentlyActive } from '../../src/actions/stream-activity.js';

// Zulip 10's streams (levels 315-362): archived channels, stream group settings as
// group-setting values, channel administrators, email address senders, GET /streams' new
// parameters; the level-277 behaviour beside it where it differs.
let t: TestApp, old: TestApp;
let log: EventLog;
let member: TestUser, other: TestUser, admin: TestUser, guest: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 371 });
  old = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  member = await t.createUser({ name: 'Max Member' });
  other = await t.createUser({ name: 'Otto Other' });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
});
after(async () => { await t.close(); await old.close(); });

async function systemGroups(app: TestApp): Promise<Record<string, number>> {
  const rows = await app.app.ctx.store.db.selectFrom('user_group').select(['id', 'name']).where('is_system_group', '=', 1)
    .where('realm_id', '=', app.owner.row.realm_id).execute();
  return Object.fromEntries(rows.map((g) => [g.name, g.id]));
}
const getStream = (app: TestApp, as: TestUser, id: number) => app.api('GET', `/api/v1/streams/${id}`, { as });
const patch = (app: TestApp, as: TestUser, id: number, params: Record<string, unknown>) => app.api('PATCH', `/api/v1/streams/${id}`, { as, params });

test('315: is_archived; archiving keeps subscriptions; exclude_archived; archived_channels register; already archived', async () => {
  const pub = await subscribe(t, member, 'arch-public');
  const priv = await subscribe(t, member, 'arch-private', { invite_only: true });
  assert.equal(assertOk(await getStream(t, member, pub)).stream.is_archived, false);
  assertOk(await t.api('DELETE', `/api/v1/streams/${pub}`, { as: admin }));
  assertOk(await t.api('DELETE', `/api/v1/streams/${priv}`, { as: admin }));
  assertError(await t.api('DELETE', `/api/v1/streams/${pub}`, { as: admin }), 'Channel is already deactivated');
  // Fetched by id with is_archived; a private one only by those who may see it.
  assert.equal(assertOk(await getStream(t, other, pub)).stream.is_archived, true);
  assert.equal(assertOk(await getStream(t, member, priv)).stream.is_archived, true);
  assertError(await getStream(t, other, priv), 'Invalid stream id');
  assertError(await getStream(t, guest, pub), 'Invalid stream id');
  // GET /streams lists them only with exclude_archived=false, under the same visibility.
  const names = async (as: TestUser, query: Record<string, unknown> = {}) =>
    assertOk(await t.api('GET', '/api/v1/streams', { as, query })).streams.map((s: { name: string }) => s.name);
  assert.ok(!(await names(member)).includes('arch-public'));
  assert.ok((await names(member, { exclude_archived: false })).includes('arch-public'));
  assert.ok((await names(member, { exclude_archived: false })).includes('arch-private'));
  assert.ok(!(await names(other, { exclude_archived: false })).includes('arch-private'));
  assert.ok(!(await names(guest, { exclude_archived: false })).includes('arch-public'));
  // The subscription stays: archived_channels clients see it, others do not.
  const reg = async (caps: Record<string, unknown>) => assertOk(await t.api('POST', '/api/v1/register', {
    as: member, params: { fetch_event_types: ['subscription'], client_capabilities: caps } }));
  const withCap = await reg({ archived_channels: true });
  const archivedSub = withCap.subscriptions.find((s: { stream_id: number }) => s.stream_id === priv);
  assert.equal(archivedSub?.is_archived, true);
  assert.ok(!(await reg({})).subscriptions.some((s: { stream_id: number }) => s.stream_id === priv));
  // register's streams, too: the archived streams one may see, for archived_channels clients only.
  const regStreams = async (as: TestUser, caps: Record<string, unknown>) => (assertOk(await t.api('POST', '/api/v1/register', {
    as, params: { fetch_event_types: ['stream'], client_capabilities: caps } })).streams as Array<{ stream_id: number; is_archived: boolean }>);
  assert.equal((await regStreams(member, { archived_channels: true })).find((s) => s.stream_id === priv)?.is_archived, true);
  assert.ok((await regStreams(other, { archived_channels: true })).some((s) => s.stream_id === pub));
  assert.ok(!(await regStreams(other, { archived_channels: true })).some((s) => s.stream_id === priv));
  assert.ok(!(await regStreams(member, {})).some((s) => s.stream_id === priv || s.stream_id === pub));
  // 362: never_subscribed holds the archived streams the user may see.
  const otherReg = assertOk(await t.api('POST', '/api/v1/register', {
    as: other, params: { fetch_event_types: ['subscription'], client_capabilities: { archived_channels: true } } }));
  assert.ok(otherReg.never_subscribed.some((s: { stream_id: number }) => s.stream_id === pub));
  assert.ok(!otherReg.never_subscribed.some((s: { stream_id: number }) => s.stream_id === priv));
  // GET /users/me/subscriptions lists it too (with is_archived).
  const mine = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: member })).subscriptions;
  assert.equal(mine.find((s: { stream_id: number }) => s.stream_id === priv)?.is_archived, true);
  // 362: an archived stream's privacy can change; its name cannot.
  assertOk(await patch(t, admin, pub, { is_private: true }));
  assertError(await patch(t, admin, pub, { new_name: 'renamed' }), 'Invalid stream id');

  // Level 277: no is_archived, and an archived stream cannot be fetched.
  const oMember = await old.createUser({ name: 'Max Member' });
  const oAdmin = await old.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const oid = await subscribe(old, oMember, 'old-arch');
  assert.equal(assertOk(await getStream(old, oMember, oid)).stream.is_archived, undefined);
  assertOk(await old.api('DELETE', `/api/v1/streams/${oid}`, { as: oAdmin }));
  assertError(await getStream(old, oMember, oid), 'Invalid stream id');
});

test('320: can_remove_subscribers_group takes an anonymous group; {new, old}; at 277 a system group only', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, member, 'removers', { principals: [member.id, other.id] });
  const anon = { direct_members: [member.id], direct_subgroups: [g['role:moderators']] };
  log.clear();
  assertOk(await patch(t, admin, id, { can_remove_subscribers_group: { new: anon, old: g['role:administrators'] } }));
  assert.deepEqual(log.one('stream', 'update').event.value, anon);
  assert.deepEqual(assertOk(await getStream(t, member, id)).stream.can_remove_subscribers_group, anon);
  assertError(await patch(t, admin, id, { can_remove_subscribers_group: { new: g['role:members'], old: g['role:administrators'] } }),
    "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
  // Its member may now unsubscribe others.
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: member, params: { subscriptions: ['removers'], principals: [other.id] } }));
  // role:nobody is allowed from 320.
  assertOk(await patch(t, admin, id, { can_remove_subscribers_group: g['role:nobody'] }));

  const og = await systemGroups(old);
  const oAdmin = await old.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const oid = await subscribe(old, oAdmin, 'old-removers');
  assertError(await patch(old, oAdmin, oid, { can_remove_subscribers_group: { direct_members: [oAdmin.id], direct_subgroups: [] } }),
    "'can_remove_subscribers_group' must be a system user group.");
  assertError(await patch(old, oAdmin, oid, { can_remove_subscribers_group: og['role:nobody'] }),
    "'can_remove_subscribers_group' setting cannot be set to 'role:nobody' group.");
});

test('325: can_administer_channel_group, the creator by default, lets its members edit the stream', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, member, 'admins-own', { principals: [member.id, other.id] });
  const s = assertOk(await getStream(t, member, id)).stream;
  assert.deepEqual(s.can_administer_channel_group, { direct_members: [member.id], direct_subgroups: [] });
  assertOk(await patch(t, member, id, { description: 'mine' }));
  assertError(await patch(t, other, id, { description: 'theirs' }), 'You do not have permission to administer this channel.', 'UNAUTHORIZED_PRINCIPAL');
  log.clear();
  assertOk(await patch(t, member, id, { can_administer_channel_group: g['role:members'] }));
  assert.equal(log.one('stream', 'update').event.property, 'can_administer_channel_group');
  assertOk(await patch(t, other, id, { description: 'theirs' }));
  // Guests never (the setting does not allow role:everyone).
  assertError(await patch(t, admin, id, { can_administer_channel_group: g['role:everyone'] }),
    "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
  // Level 277: only organization administrators.
  const oMember = await old.createUser({ name: 'Max Member' });
  const oid = await subscribe(old, oMember, 'old-own');
  assert.equal(assertOk(await getStream(old, oMember, oid)).stream.can_administer_channel_group, undefined);
  assertError(await patch(old, oMember, oid, { description: 'x' }), 'Must be an organization or stream administrator', 'UNAUTHORIZED_PRINCIPAL');
});

test('333/342/357: can_send_message_group (stream_post_policy follows), can_add_subscribers_group, can_subscribe_group', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, member, 'policy-groups', { can_add_subscribers_group: g['role:members'] });
  const s = assertOk(await getStream(t, member, id)).stream;
  assert.equal(s.can_send_message_group, g['role:everyone']);
  assert.equal(s.can_add_subscribers_group, g['role:members']);
  assert.equal(s.can_subscribe_group, g['role:nobody']);
  log.clear();
  assertOk(await patch(t, admin, id, { stream_post_policy: 2 }));
  assert.equal(assertOk(await getStream(t, member, id)).stream.can_send_message_group, g['role:administrators']);
  assert.ok(log.find('stream', 'update').some((e) => e.event.property === 'can_send_message_group'));
  assertOk(await patch(t, admin, id, { can_send_message_group: g['role:moderators'] }));
  const after = assertOk(await getStream(t, member, id)).stream;
  assert.equal(after.stream_post_policy, 4);
  assertOk(await patch(t, admin, id, { can_subscribe_group: { new: { direct_members: [other.id], direct_subgroups: [] } } }));
  assert.deepEqual(assertOk(await getStream(t, member, id)).stream.can_subscribe_group, { direct_members: [other.id], direct_subgroups: [] });
  // Level 277 shows none of them.
  const oMember = await old.createUser({ name: 'Max Member' });
  const old1 = assertOk(await getStream(old, oMember, await subscribe(old, oMember, 'old-policy'))).stream;
  assert.equal(old1.can_send_message_group, undefined);
  assert.equal(old1.is_recently_active, undefined);
});

test('323: is_recently_active on stream objects; the daily refresh turns it off after 180 quiet days, with an event', async () => {
  const id = await subscribe(t, member, 'active-one');
  assert.equal(assertOk(await getStream(t, member, id)).stream.is_recently_active, true);
  await t.app.ctx.store.db.updateTable('stream').set({ date_created: Math.floor(Date.now() / 1000) - 200 * 86400 }).where('id', '=', id).execute();
  log.clear();
  assert.ok(await refreshRecentlyActive(t.app.ctx) >= 1);
  const ev = log.one('stream', 'update', (e) => e.event.stream_id === id);
  assert.equal(ev.event.property, 'is_recently_active');
  assert.equal(ev.event.value, false);
  assert.ok(ev.userIds.includes(other.id));
  // Streams are cached: the cache follows the stream table's writes.
  assert.equal(assertOk(await getStream(t, member, id)).stream.is_recently_active, false);
  assertOk(await t.api('POST', '/api/v1/messages', { as: member, params: { type: 'stream', to: id, topic: 'x', content: 'back' } }));
  await refreshRecentlyActive(t.app.ctx);
  assert.equal(assertOk(await getStream(t, member, id)).stream.is_recently_active, true);
});

test('335: GET /streams/{id}/email_address sender_id: the caller or a bot they may administer', async () => {
  const id = await subscribe(t, member, 'mailing');
  const plain = assertOk(await t.api('GET', `/api/v1/streams/${id}/email_address`, { as: member })).email;
  const self = assertOk(await t.api('GET', `/api/v1/streams/${id}/email_address`, { as: member, query: { sender_id: member.id } })).email;
  assert.match(self, /^mailing\.[0-9a-f]{32}@/);
  assert.notEqual(plain, self);
  const r = await t.api('GET', `/api/v1/streams/${id}/email_address`, { as: member, query: { sender_id: other.id } });
  assertError(r, 'No such bot');
  const bot = await t.createBot(member, { fullName: 'Mail Bot', shortName: 'mail' });
  const viaBot = assertOk(await t.api('GET', `/api/v1/streams/${id}/email_address`, { as: member, query: { sender_id: bot.id } })).email;
  assert.notEqual(viaBot, self);
  assert.equal((await t.api('GET', `/api/v1/streams/${id}/email_address`, { as: null, query: { sender_id: member.id } })).status, 401);
});

test('356: include_all for everyone (metadata access); include_all_active kept; include_can_access_content', async () => {
  await subscribe(t, admin, 'secret-356', { invite_only: true });
  const names = async (as: TestUser, query: Record<string, unknown>) =>
    assertOk(await t.api('GET', '/api/v1/streams', { as, query })).streams.map((s: { name: string }) => s.name);
  assert.ok(!(await names(member, { include_all: true })).includes('secret-356'));
  assert.ok((await names(admin, { include_all: true })).includes('secret-356'));
  assert.ok((await names(admin, { include_all_active: true })).includes('secret-356'));
  assert.ok((await names(member, { include_can_access_content: true, include_public: false, include_subscribed: false })).length > 0);
  assertError(await old.api('GET', '/api/v1/streams', { as: (await old.createUser({ name: 'Nina' })), query: { include_all: true } }),
    'User not authorized for this query');
});

test('333: can_send_message_group decides who posts (role or anonymous group); silent mentions of system groups', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, member, 'posting', { principals: [member.id, other.id] });
  const send = (as: TestUser, content = 'hi') => t.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: id, topic: 'x', content } });
  assertOk(await patch(t, admin, id, { can_send_message_group: g['role:administrators'] }));
  assertError(await send(member), 'You do not have permission to post in this channel.');
  assertOk(await send(admin));
  // Typing in it and scheduling to it are posting too (Zulip's access_stream_for_send_message).
  const typing = (as: TestUser) => t.api('POST', '/api/v1/typing', { as, params: { type: 'channel', stream_id: id, topic: 'x', op: 'start' } });
  const schedule = (as: TestUser) => t.api('POST', '/api/v1/scheduled_messages', {
    as, params: { type: 'stream', to: id, topic: 'x', content: 'later', scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 },
  });
  assertError(await typing(member), 'You do not have permission to post in this channel.');
  assertError(await schedule(member), 'You do not have permission to post in this channel.');
  assertOk(await typing(admin));
  assertOk(await schedule(admin));
  assertOk(await patch(t, admin, id, { can_send_message_group: { direct_members: [other.id], direct_subgroups: [] } }));
  assertOk(await send(other));
  assertOk(await typing(other));
  assertError(await typing(member), 'You do not have permission to post in this channel.');
  assertError(await send(member), 'You do not have permission to post in this channel.');
  assertOk(await patch(t, admin, id, { can_send_message_group: g['role:nobody'] }));
  assertError(await send(admin), 'You do not have permission to post in this channel.');
  assertOk(await patch(t, admin, id, { can_send_message_group: g['role:everyone'] }));
  // A system group mentioned silently renders (level 333); not a plain mention.
  const mid = assertOk(await send(member, '@_*role:members* and @*role:members*')).id;
  const msg = assertOk(await t.api('GET', `/api/v1/messages/${mid}`, { as: member })).message;
  assert.match(msg.content, new RegExp(`<span class="user-group-mention silent" data-user-group-id="${g['role:members']}">role:members</span>`));
  assert.ok(!msg.content.includes('<span class="user-group-mention" '));
  // Level 277: stream_post_policy and its words.
  const oMember = await old.createUser({ name: 'Max Member' });
  const oAdmin = await old.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const oid = await subscribe(old, oMember, 'old-posting');
  assertOk(await patch(old, oAdmin, oid, { stream_post_policy: 2 }));
  assertError(await old.api('POST', '/api/v1/messages', { as: oMember, params: { type: 'stream', to: oid, topic: 'x', content: 'hi' } }),
    'Only organization administrators can send to this stream.');
});

test('342/357: can_add_subscribers_group adds others (private stream, not subscribed); can_subscribe_group joins; not at 277', async () => {
  const g = await systemGroups(t);
  const id = await subscribe(t, admin, 'club-342', { invite_only: true });
  const subs = (as: TestUser, params: Record<string, unknown>) => t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name: 'club-342' }], ...params } });
  assertError(await subs(member, {}), 'Unable to access stream (club-342).');
  assertOk(await patch(t, admin, id, { can_subscribe_group: { direct_members: [member.id], direct_subgroups: [] } }));
  assertOk(await subs(member, {}));
  assertError(await subs(other, {}), 'Unable to access stream (club-342).');
  assertError(await subs(guest, {}), 'Unable to access stream (club-342).');
  assertOk(await patch(t, admin, id, { can_add_subscribers_group: { direct_members: [other.id], direct_subgroups: [] } }));
  const third = await t.createUser({ name: 'Thea Third' });
  assertOk(await subs(other, { principals: [third.id] }));
  const members = assertOk(await t.api('GET', `/api/v1/streams/${id}/members`, { as: admin })).subscribers;
  assert.ok(members.includes(third.id) && members.includes(member.id) && !members.includes(other.id));
  assert.equal(g['role:nobody'] > 0, true);
});

test('360: an archived stream\'s messages (and read receipts) stay readable to those its rules let read; not at 277', async () => {
  const id = await subscribe(t, member, 'arch-360');
  const mid = assertOk(await t.api('POST', '/api/v1/messages', { as: member, params: { type: 'stream', to: id, topic: 'x', content: 'kept' } })).id;
  assertOk(await t.api('DELETE', `/api/v1/streams/${id}`, { as: admin }));
  assert.equal(assertOk(await t.api('GET', `/api/v1/messages/${mid}`, { as: other })).message.content, '<p>kept</p>');
  assertOk(await t.api('GET', `/api/v1/messages/${mid}/read_receipts`, { as: other }));
  assertError(await t.api('GET', `/api/v1/messages/${mid}`, { as: guest }), 'Invalid message(s)');

  const oMember = await old.createUser({ name: 'Max Member' });
  const oOther = await old.createUser({ name: 'Otto Other' });
  const oAdmin = await old.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  const oid = await subscribe(old, oMember, 'old-360');
  const omid = assertOk(await old.api('POST', '/api/v1/messages', { as: oMember, params: { type: 'stream', to: oid, topic: 'x', content: 'gone' } })).id;
  assertOk(await old.api('DELETE', `/api/v1/streams/${oid}`, { as: oAdmin }));
  assertError(await old.api('GET', `/api/v1/messages/${omid}`, { as: oOther }), 'Invalid message(s)');
});
