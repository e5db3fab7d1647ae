import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk, sorted } from '../helpers/assert.js';
import { createStreams, insertStreamMessage } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { catchUpIdle, runSoftDeactivation } from '../../src/actions/soft-deactivation.js';
import { softDeactivation } from '../../src/store/repos/soft-deactivation.js';
import type { StreamRow } from '../../src/store/rows.js';

// Soft deactivation (Zulip's long_term_idle, zerver/lib/soft_deactivation.py): people away
// for weeks get no recipient row for an ordinary stream message; the rows are made when
// they return, before any change of their subscriptions, or by the daily job, so that no
// client can tell.
let t: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser, erin: TestUser;
let s: Record<'general' | 'protected' | 'other', StreamRow>;
const DAY = 86_400;

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  erin = await t.createUser({ name: 'Erin Fox', email: 'erin@parley.test' });
  s = await createStreams(t, {
    general: [alice, bob, carol, dave, erin],
    protected: { inviteOnly: true, historyPublicToSubscribers: false, subscribers: [alice, bob] },
    other: [alice],
  });
});
after(() => t.close());

const db = () => t.app.ctx.store.db;
const now = () => Math.floor(Date.now() / 1000);
const api = (as: TestUser, method: string, path: string, params: Record<string, unknown> = {}) => t.api(method, `/api/v1${path}`, { as, params });
const rowsOf = async (userId: number, ids: number[]) =>
  new Map((await db().selectFrom('user_message').select(['message_id', 'flags']).where('user_id', '=', userId).where('message_id', 'in', ids).execute())
    .map((r) => [r.message_id, r.flags]));
const idle = async (userId: number) => (await db().selectFrom('users').select('long_term_idle').where('id', '=', userId).executeTakeFirstOrThrow()).long_term_idle === 1;
/** Away for `days`: their last visit moved back (the job reads user_activity). */
const awayFor = async (users: TestUser[], days: number) => {
  for (const u of users) {
    await db().insertInto('user_activity').values({ user_id: u.id, last_visit: now() - days * DAY })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_visit: now() - days * DAY })).execute();
  }
};
/** Soft-deactivates exactly these people through the daily job (everyone else seen just now). */
const makeIdle = async (...users: TestUser[]) => {
  await awayFor([alice, bob, carol, dave, erin, t.owner].filter((u) => !users.includes(u)), 0);
  await awayFor(users, 40);
  await runSoftDeactivation(t.app.ctx, { realmId: t.realm.id, days: 28 });
  for (const u of users) assert.equal(await idle(u.id), true, `${u.email} idle`);
};
const say = (content: string, stream = 'general', topic = 'news') => sendMessage(t, alice, { type: 'stream', to: stream, topic, content });

test('the daily job soft-deactivates people away longer than the days, and no one else', async () => {
  const bot = await t.createBot(alice, { fullName: 'Sleepy Bot', shortName: 'sleepy' });
  await awayFor([alice, dave, erin, t.owner], 0);
  await awayFor([bob, carol, bot], 40);
  // Never seen since joining: counted from the day they joined.
  await db().deleteFrom('user_activity').where('user_id', '=', dave.id).execute();
  await db().updateTable('users').set({ date_joined: now() - 60 * DAY }).where('id', '=', dave.id).execute();
  const r = await runSoftDeactivation(t.app.ctx, { realmId: t.realm.id, days: 28 });
  assert.equal(r.deactivated, 3);
  assert.deepEqual([await idle(alice.id), await idle(bob.id), await idle(carol.id), await idle(dave.id), await idle(erin.id), await idle(bot.id)],
    [false, true, true, true, false, false]);
  // Nobody is idle at 0 days: the setting turns it off.
  for (const u of [bob, carol, dave]) assertOk(await api(u, 'GET', '/users/me'));
  await awayFor([bob], 400);
  assert.equal((await runSoftDeactivation(t.app.ctx, { realmId: t.realm.id, days: 0 })).deactivated, 0);
  assert.equal(await idle(bob.id), false);
});

test('a stream message makes no row for an idle person unless it flags them; their return makes the rest, unread, before they read', async () => {
  await makeIdle(bob, carol);
  const plain = await say('an ordinary message');
  const mention = await say('hello @**Carol King**');
  const pm = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'a private word' });
  const ids = [plain, mention, pm];
  assert.deepEqual([...(await rowsOf(bob.id, ids)).keys()], [pm], 'bob: only the private message');
  assert.deepEqual([...(await rowsOf(carol.id, ids)).keys()], [mention], 'carol: only her mention');
  assert.equal((await rowsOf(dave.id, ids)).size, 2, 'an active subscriber has both');

  // Bob comes back: his first request reads his messages as if he had never been idle.
  const got = assertOk(await getMessages(t, bob, { narrow: JSON.stringify([{ operator: 'stream', operand: 'general' }]) }));
  const byId = new Map((got.messages as Array<{ id: number; flags: string[] }>).map((m) => [m.id, m.flags]));
  assert.deepEqual(byId.get(plain), []);
  assert.deepEqual(byId.get(mention), []);
  assert.equal(await idle(bob.id), false);
  assert.deepEqual(sorted([...(await rowsOf(bob.id, ids)).keys()]), sorted(ids));
  const reg = assertOk(await api(bob, 'POST', '/register'));
  assert.ok(reg.unread_msgs.count >= 3);
  // Carol's row keeps its mention; the rest is made unread.
  assertOk(await api(carol, 'GET', '/users/me'));
  const carolRows = await rowsOf(carol.id, [plain, mention]);
  assert.equal(carolRows.get(plain), 0);
  assert.notEqual(carolRows.get(mention)! & 8, 0, 'mentioned');
});

test('a protected stream\'s messages sent while idle are readable on return; a stream they were not in stays out of reach', async () => {
  await makeIdle(bob);
  const secret = await say('for subscribers only', 'protected');
  const elsewhere = await say('not for bob', 'other');
  assert.equal((await rowsOf(bob.id, [secret])).size, 0);
  const got = assertOk(await getMessages(t, bob, { narrow: JSON.stringify([{ operator: 'stream', operand: 'protected' }]) }));
  assert.ok(messageIds(got).includes(secret));
  assert.equal((await rowsOf(bob.id, [elsewhere])).size, 0);
});

test('subscription changes of an idle person: rows up to the change, none for a stream before they joined it', async () => {
  await makeIdle(carol);
  const before1 = await say('before carol leaves');
  const otherEarly = await say('before carol joins', 'other');
  assertOk(await api(t.owner, 'DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify(['general']), principals: JSON.stringify([carol.id]) }));
  assertOk(await api(t.owner, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'other' }]), principals: JSON.stringify([carol.id]) }));
  const after1 = await say('after carol left');
  const otherLate = await say('after carol joined', 'other');
  assert.equal(await idle(carol.id), true, 'changes made by others leave her idle');
  assertOk(await api(carol, 'GET', '/users/me'));
  const rows = await rowsOf(carol.id, [before1, after1, otherEarly, otherLate]);
  assert.deepEqual(sorted([...rows.keys()]), sorted([before1, otherLate]));
  assertOk(await api(t.owner, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'general' }]), principals: JSON.stringify([carol.id]) }));
});

test('an idle person keeps rows for what would notify them: a stream with push on, a followed topic, an edit that mentions them', async () => {
  assertOk(await api(dave, 'POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: s.general.id, property: 'push_notifications', value: true }]) }));
  // Following a topic needs level 219's API; the row is what matters here.
  await db().insertInto('user_topic').values({ user_id: erin.id, stream_id: s.general.id, topic: 'followed', topic_lower: 'followed', last_updated: now(), visibility_policy: 3 }).execute();
  await makeIdle(dave, erin, bob);
  const plain = await say('to the stream');
  const followed = await say('in the followed topic', 'general', 'followed');
  assert.equal((await rowsOf(dave.id, [plain, followed])).size, 2, 'dave: push on for the stream');
  assert.deepEqual([...(await rowsOf(erin.id, [plain, followed])).keys()], [followed], 'erin: only her followed topic');
  assert.equal((await rowsOf(bob.id, [plain])).size, 0);
  // An edit that mentions bob flags a row he did not have.
  assertOk(await api(alice, 'PATCH', `/messages/${plain}`, { content: 'to the stream, and @**Bob Jones**' }));
  const bobRow = (await rowsOf(bob.id, [plain])).get(plain);
  assert.ok(bobRow !== undefined && (bobRow & 8) !== 0, 'bob mentioned');
});

test('the daily job catches up everyone idle without waking them', async () => {
  await makeIdle(bob);
  const m = await say('caught up overnight');
  assert.equal((await rowsOf(bob.id, [m])).size, 0);
  const r = await runSoftDeactivation(t.app.ctx, { realmId: t.realm.id, days: 28 });
  assert.ok(r.caughtUp >= 1 && r.rows >= 1);
  assert.equal((await rowsOf(bob.id, [m])).get(m), 0);
  assert.equal(await idle(bob.id), true);
  // Run again: nothing more to make.
  const again = await runSoftDeactivation(t.app.ctx, { realmId: t.realm.id, days: 28 });
  assert.equal(again.rows, 0);
});

test('a long catch-up goes in steps of message ids, each its own transaction, the mark moving with each', async () => {
  await makeIdle(carol);
  // A topic of its own: carol follows 'news' from level 214 on (mentioned there above), and
  // a followed topic's messages make rows for idle people as they are sent.
  const sent = [await say('one', 'general', 'steps'), await say('two', 'general', 'steps'), await say('three', 'general', 'steps')];
  const mark = async () => (await db().selectFrom('idle_mark').select('last_active_message_id').where('user_id', '=', carol.id).executeTakeFirstOrThrow()).last_active_message_id;
  const start = await mark();
  assert.ok(start < sent[0]!);
  const steps: Array<{ rows: number; done: boolean }> = [];
  for (let done = false; !done;) {
    const step = await t.app.ctx.store.db.transaction().execute((trx) => softDeactivation.catchUpStep(trx, carol.id, sent[0]! - start));
    steps.push(step);
    done = step.done;
    if (!done) assert.equal((await rowsOf(carol.id, sent)).size, steps.reduce((n, x) => n + x.rows, 0), 'only the rows up to the mark');
  }
  assert.deepEqual(steps.map((x) => x.rows).reduce((a, b) => a + b), 3);
  assert.ok(steps.length >= 2 && steps.at(-1)!.done);
  assert.equal(await mark(), sent[2]);
  assert.deepEqual([...(await rowsOf(carol.id, sent)).values()], [0, 0, 0]);
  assert.equal(await idle(carol.id), true, 'caught up, still idle');
  assert.deepEqual(await softDeactivation.catchUpStep(db(), carol.id, 1), { rows: 0, done: true });
  assertOk(await api(carol, 'GET', '/users/me'));

  // Ahead of a subscription change (catchUpIdle), the same steps, one message id each here.
  await makeIdle(bob);
  const more = [await say('four', 'general', 'steps'), await say('five', 'general', 'steps')];
  assert.equal((await rowsOf(bob.id, more)).size, 0);
  // The mark's moves retire no cache (migration 077): the epoch every process polls stays.
  const epoch = async () => (await db().selectFrom('cache_epoch').select('value').executeTakeFirstOrThrow()).value;
  const before = await epoch();
  assert.equal(await catchUpIdle(t.app.ctx, [bob.id, alice.id], 1), 2, 'alice is not idle: nothing of hers');
  assert.equal(String(await epoch()), String(before), 'no write the caches watch');
  assert.deepEqual([...(await rowsOf(bob.id, more)).values()], [0, 0]);
  assert.equal(await idle(bob.id), true);
  assertOk(await api(bob, 'GET', '/users/me'));
});

test('a send in flight while an idle person returns: the sweep after their return makes the row it left out', async () => {
  await makeIdle(bob);
  assertOk(await api(bob, 'GET', '/users/me'));
  assert.equal(await idle(bob.id), false);
  // As a send that read bob as idle just before his catch-up and committed just after it.
  const late = await insertStreamMessage(t, s.general.id, alice.id, 'news', [alice.id, carol.id, dave.id, erin.id]);
  // The sweep the return scheduled runs 5 s later; run now (under a slow machine the
  // scheduled one may have run already: either way the row is made, once).
  await softDeactivation.sweepAfterReturn(db(), bob.id);
  assert.equal((await rowsOf(bob.id, [late])).get(late), 0);
  // The mark is gone: a later sweep makes nothing.
  assert.equal(await softDeactivation.sweepAfterReturn(db(), bob.id), 0);
});
