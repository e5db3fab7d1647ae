import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import type { StreamRow } from '../../src/store/rows.js';

// Topic edits and moves between streams: propagate modes, resolving, Notification Bot's
// breadcrumbs, who may, and who keeps seeing what moved.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let guest: TestUser;
let lounge: StreamRow;
let garden: StreamRow;
let vault: StreamRow;
let log: EventLog;

const edit = (as: TestUser, id: number, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/messages/${id}`, { as, params });
const post = (as: TestUser, stream: string, topic: string, content = 'hi') => sendMessage(t, as, { type: 'stream', to: stream, topic, content });
const narrow = async (as: TestUser, n: unknown[]) =>
  assertOk(await getMessages(t, as, { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify(n) })).messages as Array<Record<string, any>>;
const notices = (list: Array<Record<string, any>>) => list.filter((m) => m.sender_full_name === 'Notification Bot');
// The users' messages of a topic: Notification Bot's notices left aside (from level 152 a rename leaves one).
const topicIds = async (as: TestUser, stream: string, topic: string) =>
  messageIds({ messages: (await narrow(as, [['stream', stream], ['topic', topic]])).filter((m) => m.sender_full_name !== 'Notification Bot') as Array<{ id: number }> });

before(async () => {
  t = await testApp();
  ({ alice, bob, admin, guest } = await t.createUsers({
    alice: { name: 'Alice Move' }, bob: { name: 'Bob Move' }, admin: { name: 'Ada Admin', role: 200 }, guest: { name: 'Gil Guest', role: 600 },
  }));
  ({ lounge, garden, vault } = await createStreams(t, {
    lounge: [alice, bob, admin, guest],
    garden: [alice, bob, admin],
    vault: { subscribers: [admin, alice], inviteOnly: true },
  }));
  log = new EventLog(t);
});
after(() => t.close());

test('propagate modes: change_one, change_later and change_all rename the right messages', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 4; i += 1) ids.push(await post(alice, 'lounge', 'modes'));
  assertOk(await edit(alice, ids[1]!, { topic: 'one' }));
  assert.deepEqual(await topicIds(bob, 'lounge', 'one'), [ids[1]]);
  assertOk(await edit(alice, ids[2]!, { topic: 'later', propagate_mode: 'change_later' }));
  assert.deepEqual(await topicIds(bob, 'lounge', 'later'), [ids[2], ids[3]]);
  assert.deepEqual(await topicIds(bob, 'lounge', 'modes'), [ids[0]]);
  log.clear();
  assertOk(await edit(alice, ids[2]!, { subject: 'all of them', propagate_mode: 'change_all' }));
  assert.deepEqual(await topicIds(bob, 'lounge', 'all of them'), [ids[2], ids[3]]);
  const e = log.one('update_message').event as Record<string, any>;
  assert.equal(e.propagate_mode, 'change_all');
  assert.equal(e.orig_subject, 'later');
  assert.equal(e.subject, 'all of them');
  // From level 152 the topic also holds the notice of the rename that made it, which moves along.
  assert.deepEqual(e.message_ids.filter((id: number) => ids.includes(id)), [ids[2], ids[3]]);
  assert.equal(e.message_ids.length, FEATURE_LEVEL >= 152 ? 3 : 2);
  assert.deepEqual(e.topic_links, []);
  assert.equal(e.stream_id, lounge.id);
  assert.equal('new_stream_id' in e, false);
  // The other messages carry only the topic part of the edit in their history.
  const other = (await narrow(bob, [['id', ids[3]]]))[0]!;
  assert.deepEqual(other.edit_history.map((h: any) => [h.prev_topic, h.topic]), [['later', 'all of them'], ['modes', 'later']]);
  // A topic rename leaves no breadcrumbs below level 152 (only a resolve does); from 152 one
  // in the new thread: here the change_later's (moved along) and the change_all's.
  assert.equal(notices(await narrow(bob, [['stream', 'lounge'], ['topic', 'modes']])).length, 0);
  assert.equal(notices(await narrow(bob, [['stream', 'lounge'], ['topic', 'all of them']])).length, FEATURE_LEVEL >= 152 ? 2 : 0);
  // Long topics are cut as on send.
  assertOk(await edit(alice, ids[0]!, { topic: 'x'.repeat(80) }));
  assert.equal((await narrow(bob, [['id', ids[0]]]))[0]!.subject, `${'x'.repeat(57)}...`);
});

test('resolving a topic: ✔ prefix, is:resolved finds it, Notification Bot says so (unread only for participants)', async () => {
  const a = await post(alice, 'lounge', 'bug 12');
  const b = await post(bob, 'lounge', 'bug 12');
  assertOk(await edit(admin, b, { topic: '✔ bug 12', propagate_mode: 'change_all' }));
  const resolved = await narrow(admin, [['stream', 'lounge'], ['is', 'resolved']]);
  assert.deepEqual(resolved.filter((m) => m.sender_full_name !== 'Notification Bot').map((m) => m.id), [a, b]);
  const [notice] = notices(await narrow(admin, [['stream', 'lounge'], ['topic', '✔ bug 12']]));
  assert.equal(notice!.content, `<p><span class="user-mention silent" data-user-id="${admin.id}">Ada Admin</span> has marked this topic as resolved.</p>`);
  assert.equal(notice!.client, 'Internal');
  // Alice and Bob took part: unread for them; the mover and the guest get it read.
  const flagsFor = async (u: TestUser) => (await narrow(u, [['id', notice!.id]]))[0]!.flags as string[];
  assert.equal((await flagsFor(alice)).includes('read'), false);
  assert.equal((await flagsFor(bob)).includes('read'), false);
  assert.ok((await flagsFor(guest)).includes('read'));
  // Unresolving removes the prefix and says so.
  assertOk(await edit(admin, a, { topic: 'bug 12', propagate_mode: 'change_all' }));
  assert.equal((await narrow(admin, [['stream', 'lounge'], ['is', 'resolved'], ['topic', '✔ bug 12']])).length, 0);
  const back = notices(await narrow(admin, [['stream', 'lounge'], ['topic', 'bug 12']]));
  assert.match(back.at(-1)!.content, /has marked this topic as unresolved\.<\/p>$/);
});

test('moving a topic to another stream: breadcrumbs in both threads, history and event say where it went', async () => {
  const ids = [await post(alice, 'lounge', 'trip'), await post(bob, 'lounge', 'trip'), await post(alice, 'lounge', 'trip')];
  log.clear();
  // The old thread's notice is asked for: its default became false at level 152.
  assertOk(await edit(admin, ids[0]!, { stream_id: garden.id, propagate_mode: 'change_all', send_notification_to_old_thread: true }));
  const moved = await narrow(bob, [['stream', 'garden'], ['topic', 'trip']]);
  assert.deepEqual(moved.slice(0, 3).map((m) => m.id), ids);
  assert.ok(moved.slice(0, 3).every((m) => m.display_recipient === 'garden' && m.stream_id === garden.id));
  assert.deepEqual(moved[0]!.edit_history[0], { user_id: admin.id, timestamp: moved[0]!.edit_history[0].timestamp, prev_stream: lounge.id, stream: garden.id });
  assert.equal(notices(moved)[0]!.content.includes('This topic was moved here from'), true);
  assert.match(notices(moved)[0]!.content, /<a class="stream-topic" data-stream-id="\d+" href="[^"]*">#lounge &gt; trip<\/a> by <span class="user-mention silent" data-user-id="\d+">Ada Admin<\/span>\.<\/p>$/);
  const old = await narrow(bob, [['stream', 'lounge'], ['topic', 'trip']]);
  assert.equal(old.length, 1);
  assert.match(old[0]!.content, /^<p>This topic was moved to <a class="stream-topic"[^>]*>#garden &gt; trip<\/a> by /);

  const e = log.one('update_message').event as Record<string, any>;
  assert.equal(e.new_stream_id, garden.id);
  assert.equal(e.stream_id, lounge.id);
  assert.equal(e.orig_subject, 'trip');
  assert.equal('subject' in e, false, 'no topic change, no subject');
  assert.deepEqual(e.message_ids, ids);
  // The guest, not subscribed to garden, cannot follow (guests see only their streams): for
  // them the messages are deleted. Alice, Bob and Ada are in both streams and are not told so.
  assert.deepEqual(log.one('delete_message').userIds, [guest.id]);
  assert.equal((await narrow(guest, [['stream', 'lounge'], ['topic', 'trip']])).filter((m) => ids.includes(m.id)).length, 0);
});

test('partial moves: counts in the breadcrumbs; notifications can be turned off', async () => {
  const ids = [await post(alice, 'lounge', 'split'), await post(alice, 'lounge', 'split'), await post(alice, 'lounge', 'split')];
  assertOk(await edit(admin, ids[1]!, { stream_id: garden.id, topic: 'split off', propagate_mode: 'change_later', send_notification_to_old_thread: true }));
  // Topic and stream in one edit: one history entry with both.
  const h = (await narrow(bob, [['id', ids[2]]]))[0]!.edit_history[0];
  assert.deepEqual(Object.keys(h).sort(), ['prev_stream', 'prev_topic', 'stream', 'timestamp', 'topic', 'user_id']);
  assert.deepEqual([h.prev_stream, h.stream, h.prev_topic, h.topic], [lounge.id, garden.id, 'split', 'split off']);
  const there = notices(await narrow(bob, [['stream', 'garden'], ['topic', 'split off']]));
  assert.match(there[0]!.content, /^<p>2 messages were moved here from /);
  const here = notices(await narrow(bob, [['stream', 'lounge'], ['topic', 'split']]));
  assert.match(here[0]!.content, /^<p>2 messages were moved from this topic to /);
  assertOk(await edit(admin, ids[0]!, { stream_id: garden.id, propagate_mode: 'change_one', send_notification_to_old_thread: false }));
  assert.match(notices(await narrow(bob, [['stream', 'garden'], ['topic', 'split']]))[0]!.content, /^<p>A message was moved here from /);
  assert.equal(notices(await narrow(bob, [['stream', 'lounge'], ['topic', 'split']])).length, 1, 'no new notice in the old thread');
  const quiet = await post(alice, 'lounge', 'quiet');
  assertOk(await edit(admin, quiet, { stream_id: garden.id, send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  assert.equal(notices(await narrow(bob, [['stream', 'garden'], ['topic', 'quiet']])).length, 0);
});

test('moving into a private stream: those who cannot follow lose the messages and are told they were deleted', async () => {
  const id = await post(bob, 'lounge', 'secret plans');
  log.clear();
  assertOk(await edit(admin, id, { stream_id: vault.id, propagate_mode: 'change_all' }));
  const del = log.one('delete_message');
  assert.deepEqual(new Set(del.userIds), new Set([bob.id, guest.id]));
  assert.deepEqual(del.event, { type: 'delete_message', message_type: 'stream', message_ids: [id], stream_id: lounge.id, topic: 'secret plans' });
  const upd = log.one('update_message');
  assert.equal(upd.userIds.includes(bob.id), false);
  assertError(await t.api('GET', `/api/v1/messages/${id}`, { as: bob }), 'Invalid message(s)');
  assert.equal((await narrow(alice, [['stream', 'vault']])).some((m) => m.id === id), true);
});

test('permissions: topic policy, stream-move policy, guests, time limits, target streams', async () => {
  const id = await post(alice, 'lounge', 'perm');
  // Moving between streams is for administrators by default.
  assertError(await edit(alice, id, { stream_id: garden.id }), "You don't have permission to move this message");
  await setRealmSettings(t, { move_messages_between_streams_policy: 1 });
  assertError(await edit(guest, id, { stream_id: garden.id }), "You don't have permission to move this message");
  // A private stream the mover is not in is answered as if it did not exist.
  assertError(await edit(bob, id, { stream_id: vault.id }), 'Invalid stream id');
  assertError(await edit(bob, id, { stream_id: 987_654 }), 'Invalid stream id');
  assertOk(await edit(bob, id, { stream_id: garden.id, send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  // Someone who received a private-stream message but has left the stream may no longer move it.
  const kept = await post(alice, 'vault', 'left behind');
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: JSON.stringify(['vault']) } }));
  assertError(await edit(alice, kept, { stream_id: garden.id }), "You don't have permission to move this message due to missing access to its stream");
  await setRealmSettings(t, { move_messages_between_streams_policy: 2 });

  // Topic editing by edit_topic_policy: everyone by default, guests included.
  const mine = await post(alice, 'lounge', 'policy');
  assertOk(await edit(guest, mine, { topic: 'policy 2' }));
  await setRealmSettings(t, { edit_topic_policy: 2 });
  assertError(await edit(alice, mine, { topic: 'policy 3' }), "You don't have permission to edit this message");
  assertOk(await edit(admin, mine, { topic: 'policy 3' }));
  // "(no topic)" messages may be tended by anyone, until level 172.
  const untitled = await post(alice, 'lounge', '');
  if (FEATURE_LEVEL >= 172) assertError(await edit(bob, untitled, { topic: 'titled' }), "You don't have permission to edit this message");
  else assertOk(await edit(bob, untitled, { topic: 'titled' }));
  await setRealmSettings(t, { edit_topic_policy: 5 });
  // Members may rename a topic for three days (a week by default from level 162, the
  // organization's setting); moderators and administrators always.
  await t.app.ctx.store.db.updateTable('message').set({ date_sent: Math.floor(Date.now() / 1000) - 8 * 86400 }).where('id', '=', mine).execute();
  assertError(await edit(alice, mine, { topic: 'old' }), `The time limit for editing this message's topic has passed${FEATURE_LEVEL >= 162 ? '.' : ''}`);
  assertOk(await edit(admin, mine, { topic: 'old' }));
});

test("muted topics follow a whole-topic move; Notification Bot is a system bot, not one of the organization's users", async () => {
  const id = await post(alice, 'lounge', 'noisy');
  assertOk(await t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as: bob, params: { stream_id: lounge.id, topic: 'noisy', op: 'add' } }));
  log.clear();
  assertOk(await edit(alice, id, { topic: 'still noisy', propagate_mode: 'change_all' }));
  const ev = log.one('muted_topics', undefined, (e) => e.userIds.includes(bob.id));
  assert.deepEqual(ev.userIds, [bob.id]);
  assert.deepEqual(ev.event.muted_topics.map((m: unknown[]) => [m[0], m[1]]), [['lounge', 'still noisy']]);
  // From level 214 Alice follows the topic she started, so her policy moves with it too (her muted list stays empty).
  const others = log.find('muted_topics', undefined, (e) => !e.userIds.includes(bob.id));
  assert.deepEqual(others.map((e) => [e.userIds, e.event.muted_topics]), FEATURE_LEVEL >= 214 ? [[[alice.id], []]] : []);
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: JSON.stringify(['muted_topics', 'realm_user']) } }));
  assert.deepEqual(reg.muted_topics.map((m: unknown[]) => [m[0], m[1]]), [['lounge', 'still noisy']]);
  assert.deepEqual(reg.cross_realm_bots.map((b: any) => [b.email, b.full_name, b.is_system_bot, b.is_bot]), [['notification-bot@zulip.com', 'Notification Bot', true, true], ['welcome-bot@zulip.com', 'Welcome Bot', true, true]]);
  assert.equal(reg.realm_users.some((u: any) => u.email === 'notification-bot@zulip.com'), false);
  const users = assertOk(await t.api('GET', '/api/v1/users', { as: bob })).members;
  assert.equal(users.some((u: any) => u.email === 'notification-bot@zulip.com'), false);
});
