import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Role } from '../../src/lib/roles.js';
import { EventLog } from '../helpers/events.js';
import { transact } from '../../src/actions/transaction.js';
import { createStreamWithSubscribers } from '../../src/actions/stream-create.js';
import { doAddDefaultStream } from '../../src/actions/default-streams.js';
import { subscriptions } from '../../src/store/repos/subscriptions.js';
import { accessStreamById, accessStreamByName, canReadHistory, canSeeStream, canPostToStream } from '../../src/access/stream.js';

let t: TestApp;
let admin: TestUser, member: TestUser, guest: TestUser;
let log: EventLog;
before(async () => {
  t = await testApp();
  admin = await t.createUser({ role: Role.ADMINISTRATOR });
  member = await t.createUser();
  guest = await t.createUser({ role: Role.GUEST });
  log = new EventLog(t);
});
after(async () => { await t.close(); });

const db = () => t.app.ctx.store.db;

test('createStreamWithSubscribers creates a public stream, subscribes and notifies', async () => {
  log.clear();
  const s = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, { name: 'general', description: 'All **hands**' }, [member.row]));
  assert.equal(s.name, 'general');
  assert.equal(s.rendered_description, '<p>All <strong>hands</strong></p>');
  assert.ok(s.recipient_id);
  assert.deepEqual(await subscriptions.listSubscriberIds(db(), s.id), [member.id]);
  const create = log.events.find((e) => e.event.type === 'stream' && e.event.op === 'create')!;
  // Public stream: every non-guest learns of it; the guest does not.
  assert.deepEqual([...create.userIds].sort((a, b) => a - b), [t.owner.id, admin.id, member.id].sort((a, b) => a - b));
  const add = log.events.find((e) => e.event.type === 'subscription' && e.event.op === 'add')!;
  assert.deepEqual(add.userIds, [member.id]);
  const subs = add.event.subscriptions as any[];
  assert.equal(subs[0].name, 'general');
  assert.deepEqual(subs[0].subscribers, [member.id]);
  assert.match(subs[0].color, /^#[0-9a-f]{6}$/);
  const peer = log.events.find((e) => e.event.type === 'subscription' && e.event.op === 'peer_add')!;
  assert.deepEqual(peer.event.user_ids, [member.id]);
  assert.deepEqual(peer.event.stream_ids, [s.id]);
  assert.ok(!peer.userIds.includes(member.id) && !peer.userIds.includes(guest.id));
  // Calling again with the same name reuses the stream.
  const again = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, 'GENERAL', [admin.row]));
  assert.equal(again.id, s.id);
  assert.deepEqual(await subscriptions.listSubscriberIds(db(), s.id), [admin.id, member.id].sort((a, b) => a - b));
});

test('access helpers: private streams are invisible to non-subscribers, admins see metadata only', async () => {
  const p = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, { name: 'secret', inviteOnly: true }, [member.row]));
  assert.equal(p.history_public_to_subscribers, 0);
  const got = await accessStreamById(db(), member.row, p.id);
  assert.equal(got.stream.id, p.id);
  assert.ok(got.sub);
  await assert.rejects(accessStreamById(db(), admin.row, p.id), { message: 'Invalid stream id' });
  await assert.rejects(accessStreamById(db(), admin.row, 999999), { message: 'Invalid stream id' });
  assert.equal((await accessStreamById(db(), admin.row, p.id, { allowAdmin: true })).sub, null);
  await assert.rejects(accessStreamById(db(), guest.row, p.id, { allowAdmin: true }), { message: 'Invalid stream id' });
  await assert.rejects(accessStreamByName(db(), guest.row, 'secret'), { message: "Invalid stream name 'secret'" });
  assert.equal((await accessStreamByName(db(), member.row, 'SECRET')).stream.id, p.id);
  assert.equal(canSeeStream(admin.row, p, null), false);
  assert.equal(canReadHistory(member.row, p, got.sub), false);
  assert.equal(canPostToStream(guest.row, { ...p, stream_post_policy: 2 }), false);
  assert.equal(canPostToStream(admin.row, { ...p, stream_post_policy: 2 }), true);
});

test('new users join default streams', async () => {
  const d = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, 'welcome', []));
  await transact(t.app.ctx, (tx) => doAddDefaultStream(tx, d));
  const fresh = await t.createUser();
  assert.ok((await subscriptions.listSubscriberIds(db(), d.id)).includes(fresh.id));
});

test('deactivating a user takes them off subscriber lists and tells peers', async () => {
  const leaver = await t.createUser();
  const s = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, 'farewell', [member.row, leaver.row]));
  log.clear();
  const r = await t.api('DELETE', `/api/v1/users/${leaver.id}`, { as: t.owner });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const peer = log.events.find((e) => e.event.type === 'subscription' && e.event.op === 'peer_remove')!;
  assert.deepEqual(peer.event, { type: 'subscription', op: 'peer_remove', stream_ids: [s.id], user_ids: [leaver.id] });
  assert.ok(peer.userIds.includes(member.id) && !peer.userIds.includes(leaver.id));
  const members = await t.api('GET', `/api/v1/streams/${s.id}/members`, { as: member });
  assert.deepEqual(members.body.subscribers, [member.id]);
});

test('racing creations of one stream name never fail with a 500', async () => {
  const results = await Promise.all([member, admin, t.owner].map((as) =>
    t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name: 'race' }] } })));
  for (const r of results) {
    assert.ok(r.status === 200 || (r.status === 400 && r.body.msg === "Stream name 'race' is already taken."), JSON.stringify(r.body));
  }
  assert.ok(results.some((r) => r.status === 200));
  const rows = await db().selectFrom('stream').select('id').where('name_lower', '=', 'race').execute();
  assert.equal(rows.length, 1);
});

test('register state helpers keep private streams private', async () => {
  const { gatherSubscriptions } = await import('../../src/reads/subscriptions.js');
  const { streamsVisibleTo, defaultStreams } = await import('../../src/reads/streams.js');
  const { doRemoveSubscriptions } = await import('../../src/actions/subscription-remove.js');
  const leaver = await t.createUser();
  const closed = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, { name: 'closed-club', inviteOnly: true }, [member.row, leaver.row]));
  await transact(t.app.ctx, (tx) => doRemoveSubscriptions(tx, [closed], [leaver.row]));
  const mine = await gatherSubscriptions(db(), member.row, true, 122);
  assert.deepEqual(mine.subscriptions.find((s) => s.stream_id === closed.id)!.subscribers, [member.id]);
  const left = await gatherSubscriptions(db(), leaver.row, true, 122);
  const past = left.unsubscribed.find((s) => s.stream_id === closed.id)!;
  assert.ok(past && !('subscribers' in past), 'a former subscriber no longer sees the members');
  assert.ok(!left.never_subscribed.some((s) => s.stream_id === closed.id));
  const adminState = await gatherSubscriptions(db(), admin.row, true, 122);
  assert.deepEqual(adminState.never_subscribed.find((s) => s.stream_id === closed.id)!.subscribers, [member.id]);
  const guestState = await gatherSubscriptions(db(), guest.row, false, 122);
  assert.deepEqual(guestState.never_subscribed, []);
  assert.ok(!(await streamsVisibleTo(db(), guest.row)).some((s) => s.id === closed.id));
  assert.ok(!(await streamsVisibleTo(db(), leaver.row)).some((s) => s.id === closed.id));
  assert.ok((await streamsVisibleTo(db(), admin.row)).some((s) => s.id === closed.id));
  assert.ok((await defaultStreams(db(), t.realm.id)).some((s) => s.name === 'welcome'));
});

test('fillNotificationDefaults replaces only null settings, from the user settings', async () => {
  const { fillNotificationDefaults } = await import('../../src/presenters/stream.js');
  const filled = fillNotificationDefaults({ desktop_notifications: null, push_notifications: true, email_notifications: null,
    audible_notifications: null, wildcard_mentions_notify: null }, JSON.stringify({ enable_stream_email_notifications: true }));
  assert.deepEqual(filled, { desktop_notifications: false, push_notifications: true, email_notifications: true,
    audible_notifications: false, wildcard_mentions_notify: true });
});
