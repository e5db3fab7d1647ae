import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk, sorted } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { archiveExpiredMessages } from '../../src/actions/retention.js';
import type { StreamRow } from '../../src/store/rows.js';

// Message retention (issue 36, Zulip's zerver/lib/retention.py): which messages expire by
// their stream's or the organization's message_retention_days, where they go, who hears
// of it. Restore, purge, files and batches: retention-restore.test.ts.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
let s: Record<'general' | 'secret' | 'protected' | 'own' | 'forever', StreamRow>;
const DAY = 86_400;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  s = await createStreams(t, {
    general: [alice, bob, carol],
    secret: { inviteOnly: true, subscribers: [alice, bob] },
    protected: { inviteOnly: true, historyPublicToSubscribers: false, subscribers: [alice, bob, carol] },
    own: { messageRetentionDays: 5, subscribers: [alice, bob] },
    forever: { messageRetentionDays: -1, subscribers: [alice, bob] },
  });
});
after(() => t.close());

const db = () => t.app.ctx.store.db;
const now = () => Math.floor(Date.now() / 1000);
/** The clock moved by sending then backdating: the message was sent `days` ago. */
const age = async (ids: number[], days: number) => {
  await db().updateTable('message').set({ date_sent: now() - days * DAY }).where('id', 'in', ids).execute();
};
const say = (as: TestUser, stream: string, content: string, topic = 'old times') => sendMessage(t, as, { type: 'stream', to: stream, topic, content });
const live = async (ids: number[]) => (await db().selectFrom('message').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort((a, b) => a - b);
const archived = async (ids: number[]) => (await db().selectFrom('archived_message').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort((a, b) => a - b);
const run = () => archiveExpiredMessages(t.app.ctx, { realmId: t.realm.id, pauseFactor: 0 });
const deletions = (id: number) => log.find('delete_message', undefined, (e) => (e.event.message_ids as number[]).includes(id));

test('with the organization at 30 days: older stream and private messages are archived, younger ones and an unlimited stream\'s stay', async () => {
  await setRealmSettings(t, { message_retention_days: 30 });
  try {
    const generalOld = await say(alice, 'general', 'ancient wisdom');
    const generalNew = await say(alice, 'general', 'recent wisdom');
    const secretOld = await say(bob, 'secret', 'ancient secret', 'plans');
    const protectedOld = await say(alice, 'protected', 'ancient protected');
    const pmOld = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'ancient whisper' });
    const groupOld = await sendMessage(t, alice, { type: 'private', to: [bob.id, carol.id], content: 'ancient huddle' });
    const pmNew = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'recent whisper' });
    const foreverOld = await say(alice, 'forever', 'ancient forever');
    await age([generalOld, secretOld, protectedOld, pmOld, groupOld, foreverOld], 31);
    await age([generalNew, pmNew], 29);
    // carol joins the protected stream's history late: she never received its old message.
    await db().deleteFrom('user_message').where('message_id', '=', protectedOld).where('user_id', '=', carol.id).execute();
    log.clear();
    const summary = await run();
    const gone = [generalOld, secretOld, protectedOld, pmOld, groupOld];
    assert.ok(summary.messages >= gone.length);
    assert.deepEqual(await live([...gone, generalNew, pmNew, foreverOld]), sorted([generalNew, pmNew, foreverOld]));
    assert.deepEqual(await archived(gone), sorted(gone));

    // Gone from GET /messages and from search, for everyone who had them.
    const bobSees = messageIds(assertOk(await getMessages(t, bob)));
    for (const id of gone) assert.ok(!bobSees.includes(id), `message ${id} still listed`);
    assert.ok(bobSees.includes(generalNew) && bobSees.includes(pmNew));
    const found = messageIds(assertOk(await getMessages(t, bob, { narrow: JSON.stringify([{ operator: 'search', operand: 'ancient' }]) })));
    assert.deepEqual(found, [foreverOld]);

    // delete_message as a manual deletion sends it, to the same people.
    const ev = (id: number) => {
      const found = deletions(id);
      assert.equal(found.length, 1, `one event for ${id}`);
      return found[0]!;
    };
    assert.deepEqual(ev(generalOld).event, { type: 'delete_message', message_type: 'stream', message_ids: [generalOld], stream_id: s.general.id, topic: 'old times' });
    assert.deepEqual(sorted(ev(generalOld).userIds), sorted([alice.id, bob.id, carol.id]));
    assert.deepEqual(ev(secretOld).event, { type: 'delete_message', message_type: 'stream', message_ids: [secretOld], stream_id: s.secret.id, topic: 'plans' });
    assert.deepEqual(sorted(ev(secretOld).userIds), sorted([alice.id, bob.id]), 'a private stream\'s subscribers only');
    assert.deepEqual(sorted(ev(protectedOld).userIds), sorted([alice.id, bob.id]), 'protected history: those who received it');
    // One event per set of ids lost: alice and bob lose both private messages, carol one.
    assert.deepEqual(ev(pmOld).event, { type: 'delete_message', message_type: 'private', message_ids: sorted([pmOld, groupOld]) });
    assert.deepEqual(sorted(ev(pmOld).userIds), sorted([alice.id, bob.id]));
    const carols = deletions(groupOld).filter((e) => e.userIds.includes(carol.id));
    assert.deepEqual(carols.map((e) => [e.event, e.userIds]), [[{ type: 'delete_message', message_type: 'private', message_ids: [groupOld] }, [carol.id]]]);
    for (const id of gone) assert.ok(!deletions(id).some((e) => e.userIds.includes(dave.id)), 'dave had none of them');
    assert.equal(deletions(generalNew).length + deletions(foreverOld).length, 0);

    // The archive's record: batches of the retention type, for this organization.
    const batchIds = (await db().selectFrom('archived_message').select('archive_transaction_id').where('id', 'in', gone).execute()).map((r) => r.archive_transaction_id);
    const batches = await db().selectFrom('archive_transaction').selectAll().where('id', 'in', batchIds).execute();
    assert.ok(batches.length >= 1 && batches.every((b) => b.type === 1 && b.realm_id === t.realm.id && b.restored === 0));
    assert.ok(batches.every((b) => Math.abs(b.timestamp - now()) < 60));
    const rows = await db().selectFrom('archived_user_message').select(['user_id', 'message_id']).where('message_id', '=', pmOld).execute();
    assert.deepEqual(sorted(rows.map((r) => r.user_id)), sorted([alice.id, bob.id]));
    assert.deepEqual(await db().selectFrom('user_message').select('user_id').where('message_id', 'in', gone).execute(), []);
  } finally {
    await setRealmSettings(t, { message_retention_days: -1 });
  }
});

test('a stream\'s own retention beats the organization\'s; realm_default (null) follows it; unlimited keeps everything', async () => {
  await setRealmSettings(t, { message_retention_days: 30 });
  try {
    const ownOld = await say(alice, 'own', 'six days');
    const ownNew = await say(alice, 'own', 'four days');
    const generalTen = await say(alice, 'general', 'ten days');
    await age([ownOld], 6);
    await age([ownNew], 4);
    await age([generalTen], 10);
    await run();
    assert.deepEqual(await live([ownOld, ownNew, generalTen]), sorted([ownNew, generalTen]), 'own: 5 days; general (realm_default): 30');
  } finally {
    await setRealmSettings(t, { message_retention_days: -1 });
  }
});

test('an organization at unlimited archives nothing of its own, but a stream with its own retention still expires', async () => {
  const generalOld = await say(alice, 'general', 'a thousand days');
  const pmOld = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'a thousand days' });
  const ownOld = await say(alice, 'own', 'a thousand days');
  await age([generalOld, pmOld, ownOld], 1000);
  log.clear();
  await run();
  assert.deepEqual(await live([generalOld, pmOld, ownOld]), sorted([generalOld, pmOld]));
  assert.equal(deletions(generalOld).length + deletions(pmOld).length, 0);
  // Even a stream set to unlimited in an unlimited organization: nothing.
  await db().updateTable('stream').set({ message_retention_days: -1 }).where('id', '=', s.own.id).execute();
  const again = await say(alice, 'own', 'kept forever');
  await age([again], 1000);
  await run();
  assert.deepEqual(await live([again]), [again]);
  await db().updateTable('stream').set({ message_retention_days: 5 }).where('id', '=', s.own.id).execute();
});

test('an expiring first message moves the stream\'s first_message_id to the oldest left', async () => {
  const [x] = await createStreams(t, { firsts: { messageRetentionDays: 3, subscribers: [alice, bob] } }).then((r) => [r.firsts]);
  const first = await say(alice, 'firsts', 'the very first');
  const second = await say(alice, 'firsts', 'the second');
  await age([first], 4);
  log.clear();
  await run();
  const row = await db().selectFrom('stream').select('first_message_id').where('id', '=', x!.id).executeTakeFirstOrThrow();
  assert.equal(row.first_message_id, second);
  const e = log.one('stream', 'update', (env) => env.event.stream_id === x!.id);
  assert.equal(e.event.value, second);
});

test('the walk goes by age, not id: old messages with later ids expire (as an import adds them), in batches of one through equal send times', async () => {
  await setRealmSettings(t, { message_retention_days: 30 });
  try {
    const young = [await say(alice, 'general', 'young one'), await say(alice, 'general', 'young two')];
    const old = [await say(alice, 'general', 'old one'), await say(alice, 'general', 'old two'), await say(alice, 'general', 'old three')];
    const pmYoung = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'young whisper' });
    const pmOld = [await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'old whisper' }),
      await sendMessage(t, alice, { type: 'private', to: [bob.id, carol.id], content: 'old huddle' })];
    await age(young, 1);
    await age([pmYoung], 1);
    // The same second for all: the walk's key must still step past each one.
    await age([...old, ...pmOld], 40);
    const r = await archiveExpiredMessages(t.app.ctx, { realmId: t.realm.id, pauseFactor: 0, batchSize: 1 });
    // Earlier tests' leftovers in other streams may expire too.
    assert.ok(r.messages >= 5, String(r.messages));
    assert.deepEqual(await live([...young, pmYoung]), sorted([...young, pmYoung]));
    assert.deepEqual(await archived([...old, ...pmOld]), sorted([...old, ...pmOld]));
  } finally {
    await setRealmSettings(t, { message_retention_days: -1 });
  }
});
