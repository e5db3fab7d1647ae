import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ENGINE, type TestApp } from '../helpers/app.js';
import { transact } from '../../src/actions/transaction.js';
import { storeMessage } from '../../src/store/group-commit.js';

// On SQLite, reads run on the request thread and writes on the writer thread
// (src/store/sqlite-dialect.ts); these are the guarantees callers rely on, on both engines.

let t: TestApp;
before(async () => { t = await testApp(); });
after(() => t.close());

const words = async () => (await t.app.ctx.store.db.selectFrom('alert_word').select('word')
  .where('user_id', '=', t.owner.id).orderBy('word').execute()).map((r) => r.word);

/** A transaction that writes, then stays open until `release` is called. */
function openTransaction(word: string, outcome: 'commit' | 'rollback') {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let wrote!: () => void;
  const written = new Promise<void>((r) => (wrote = r));
  const done = transact(t.app.ctx, async (tx) => {
    await tx.db.insertInto('alert_word').values({ user_id: t.owner.id, realm_id: t.realm.id, word }).execute();
    wrote();
    await held;
    if (outcome === 'rollback') throw new Error('rolled back on purpose');
  });
  return { written, release, done };
}

test('a read outside a transaction sees the last commit, not an open transaction, and does not wait for it', async () => {
  const tx = openTransaction('pending', 'commit');
  await tx.written;
  assert.deepEqual(await words(), []);
  tx.release();
  await tx.done;
  assert.deepEqual(await words(), ['pending']);
});

test('a write issued while a transaction is open is not part of it: it survives that transaction rolling back', async () => {
  const tx = openTransaction('doomed', 'rollback');
  await tx.written;
  const outside = t.app.ctx.store.db.insertInto('alert_word').values({ user_id: t.owner.id, realm_id: t.realm.id, word: 'outside' }).execute();
  tx.release();
  await assert.rejects(tx.done, /rolled back on purpose/);
  await outside;
  assert.deepEqual(await words(), ['outside', 'pending']);
});

test('a send stored while a transaction is open waits for it and survives its rollback', async () => {
  const created = await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: [{ name: 'concurrency' }] } });
  assert.equal(created.status, 200);
  const stream = await t.app.ctx.store.db.selectFrom('stream').select(['id', 'recipient_id']).where('name', '=', 'concurrency').executeTakeFirstOrThrow();
  const tx = openTransaction('doomed-too', 'rollback');
  await tx.written;
  const sent = storeMessage(t.app.ctx.store, {
    message: {
      realm_id: t.realm.id, sender_id: t.owner.id, recipient_id: stream.recipient_id!, stream_id: stream.id, topic: 'c', topic_lower: 'c',
      content: 'kept', rendered_content: '<p>kept</p>', rendered_content_version: 1, date_sent: 1_700_000_000, client: 'test',
      last_edit_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0,
    },
    firstOf: null,
    recipients: [{ user_id: t.owner.id, flags: 0 }],
  });
  tx.release();
  await assert.rejects(tx.done);
  const { id } = await sent;
  const row = await t.app.ctx.store.db.selectFrom('user_message').select('flags').where('message_id', '=', id).where('user_id', '=', t.owner.id).executeTakeFirst();
  assert.deepEqual(row, { flags: 0 });
  assert.deepEqual(await words(), ['outside', 'pending']);
});

test('a constraint error from the writer keeps its engine code, so callers can tell a duplicate', async () => {
  const err = await t.app.ctx.store.db.insertInto('alert_word').values({ user_id: t.owner.id, realm_id: t.realm.id, word: 'outside' }).execute()
    .then(() => undefined, (e: unknown) => e as { code?: string });
  assert.equal(err?.code, ENGINE === 'postgres' ? '23505' : 'SQLITE_CONSTRAINT_UNIQUE');
});

test('on SQLite a transaction runs its statements without waiting for turns of the event loop', { skip: ENGINE !== 'sqlite' }, async () => {
  // A transaction holds the writer: statement by statement through a busy event loop it
  // held it for as many turns, and every other write queued (src/store/sqlite-writer.ts).
  let turned = false;
  setImmediate(() => { turned = true; });
  const words = ['turn-a', 'turn-b', 'turn-c'];
  await transact(t.app.ctx, async (tx) => {
    for (const word of words) await tx.db.insertInto('alert_word').values({ user_id: t.owner.id, realm_id: t.realm.id, word }).execute();
    const n = await tx.db.selectFrom('alert_word').select('word').where('word', 'in', words).execute();
    assert.equal(n.length, 3);
    await tx.db.deleteFrom('alert_word').where('word', 'in', words).execute();
  });
  assert.equal(turned, false, 'the transaction needed no turn of the event loop');
});
