import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, FEATURE_LEVEL, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { insertStreamMessage, setRealmSettings, subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

let t: TestApp;
let admin: TestUser, member: TestUser, other: TestUser, guest: TestUser;
let log: EventLog;
before(async () => {
  t = await testApp();
  ({ admin, member, other, guest } = await t.createUsers(ROLES));
  log = new EventLog(t);
});
after(async () => { await t.close(); });

const patch = (as: TestUser | null, id: number | string, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/streams/${id}`, { as, params });
/** A non-administrator who sees the stream: Zulip's words, from level 325 CannotAdministerChannelError. */
const notStreamAdmin = (): [string, string] => (FEATURE_LEVEL >= 325
  ? ['You do not have permission to administer this channel.', 'UNAUTHORIZED_PRINCIPAL']
  : ['Must be an organization or stream administrator', 'UNAUTHORIZED_PRINCIPAL']);
/** The default_streams event's stream ids: from level 330 it carries the ids themselves. */
const defaultIds = (event: Record<string, unknown>): number[] => (FEATURE_LEVEL >= 330
  ? event.default_streams as number[]
  : (event.default_streams as Array<{ stream_id: number }>).map((s) => s.stream_id));
const stream = async (id: number) => assertOk(await t.api('GET', `/api/v1/streams/${id}`, { as: t.owner })).stream;

test('PATCH /streams/{id}: description, name, post policy with their events', async () => {
  const id = await subscribe(t, member, 'edit-me');
  log.clear();
  assertOk(await patch(admin, id, { description: 'See **[docs](https://example.com)**\nnow' }));
  let s = await stream(id);
  assert.equal(s.description, 'See **[docs](https://example.com)** now');
  assert.equal(s.rendered_description, '<p>See <strong><a href="https://example.com">docs</a></strong> now</p>');
  const d = log.one('stream', 'update');
  assert.deepEqual(d.event, { type: 'stream', op: 'update', stream_id: id, name: 'edit-me', property: 'description',
    value: s.description, rendered_description: s.rendered_description });
  assert.deepEqual(sorted(d.userIds), sorted([t.owner.id, admin.id, member.id, other.id]));
  log.clear();
  assertOk(await patch(admin, id, { new_name: ' Edited ' }));
  s = await stream(id);
  assert.equal(s.name, 'Edited');
  const renames = log.find('stream', 'update');
  assert.deepEqual(renames.map((e) => e.event.property), ['email_address', 'name']);
  assert.match(renames[0]!.event.value as string, /^Edited\.[0-9a-f]{32}@parley\.test$/);
  assert.deepEqual(renames[1]!.event, { type: 'stream', op: 'update', stream_id: id, name: 'edit-me', property: 'name', value: 'Edited' });
  assertOk(await patch(admin, id, { new_name: 'edited' }));
  assert.equal((await stream(id)).name, 'edited');
  log.clear();
  assertOk(await patch(admin, id, { stream_post_policy: 4 }));
  assert.equal((await stream(id)).stream_post_policy, 4);
  // From level 333 the policy sets can_send_message_group (moderators), announced first, then the deprecated two.
  const policyEvents = [['stream_post_policy', 4], ['is_announcement_only', false]];
  if (FEATURE_LEVEL >= 333) policyEvents.unshift(['can_send_message_group', (await stream(id)).can_send_message_group]);
  assert.deepEqual(log.find('stream', 'update').map((e) => [e.event.property, e.event.value]), policyEvents);
  assertOk(await patch(admin, id, { is_announcement_only: true }));
  s = await stream(id);
  assert.equal(s.stream_post_policy, 2);
  assert.equal(s.is_announcement_only, true);
});

test('PATCH /streams/{id}: retention days, owners only', async () => {
  const id = await subscribe(t, member, 'retained');
  assertOk(await patch(t.owner, id, { message_retention_days: 90 }));
  assert.equal((await stream(id)).message_retention_days, 90);
  assertOk(await patch(t.owner, id, { message_retention_days: 'unlimited' }));
  assert.equal((await stream(id)).message_retention_days, -1);
  assertOk(await patch(t.owner, id, { message_retention_days: 'realm_default' }));
  assert.equal((await stream(id)).message_retention_days, null);
  assertOk(await patch(t.owner, id, { message_retention_days: 'forever' }));
  assert.equal((await stream(id)).message_retention_days, -1);
  assertError(await patch(admin, id, { message_retention_days: 5 }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await patch(t.owner, id, { message_retention_days: -3 }), "Bad value for 'message_retention_days': -3");
  assertError(await patch(t.owner, id, { message_retention_days: 'soon' }), "Bad value for 'message_retention_days': soon");
});

test('PATCH /streams/{id}: privacy changes tell who gains and who loses the stream', async () => {
  const id = await subscribe(t, member, 'flip', { principals: [member.id, guest.id] });
  log.clear();
  // Public streams are reachable, so an administrator needs no subscription to make this one private.
  assertOk(await patch(admin, id, { is_private: true }));
  let s = await stream(id);
  assert.equal(s.invite_only, true);
  assert.equal(s.history_public_to_subscribers, false);
  const lost = log.one('stream', 'delete');
  assert.deepEqual(lost.userIds, [other.id]);
  const upd = log.one('stream', 'update');
  assert.deepEqual(upd.event, { type: 'stream', op: 'update', stream_id: id, name: 'flip', property: 'invite_only', value: true,
    history_public_to_subscribers: false, is_web_public: false });
  assert.deepEqual(sorted(upd.userIds), sorted([t.owner.id, admin.id, member.id, guest.id]));
  assertError(await patch(admin, id, { is_private: false }), 'Invalid stream id');
  assertOk(await patch(admin, id, { history_public_to_subscribers: true }));
  assert.equal((await stream(id)).history_public_to_subscribers, true);
  // From level 325 the creator (member) administers the stream; the guest subscriber does not.
  assertError(await patch(FEATURE_LEVEL >= 325 ? guest : member, id, { is_private: false }), ...notStreamAdmin());
  await subscribe(t, member, 'flip', { principals: [admin.id] });
  log.clear();
  assertOk(await patch(admin, id, { is_private: false }));
  s = await stream(id);
  assert.equal(s.invite_only, false);
  assert.equal(s.history_public_to_subscribers, true);
  assert.deepEqual(log.one('stream', 'create').userIds, [other.id]);
  assertError(await patch(admin, id, { history_public_to_subscribers: false }), 'Invalid parameters');
  assertError(await patch(admin, id, { is_web_public: true, is_private: true }), 'Invalid parameters');
});

test('PATCH /streams/{id}: web-public needs the organization setting and permission', async () => {
  const id = await subscribe(t, member, 'webby');
  assertError(await patch(t.owner, id, { is_web_public: true }), 'Web-public streams are not enabled.');
  await setRealmSettings(t, { enable_spectator_access: true });
  assertError(await patch(admin, id, { is_web_public: true }), 'Insufficient permission');
  log.clear();
  assertOk(await patch(t.owner, id, { is_web_public: true }));
  assert.equal((await stream(id)).is_web_public, true);
  // Guests now see it: they get a create event, others an update.
  assert.deepEqual(log.one('stream', 'create').userIds, [guest.id]);
  assert.equal(log.one('stream', 'update', (e) => e.event.property === 'is_web_public').event.value, true);
  assertOk(await patch(t.owner, id, { is_web_public: false }));
  assert.equal((await stream(id)).is_web_public, false);
  await setRealmSettings(t, { enable_spectator_access: false });
});

test('PATCH /streams/{id}: every error', async () => {
  const id = await subscribe(t, member, 'errs');
  await subscribe(t, member, 'taken');
  const hidden = await subscribe(t, other, 'hidden', { invite_only: true });
  assertError(await patch(admin, id, { new_name: 'errs' }), 'Stream already has that name!');
  assertError(await patch(admin, id, { new_name: 'TAKEN' }), "Stream name 'TAKEN' is already taken.");
  assertError(await patch(admin, id, { new_name: '' }), "Stream name can't be empty!");
  assertError(await patch(admin, id, { new_name: 'x'.repeat(61) }), 'Stream name too long (limit: 60 characters).');
  assertError(await patch(admin, id, { new_name: 'a\u0000b' }), 'Invalid character in stream name, at position 2!');
  assertError(await patch(admin, id, { description: 'd'.repeat(1025) }), 'description is too long (limit: 1024 characters)');
  assertError(await patch(admin, id, { stream_post_policy: 5 }), 'Invalid stream_post_policy');
  assertError(await patch(admin, id, { is_private: 'no' }), 'Argument "is_private" is not valid JSON.');
  // `other` did not create the stream, so is no channel administrator at 325 either.
  assertError(await patch(other, id, { description: 'mine' }), ...notStreamAdmin());
  // Missing and invisible streams answer the same.
  assertError(await patch(member, hidden, { description: 'x' }), 'Invalid stream id');
  assertError(await patch(member, 999999, { description: 'x' }), 'Invalid stream id');
  assertError(await patch(guest, id, { description: 'x' }), 'Invalid stream id');
  assertUnauthenticated(await patch(null, id, { description: 'x' }));
  // An administrator may edit a private stream's description without being on it.
  assertOk(await patch(admin, hidden, { description: 'admins may' }));
  const dflt = await subscribe(t, admin, 'defaulted');
  assertOk(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: dflt } }));
  // Zulip's wording changed with is_default_stream (level 200).
  assertError(await patch(admin, dflt, { is_private: true }), FEATURE_LEVEL >= 200 ? 'A default stream cannot be private.' : 'Default streams cannot be made private.');
});

test('DELETE /streams/{id} archives the stream and frees its name', async () => {
  const id = await subscribe(t, member, 'doomed');
  assertOk(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: id } }));
  assertError(await t.api('DELETE', `/api/v1/streams/${id}`, { as: other }), ...notStreamAdmin());
  const sent = assertOk(await t.api('POST', '/api/v1/messages', { as: admin, params: { type: 'stream', to: 'doomed', topic: 'last words', content: 'bye' } })).id;
  const unreadIn = async (streamId: number) => (assertOk(await t.api('POST', '/api/v1/register', { as: member, params: { fetch_event_types: ['message', 'update_message_flags'] } }))
    .unread_msgs.streams as Array<{ stream_id: number; unread_message_ids: number[] }>).filter((s) => s.stream_id === streamId).flatMap((s) => s.unread_message_ids);
  assert.deepEqual(await unreadIn(id), [sent]);
  log.clear();
  assertOk(await t.api('DELETE', `/api/v1/streams/${id}`, { as: admin }));
  const del = log.one('stream', 'delete');
  assert.deepEqual(del.event.stream_ids, [id]);
  assert.equal((del.event.streams as any[])[0].name, 'doomed');
  assert.deepEqual(sorted(del.userIds), sorted([t.owner.id, admin.id, member.id, other.id]));
  // It stops being a default stream, and everyone who can see the defaults is told (guests cannot).
  const defaults = log.one('default_streams');
  assert.ok(!defaultIds(defaults.event).includes(id));
  assert.deepEqual(sorted(defaults.userIds), sorted([t.owner.id, admin.id, member.id, other.id]));
  // As in Zulip, an archived stream's messages are read for everyone: no phantom unreads.
  assert.deepEqual(await unreadIn(id), []);
  // From level 315 archiving keeps the stream and its subscriptions: fetched by id and listed with
  // is_archived, and archiving again is refused; before, the stream is gone.
  if (FEATURE_LEVEL >= 315) {
    assert.equal(assertOk(await t.api('GET', `/api/v1/streams/${id}`, { as: member })).stream.is_archived, true);
    assertError(await t.api('DELETE', `/api/v1/streams/${id}`, { as: admin }), 'Channel is already deactivated');
    const kept = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: member })).subscriptions.find((s: any) => s.stream_id === id);
    assert.equal(kept?.is_archived, true);
  } else {
    assertError(await t.api('GET', `/api/v1/streams/${id}`, { as: member }), 'Invalid stream id');
    assertError(await t.api('DELETE', `/api/v1/streams/${id}`, { as: admin }), 'Invalid stream id');
    assert.ok(!assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: member })).subscriptions.some((s: any) => s.stream_id === id));
  }
  assert.ok(!assertOk(await t.api('GET', '/api/v1/default_streams', { as: member })).default_streams.some((s: any) => s.stream_id === id));
  let reborn: number;
  if (FEATURE_LEVEL >= 362) {
    // Level 362: an archived channel keeps its name, and subscribing by it joins the archived channel.
    assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: member, params: { subscriptions: [{ name: 'doomed' }] } }));
    const mine = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: member })).subscriptions.find((s: any) => s.name === 'doomed');
    assert.equal(mine?.stream_id, id);
    reborn = await subscribe(t, member, 'doomed-again');
  } else {
    reborn = await subscribe(t, member, 'doomed');
    assert.notEqual(reborn, id);
  }
  const hidden = await subscribe(t, other, 'hidden-doomed', { invite_only: true });
  assertError(await t.api('DELETE', `/api/v1/streams/${hidden}`, { as: member }), 'Invalid stream id');
  assertOk(await t.api('DELETE', `/api/v1/streams/${hidden}`, { as: admin }));
  assertError(await t.api('DELETE', '/api/v1/streams/999999', { as: admin }), 'Invalid stream id');
  assertUnauthenticated(await t.api('DELETE', `/api/v1/streams/${reborn}`, { as: null }));
});

test('POST /streams/{id}/delete_topic deletes the topic messages the admin may read', async () => {
  const id = await subscribe(t, member, 'topical', { principals: [member.id, other.id] });
  const m1 = await insertStreamMessage(t, id, member.id, 'Trash', [member.id, other.id]);
  const m2 = await insertStreamMessage(t, id, member.id, 'trash', [member.id]);
  const keep = await insertStreamMessage(t, id, member.id, 'keep', [member.id]);
  assertError(await t.api('POST', `/api/v1/streams/${id}/delete_topic`, { as: member, params: { topic_name: 'trash' } }),
    'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('POST', `/api/v1/streams/${id}/delete_topic`, { as: admin, params: {} }),
    "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'topic_name' });
  log.clear();
  assertOk(await t.api('POST', `/api/v1/streams/${id}/delete_topic`, { as: admin, params: { topic_name: 'TRASH' } }));
  const evs = log.find('delete_message');
  const forMember = evs.find((e) => e.userIds.includes(member.id))!;
  assert.deepEqual(forMember.event, { type: 'delete_message', message_type: 'stream', message_ids: [m1, m2], stream_id: id, topic: 'trash' });
  assert.deepEqual(evs.find((e) => e.userIds.includes(other.id))!.event.message_ids, [m1]);
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/users/me/${id}/topics`, { as: member })).topics, [{ name: 'keep', max_id: keep }]);
  const hidden = await subscribe(t, other, 'hidden-topics', { invite_only: true });
  assertError(await t.api('POST', `/api/v1/streams/${hidden}/delete_topic`, { as: admin, params: { topic_name: 'x' } }), 'Invalid stream id');
  assertError(await t.api('POST', '/api/v1/streams/999999/delete_topic', { as: admin, params: { topic_name: 'x' } }), 'Invalid stream id');
  assertUnauthenticated(await t.api('POST', `/api/v1/streams/${id}/delete_topic`, { as: null, params: { topic_name: 'x' } }));
});

test('default streams: list, add, remove, and new users join them', async () => {
  const id = await subscribe(t, admin, 'onboarding');
  log.clear();
  assertOk(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: id } }));
  const ev = log.one('default_streams');
  assert.ok(defaultIds(ev.event).includes(id));
  assert.ok(!ev.userIds.includes(guest.id));
  assert.ok(ev.userIds.includes(member.id));
  const listed = assertOk(await t.api('GET', '/api/v1/default_streams', { as: member })).default_streams;
  assert.ok(listed.some((s: any) => s.stream_id === id && s.name === 'onboarding'));
  const fresh = await t.createUser();
  assert.ok(assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: fresh })).subscriptions.some((s: any) => s.stream_id === id));
  assertOk(await t.api('DELETE', '/api/v1/default_streams', { as: admin, params: { stream_id: id } }));
  assert.ok(!assertOk(await t.api('GET', '/api/v1/default_streams', { as: member })).default_streams.some((s: any) => s.stream_id === id));
  const later = await t.createUser();
  assert.ok(!assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: later })).subscriptions.some((s: any) => s.stream_id === id));
  const hidden = await subscribe(t, other, 'hidden-default', { invite_only: true });
  const mine = await subscribe(t, admin, 'admins-private', { invite_only: true });
  assertError(await t.api('POST', '/api/v1/default_streams', { as: member, params: { stream_id: id } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('DELETE', '/api/v1/default_streams', { as: member, params: { stream_id: id } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: mine } }), 'Private streams cannot be made default.');
  assertError(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: hidden } }), 'Invalid stream id');
  assertError(await t.api('POST', '/api/v1/default_streams', { as: admin, params: { stream_id: 999999 } }), 'Invalid stream id');
  assertError(await t.api('POST', '/api/v1/default_streams', { as: admin, params: {} }), "Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'stream_id' });
  assertError(await t.api('DELETE', '/api/v1/default_streams', { as: admin, params: { stream_id: 'x' } }), 'stream_id is not an integer');
  assertUnauthenticated(await t.api('GET', '/api/v1/default_streams', { as: null }));
  assertUnauthenticated(await t.api('POST', '/api/v1/default_streams', { as: null, params: { stream_id: id } }));
});

test('PATCH /streams/{id}: control characters in descriptions become spaces', async () => {
  const id = await subscribe(t, member, 'controls');
  assertOk(await patch(admin, id, { description: 'a\r\nb\u0000c\td' }));
  assert.equal((await stream(id)).description, 'a b c d');
});

test('delete_topic on protected history removes only what the administrator received', async () => {
  const id = await subscribe(t, other, 'guarded', { invite_only: true, principals: [other.id, admin.id] });
  const early = await insertStreamMessage(t, id, other.id, 'old', [other.id]);
  const late = await insertStreamMessage(t, id, other.id, 'old', [other.id, admin.id]);
  log.clear();
  assertOk(await t.api('POST', `/api/v1/streams/${id}/delete_topic`, { as: admin, params: { topic_name: 'old' } }));
  const ev = log.one('delete_message');
  assert.deepEqual(ev.event.message_ids, [late]);
  assert.deepEqual(sorted(ev.userIds), sorted([other.id, admin.id]));
  assert.deepEqual(assertOk(await t.api('GET', `/api/v1/users/me/${id}/topics`, { as: other })).topics, [{ name: 'old', max_id: early }]);
});

test('descriptions use the message renderer without mentions or stream links', async () => {
  const id = await subscribe(t, member, 'rendered');
  assertOk(await patch(admin, id, { description: `@**${member.row.full_name}** in #**rendered** :smile: <b>x</b>` }));
  const s = await stream(id);
  assert.ok(!s.rendered_description.includes('user-mention'), s.rendered_description);
  assert.ok(!s.rendered_description.includes('stream-link') && !s.rendered_description.includes('narrow/stream'), s.rendered_description);
  assert.match(s.rendered_description, /class="emoji emoji-1f642"/);
  assert.match(s.rendered_description, /&lt;b&gt;x&lt;\/b&gt;/);
});
