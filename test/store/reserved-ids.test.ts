/**
 * The importer takes a chunk's message ids in one transaction and stores the chunk later, in a
 * script of its own (src/import/load/messages.ts), while the server may be sending: ids it took
 * must stay reserved in between, on SQLite (sqlite_sequence) as on PostgreSQL (nextval).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { sendMessage } from '../helpers/messages.js';
import { transact } from '../../src/actions/transaction.js';
import { realmImport } from '../../src/store/repos/realm-import.js';

let t: TestApp;
before(async () => {
  t = await testApp();
  const created = await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: [{ name: 'reserved' }] } });
  assert.equal(created.status, 200);
});
after(() => t.close());

test('message ids taken for an import stay reserved: a send made before they are stored takes a later id, and their rows then store', async () => {
  const before = await sendMessage(t, t.owner, { type: 'stream', to: 'reserved', topic: 'ids', content: 'before' });
  const reserved = await transact(t.app.ctx, (tx) => realmImport.nextMessageIds(tx.db, 3));
  assert.equal(reserved.length, 3);
  assert.ok(reserved[0]! > before, `${reserved[0]} after ${before}`);
  assert.deepEqual(reserved, [reserved[0]!, reserved[0]! + 1, reserved[0]! + 2]);

  const during = await sendMessage(t, t.owner, { type: 'stream', to: 'reserved', topic: 'ids', content: 'during' });
  assert.ok(during > reserved[2]!, `the send took ${during}, within the reserved ${reserved.join(', ')}`);

  const stream = await t.app.ctx.store.db.selectFrom('stream').select(['id', 'recipient_id']).where('realm_id', '=', t.realm.id).where('name', '=', 'reserved').executeTakeFirstOrThrow();
  const columns = ['id', 'realm_id', 'sender_id', 'recipient_id', 'stream_id', 'topic', 'topic_lower', 'content', 'rendered_content', 'rendered_content_version',
    'date_sent', 'client', 'is_me_message', 'has_link', 'has_image', 'has_attachment'];
  const values = reserved.flatMap((id) => [id, t.realm.id, t.owner.id, stream.recipient_id, stream.id, 'imported', 'imported', `m${id}`, `<p>m${id}</p>`, 1,
    1_600_000_000, 'test', 0, 0, 0, 0]);
  await realmImport.insertScript(t.app.ctx.store, [
    { table: 'message', columns, values },
    { table: 'user_message', columns: ['user_id', 'message_id', 'flags'], values: reserved.flatMap((id) => [t.owner.id, id, 1]) },
  ]);
  const stored = await t.app.ctx.store.db.selectFrom('message').select(['id', 'content']).where('id', 'in', reserved).orderBy('id').execute();
  assert.deepEqual(stored.map((m) => m.content), reserved.map((id) => `m${id}`));

  const after = await sendMessage(t, t.owner, { type: 'stream', to: 'reserved', topic: 'ids', content: 'after' });
  assert.ok(after > during);
  // The imported rows are readable through the API as any message is.
  const got = await t.api('GET', `/api/v1/messages/${reserved[1]}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.message.content, `<p>m${reserved[1]}</p>`);
});
