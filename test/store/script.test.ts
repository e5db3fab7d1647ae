import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testApp, type TestApp } from '../helpers/app.js';
import { storeMessage } from '../../src/store/group-commit.js';

// Store.script: a transaction whose statements are known up front (retention's batches). On
// an SQLite file the writer thread runs it between group commits; elsewhere a transaction.
let t: TestApp;
before(async () => {
  t = await testApp();
  assert.equal((await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: [{ name: 'scripts' }] } })).status, 200);
});
after(() => t.close());

const db = () => t.app.ctx.store.db;
const topicCount = async (topic: string) => Number((await db().selectFrom('message').select((eb) => eb.fn.countAll<number>().as('n')).where('topic', '=', topic).executeTakeFirstOrThrow()).n);

async function aStream(): Promise<{ id: number; recipient_id: number }> {
  const s = await db().selectFrom('stream').select(['id', 'recipient_id']).where('realm_id', '=', t.realm.id).where('name', '=', 'scripts').executeTakeFirstOrThrow();
  return { id: s.id, recipient_id: s.recipient_id! };
}

const message = (stream: { id: number; recipient_id: number }, topic: string, content: string) => ({
  realm_id: t.realm.id, sender_id: t.owner.id, recipient_id: stream.recipient_id, stream_id: stream.id, topic, topic_lower: topic, content,
  rendered_content: `<p>${content}</p>`, rendered_content_version: 1, date_sent: 1_700_000_000, client: 'test', last_edit_time: null,
  edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0,
});

test('each statement\'s result in order; later statements see what earlier ones wrote; the time it held the writer', async () => {
  const stream = await aStream();
  const { results, heldMs } = await t.app.ctx.store.script([
    db().insertInto('message').values(message(stream, 'scripted', 'one')).compile(),
    db().insertInto('message').values(message(stream, 'scripted', 'two')).compile(),
    db().selectFrom('message').select('content').where('topic', '=', 'scripted').orderBy('id').compile(),
    db().updateTable('message').set({ content: 'changed' }).where('topic', '=', 'scripted').compile(),
  ]);
  assert.equal(results.length, 4);
  assert.deepEqual(results[2]!.rows, [{ content: 'one' }, { content: 'two' }]);
  assert.equal(Number(results[3]!.numAffectedRows), 2);
  assert.ok(heldMs >= 0 && heldMs < 10_000);
  const stored = await db().selectFrom('message').select('content').where('topic', '=', 'scripted').execute();
  assert.deepEqual(stored.map((r) => r.content), ['changed', 'changed']);
});

test('a failing statement rolls the whole script back and rejects with the engine\'s error', async () => {
  const stream = await aStream();
  await assert.rejects(t.app.ctx.store.script([
    db().insertInto('message').values(message(stream, 'half done', 'kept?')).compile(),
    sql`INSERT INTO message (id) VALUES (NULL, NULL)`.compile(db()),
  ]));
  assert.equal(await topicCount('half done'), 0);
  // The writer goes on: a send after it is stored.
  const sent = await storeMessage(t.app.ctx.store, { message: message(stream, 'after', 'fine'), firstOf: null, recipients: [{ user_id: t.owner.id, flags: 0 }] });
  assert.ok(sent.id > 0);
});

test('scripts and sends submitted together all complete, none lost', async () => {
  const stream = await aStream();
  const work: Array<Promise<unknown>> = [];
  for (let i = 0; i < 20; i++) {
    work.push(storeMessage(t.app.ctx.store, { message: message(stream, 'mixed', `send ${i}`), firstOf: null, recipients: [{ user_id: t.owner.id, flags: 0 }] }));
    work.push(t.app.ctx.store.script([db().insertInto('message').values(message(stream, 'mixed', `script ${i}`)).compile()]));
  }
  await Promise.all(work);
  assert.equal(await topicCount('mixed'), 40);
});
