import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams, insertStreamMessage } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { batchBudget } from '../../src/lib/batch-budget.js';

// Feature levels 147/153/154/211: delete_topic and mark_all_as_read work in batches, each
// committed, newest messages first for a topic, and stop once the time budget is spent;
// from 211 the answer says whether they finished (`complete`). Level 274: the deleting
// administrator hears of the deletion even without rows of their own.
let t: TestApp;
let old: TestApp;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let log: EventLog;
let lounge: number;
const saved = { ...batchBudget };

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  ({ admin } = await t.createUsers({ admin: { name: 'Ada Admin', role: 200 } }));
  lounge = (await createStreams(t, { lounge: [alice, bob] })).lounge.id;
  log = new EventLog(t);
  old = await testApp({ featureLevel: 122 });
});
after(async () => {
  await t.close();
  await old.close();
});
afterEach(() => Object.assign(batchBudget, saved));

/** A clock that lets exactly `n` batches start: the start reads 0, the check before batch k reads k * step. */
function allowBatches(n: number): void {
  let reading = 0;
  batchBudget.seconds = 50;
  const step = 50_000 / (n + 0.5);
  batchBudget.clock = () => (reading++) * step;
}

const topicIds = async (topic: string) => (await t.app.ctx.store.db.selectFrom('message').select('id')
  .where('stream_id', '=', lounge).where('topic_lower', '=', topic).orderBy('id').execute()).map((r) => r.id);
const deleteTopic = (app: TestApp, as: TestUser | null, stream: number, topic: string) =>
  app.api('POST', `/api/v1/streams/${stream}/delete_topic`, { as, params: { topic_name: topic } });

test('delete_topic: batches newest first; out of time it answers complete: false, and repeating finishes', async () => {
  const ids = [];
  for (let i = 0; i < 5; i += 1) ids.push(await insertStreamMessage(t, lounge, alice.id, 'Big', [alice.id, bob.id]));
  const other = await insertStreamMessage(t, lounge, alice.id, 'other', [alice.id]);
  batchBudget.topicDeleteBatch = 2;
  allowBatches(1);
  log.clear();
  assert.deepEqual(assertOk(await deleteTopic(t, admin, lounge, 'big')), { result: 'success', msg: '', complete: false });
  // The newest two went; the oldest three are left for the next request.
  assert.deepEqual(await topicIds('big'), ids.slice(0, 3));
  const evs = log.find('delete_message');
  assert.equal(evs.length, 1);
  assert.deepEqual(evs[0]!.event, { type: 'delete_message', message_type: 'stream', message_ids: ids.slice(3), stream_id: lounge, topic: 'Big' });
  // The administrator is subscribed to nothing here and received none of them: told all the same (274).
  assert.deepEqual(sorted(evs[0]!.userIds), sorted([alice.id, bob.id, admin.id]));

  allowBatches(1);
  log.clear();
  assert.deepEqual(assertOk(await deleteTopic(t, admin, lounge, 'big')), { result: 'success', msg: '', complete: false });
  assert.deepEqual(await topicIds('big'), ids.slice(0, 1));
  assert.deepEqual(log.one('delete_message').event.message_ids, ids.slice(1, 3));

  Object.assign(batchBudget, saved);
  batchBudget.topicDeleteBatch = 2;
  assert.deepEqual(assertOk(await deleteTopic(t, admin, lounge, 'big')), { result: 'success', msg: '', complete: true });
  assert.deepEqual(await topicIds('big'), []);
  assert.deepEqual(await topicIds('other'), [other]);
  // An exact multiple of the batch size, then an empty topic: both complete.
  await insertStreamMessage(t, lounge, alice.id, 'pair', [alice.id]);
  await insertStreamMessage(t, lounge, alice.id, 'pair', [alice.id]);
  assert.deepEqual(assertOk(await deleteTopic(t, admin, lounge, 'pair')), { result: 'success', msg: '', complete: true });
  assert.deepEqual(await topicIds('pair'), []);
  log.clear();
  assert.deepEqual(assertOk(await deleteTopic(t, admin, lounge, 'nothing here')), { result: 'success', msg: '', complete: true });
  assert.deepEqual(log.find('delete_message'), []);
});

test('delete_topic: errors and authentication are unchanged', async () => {
  assertError(await deleteTopic(t, alice, lounge, 'x'), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await deleteTopic(t, admin, 999_999, 'x'), 'Invalid stream id');
  assertUnauthenticated(await deleteTopic(t, null, lounge, 'x'));
});

const unreadIds = async (app: TestApp, as: TestUser): Promise<number[]> => (await app.app.ctx.store.db.selectFrom('user_message').select('message_id')
  .where('user_id', '=', as.id).where((eb) => eb(eb.parens(eb('flags', '&', 1)), '=', 0)).orderBy('message_id').execute()).map((r) => r.message_id);

test('mark_all_as_read: batches; out of time it answers complete: false and sends no event; repeating finishes', async () => {
  const ids = [];
  for (let i = 0; i < 5; i += 1) ids.push(await insertStreamMessage(t, lounge, alice.id, 'unread', [alice.id, bob.id]));
  const aliceUnread = await unreadIds(t, alice);
  assert.equal((await unreadIds(t, bob)).length, 5);
  batchBudget.markAllReadBatch = batchBudget.markAllReadBatchPostgres = 2;
  allowBatches(2);
  log.clear();
  assert.deepEqual(assertOk(await t.api('POST', '/api/v1/mark_all_as_read', { as: bob })), { result: 'success', msg: '', complete: false });
  // Two batches of two were committed; no event yet (the client repeats the request).
  assert.equal((await unreadIds(t, bob)).length, 1);
  assert.deepEqual(await unreadIds(t, alice), aliceUnread, "another user's rows are untouched");
  assert.deepEqual(log.find('update_message_flags'), []);

  Object.assign(batchBudget, saved);
  batchBudget.markAllReadBatch = batchBudget.markAllReadBatchPostgres = 2;
  assert.deepEqual(assertOk(await t.api('POST', '/api/v1/mark_all_as_read', { as: bob })), { result: 'success', msg: '', complete: true });
  assert.deepEqual(await unreadIds(t, bob), []);
  assert.deepEqual(log.events, [{ realmId: t.realm.id, userIds: [bob.id], event: { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [], all: true } }]);
  // Nothing unread: complete at once, and still the event.
  assert.deepEqual(assertOk(await t.api('POST', '/api/v1/mark_all_as_read', { as: bob })), { result: 'success', msg: '', complete: true });
  assert.equal(log.find('update_message_flags').length, 2);
  assertUnauthenticated(await t.api('POST', '/api/v1/mark_all_as_read', { as: null }));
});

test('at feature level 122 the answers carry no `complete` (the spec), though the work is batched the same', async () => {
  const { carol, dave } = await old.createUsers(people('carol', 'dave'));
  const { boss } = await old.createUsers({ boss: { name: 'Boss', role: 200 } });
  const s = (await createStreams(old, { yard: [carol, dave] })).yard.id;
  for (let i = 0; i < 3; i += 1) await insertStreamMessage(old, s, carol.id, 'T', [carol.id, dave.id]);
  batchBudget.topicDeleteBatch = 2;
  batchBudget.markAllReadBatch = batchBudget.markAllReadBatchPostgres = 2;
  assert.deepEqual(assertOk(await old.api('POST', '/api/v1/mark_all_as_read', { as: dave })), { result: 'success', msg: '' });
  assert.deepEqual(await unreadIds(old, dave), []);
  assert.deepEqual(assertOk(await deleteTopic(old, boss, s, 't')), { result: 'success', msg: '' });
  allowBatches(0);
  await insertStreamMessage(old, s, carol.id, 'T', [carol.id, dave.id]);
  assert.deepEqual(assertOk(await deleteTopic(old, boss, s, 't')), { result: 'success', msg: '' });
});

test('274: deleting one message tells the deleter too, though unsubscribed and without a row', async () => {
  const id = await insertStreamMessage(t, lounge, alice.id, 'single', [alice.id, bob.id]);
  log.clear();
  assertOk(await t.api('DELETE', `/api/v1/messages/${id}`, { as: admin }));
  const ev = log.one('delete_message');
  assert.deepEqual(ev.event, { type: 'delete_message', message_type: 'stream', message_ids: [id], stream_id: lounge, topic: 'single' });
  assert.ok(ev.userIds.includes(admin.id));
  assert.ok(ev.userIds.includes(bob.id));
});
