import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { startNotifications } from '../../src/notifications/start.js';
import { notificationCursor } from '../../src/store/repos/missed-messages.js';
import { recorder } from './recorder.js';

const now = () => Math.floor(Date.now() / 1000);

test('email batches: one per user once the earliest is due; a failing sender is retried with backoff; two workers take each batch once', async () => {
  const rec = recorder();
  const t = await testApp({ featureLevel: 372 }, { notificationSenders: rec });
  try {
    const n = t.app.ctx.notifications!;
    const alice = await t.createUser({ name: 'Alice Smith' });
    const bob = await t.createUser({ name: 'Bob Jones' });
    const ids: number[] = [];
    for (const c of ['one', 'two', 'three']) {
      ids.push((await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: c } })).body.id);
    }
    await n.decideNow();
    assert.equal(await n.runDue(now() + 10), 0, 'not due before the batching period');
    rec.fail = 1;
    // A second node's worker on the same database.
    const second = startNotifications(t.app.ctx, rec);
    const tried = (await Promise.all([n.runDue(now() + 200), second.runDue(now() + 200)])).reduce((a, b) => a + b, 0);
    assert.equal(tried, 1);
    assert.equal(rec.calls.length, 0, 'the sender threw');
    assert.equal(await n.runDue(now() + 201), 0, 'backing off');
    assert.equal(await n.runDue(now() + 200 + 11), 1);
    assert.equal(rec.calls.length, 1);
    assert.deepEqual(rec.calls[0]!.items.map((i) => i.messageId), ids);
    assert.equal(await n.runDue(now() + 10_000), 0, 'sent once');
  } finally {
    await t.close();
  }
});

test('restart: undecided messages and pending notifications survive and are sent by the next process', async () => {
  const first = await testApp({ featureLevel: 372 }, { notificationSenders: recorder() });
  const alice = await first.createUser({ name: 'Alice Smith' });
  const bob = await first.createUser({ name: 'Bob Jones' });
  const pending = (await first.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'decided' } })).body.id;
  await first.app.ctx.notifications!.decideNow();
  await first.app.close();
  const config = first.app.ctx.config;
  // The second message is stored while a node that crashed holds the decider's lease (for 2 s more): nobody decides it now.
  const middle = await testApp({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, featureLevel: 372 }, { notificationSenders: recorder() });
  assert.ok(await notificationCursor.lease(middle.app.ctx.store.db, 'crashed-node', now(), now() + 2));
  const undecided = (await middle.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'undecided' } })).body.id;
  assert.equal(await middle.app.ctx.notifications!.decideNow(), 0, 'the lease is the crashed node\'s');
  await middle.app.close();
  const rec = recorder();
  const again = await testApp({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, featureLevel: 372 }, { notificationSenders: rec });
  try {
    const n2 = again.app.ctx.notifications!;
    // Once the crashed node's lease has run out, this node decides the message it left.
    await until(async () => (await n2.decideNow()) > 0 || (await notificationCursor.position(again.app.ctx.store.db)) >= undecided, { timeoutMs: 10_000 });
    await n2.runDue(now() + 1000);
    await until(() => rec.calls.length > 0);
    assert.deepEqual(rec.calls.flatMap((c) => c.items.map((i) => i.messageId)), [pending, undecided]);
  } finally {
    await again.close();
  }
});

test('a deactivated user\'s and a deleted message\'s pending notifications are dropped', async () => {
  const rec = recorder();
  const t = await testApp({ featureLevel: 372 }, { notificationSenders: rec });
  try {
    const n = t.app.ctx.notifications!;
    const alice = await t.createUser({ name: 'Alice Smith' });
    const bob = await t.createUser({ name: 'Bob Jones' });
    const carol = await t.createUser({ name: 'Carol King' });
    const dm = async (to: { id: number }, content: string) =>
      (await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([to.id]), content } })).body.id as number;
    await dm(bob, 'to bob');
    const deleted = await dm(carol, 'deleted before its batch');
    const kept = await dm(carol, 'kept');
    await n.decideNow();
    assert.equal((await t.api('DELETE', `/api/v1/users/${bob.id}`)).status, 200);
    const del = await t.api('DELETE', `/api/v1/messages/${deleted}`, { as: alice });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    await n.runDue(now() + 1000);
    assert.deepEqual(rec.calls.map((c) => [c.userId, c.items.map((i) => i.messageId)]), [[carol.id, [kept]]]);
    const left = await t.app.ctx.store.db.selectFrom('missed_message_notification').select('id').execute();
    assert.deepEqual(left, []);
  } finally {
    await t.close();
  }
});

test('at feature level 122 (no followed topics) a mention and a private message notify as at later levels', async () => {
  const rec = recorder();
  const t = await testApp({ featureLevel: 122 }, { notificationSenders: rec });
  try {
    const n = t.app.ctx.notifications!;
    const alice = await t.createUser({ name: 'Alice Smith' });
    const bob = await t.createUser({ name: 'Bob Jones' });
    const id = (await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'hi' } })).body.id;
    await n.decideNow();
    await n.runDue(now() + 1000);
    assert.deepEqual(rec.calls.map((c) => [c.kind, c.userId, c.items]), [['email', bob.id, [{ messageId: id, trigger: 'private_message', mentionedUserGroupId: null }]]]);
  } finally {
    await t.close();
  }
});

test('one slow user holds up nobody else; a notification failing for a day is given up', async () => {
  let release = (): void => undefined;
  const hang = new Promise<void>((resolve) => (release = resolve));
  const rec = recorder();
  let slowId = -1;
  const slowBob = { ...rec, push: async (ctx: Parameters<typeof rec.push>[0], user: Parameters<typeof rec.push>[1], items: Parameters<typeof rec.push>[2]) => {
    if (user.id === slowId) await hang;
    await rec.push(ctx, user, items);
  } };
  const t = await testApp({ featureLevel: 372, pushBouncerUrl: 'http://127.0.0.1:9/' }, { notificationSenders: slowBob });
  try {
    const alice = await t.createUser({ name: 'Alice Smith' });
    const bob = await t.createUser({ name: 'Bob Jones' });
    slowId = bob.id;
    const carol = await t.createUser({ name: 'Carol King' });
    for (const u of [bob, carol]) await t.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: u, params: { token: `fcm-token-${u.id}` } });
    for (const to of [bob, carol]) await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([to.id]), content: 'hi' } });
    // The background steps (nudged by the sends) send Carol's push while Bob's hangs.
    await until(() => rec.calls.some((c) => c.userId === carol.id && c.kind === 'push'));
    assert.ok(!rec.calls.some((c) => c.userId === bob.id));
  } finally {
    release();
    await t.close();
  }
  const failing = recorder();
  failing.fail = 1000;
  const t2 = await testApp({ featureLevel: 372 }, { notificationSenders: failing });
  try {
    const alice = await t2.createUser({ name: 'Alice Smith' });
    const bob = await t2.createUser({ name: 'Bob Jones' });
    const n = t2.app.ctx.notifications!;
    await t2.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'never delivered' } });
    await n.decideNow();
    assert.equal(await n.runDue(now() + 200), 1);
    assert.equal(await n.runDue(now() + 200 + 86_400), 1);
    assert.deepEqual(await t2.app.ctx.store.db.selectFrom('missed_message_notification').select('id').execute(), [], 'given up and dropped');
  } finally {
    await t2.close();
  }
});

test('working through a backlog, the decider gives the event loop a turn between batches', async () => {
  const t = await testApp({ featureLevel: 372 }, { notificationSenders: recorder() });
  try {
    const db = t.app.ctx.store.db;
    const alice = await t.createUser({ name: 'Alice Smith' });
    const bob = await t.createUser({ name: 'Bob Jones' });
    // A backlog: another node holds the decider's lease while 80 messages (four batches) are sent.
    assert.ok(await notificationCursor.lease(db, 'other-node', now(), now() + 600));
    for (let i = 0; i < 80; i++) await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: `m${i}` } });
    await notificationCursor.release(db, 'other-node');
    // On SQLite every step can complete without the event loop (synchronous reads and writes):
    // without a turn between batches, requests waited for the whole backlog (161 s after
    // bench retention's hour of sends).
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await t.app.ctx.notifications!.decideNow();
    counting = false;
    assert.ok(turns >= 3, `event loop turns while four batches were decided: ${turns}`);
    assert.ok((await notificationCursor.position(db)) > 0, 'the backlog was decided');
  } finally {
    await t.close();
  }
});
