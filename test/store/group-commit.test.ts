import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { storeMessage, type MessageWrite, type MessageWritten } from '../../src/store/group-commit.js';
import { transact } from '../../src/actions/transaction.js';

let t: TestApp;
let streamId: number;
let recipientId: number;
before(async () => {
  t = await testApp();
  const created = await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: [{ name: 'batching' }] } });
  assert.equal(created.status, 200);
  const stream = await t.app.ctx.store.db.selectFrom('stream').select(['id', 'recipient_id']).where('realm_id', '=', t.realm.id).where('name', '=', 'batching').executeTakeFirstOrThrow();
  streamId = stream.id;
  recipientId = stream.recipient_id!;
});
after(() => t.close());

const write = (content: string, recipients: MessageWrite['recipients'], extra: Partial<MessageWrite['message']> = {}): MessageWrite => ({
  message: {
    realm_id: t.realm.id, sender_id: t.owner.id, recipient_id: recipientId, stream_id: streamId,
    topic: 'batch', topic_lower: 'batch', content, rendered_content: `<p>${content}</p>`, rendered_content_version: 1,
    date_sent: 1_700_000_000, client: 'test', last_edit_time: null, edit_history: null,
    is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0, ...extra,
  },
  firstOf: null,
  recipients,
});

test('sends submitted together share one transaction, yet a failing one rolls back alone with its recipient rows', async () => {
  const db = t.app.ctx.store.db;
  const me = t.owner.id;
  const results = await Promise.allSettled([
    storeMessage(t.app.ctx.store, write('one', [{ user_id: me, flags: 1 }])),
    // A message without content breaks a NOT NULL constraint: this send alone fails.
    storeMessage(t.app.ctx.store, write('two', [{ user_id: me, flags: 0 }], { content: null as unknown as string })),
    storeMessage(t.app.ctx.store, write('three', [{ user_id: me, flags: 0 }])),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : []));
  assert.ok(ids[1]! > ids[0]!);
  const stored = await db.selectFrom('message').innerJoin('user_message', 'user_message.message_id', 'message.id')
    .select(['message.content', 'user_message.flags']).where('message.topic', '=', 'batch').orderBy('message.id').execute();
  assert.deepEqual(stored, [{ content: 'one', flags: 1 }, { content: 'three', flags: 0 }]);
});

/**
 * Stores the writes in one batch, whatever the machine's load: they are submitted while a
 * transaction holds the store, and no batch starts before it ends. (Submitted in one tick
 * with the store idle, SQLite's writer thread may take the first before the second
 * arrives.) The transaction holds the writer only once its first statement has run (its
 * BEGIN travels with that statement), so one runs before the writes are submitted; another
 * goes to the writer after them, and once it is answered the writer has them queued.
 */
async function inOneBatch(writes: MessageWrite[]): Promise<Array<PromiseSettledResult<MessageWritten>>> {
  let settled!: Promise<Array<PromiseSettledResult<MessageWritten>>>;
  await transact(t.app.ctx, async (tx) => {
    const held = () => tx.db.selectFrom('stream').select('id').where('id', '=', streamId).execute();
    await held();
    settled = Promise.allSettled(writes.map((w) => storeMessage(t.app.ctx.store, w)));
    await held();
  });
  return settled;
}

test('a duplicate recipient row fails the whole batch and keeps nothing of it', async () => {
  const db = t.app.ctx.store.db;
  const me = t.owner.id;
  const results = await inOneBatch([
    write('dup', [{ user_id: me, flags: 0 }, { user_id: me, flags: 1 }]),
    write('bystander', [{ user_id: me, flags: 0 }]),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  const kept = await db.selectFrom('message').select('content').where('content', 'in', ['dup', 'bystander']).execute();
  assert.deepEqual(kept, []);
});

test('a send becomes its stream first_message_id only while that is unset', async () => {
  const db = t.app.ctx.store.db;
  await db.updateTable('stream').set({ first_message_id: null }).where('id', '=', streamId).execute();
  const [a, b] = await Promise.all([
    storeMessage(t.app.ctx.store, { ...write('first', [{ user_id: t.owner.id, flags: 0 }]), firstOf: streamId }),
    storeMessage(t.app.ctx.store, { ...write('second', [{ user_id: t.owner.id, flags: 0 }]), firstOf: streamId }),
  ]);
  assert.equal(a.first, true);
  assert.equal(b.first, false);
  const stream = await db.selectFrom('stream').select('first_message_id').where('id', '=', streamId).executeTakeFirstOrThrow();
  assert.equal(stream.first_message_id, a.id);
});
