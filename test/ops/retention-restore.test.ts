import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk, sorted } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { uploadOne } from '../helpers/multipart.js';
import { EventLog } from '../helpers/events.js';
import { archiveExpiredMessages, purgeArchive, runRetention } from '../../src/actions/retention.js';
import { restoreArchive } from '../../src/actions/retention-restore.js';
import { attachments } from '../../src/store/repos/attachments.js';
import { parseSince } from '../../src/cli/retention.js';

// Retention's archive: restoring a batch within the keep-days (flags, reactions, edit
// history, file links), the purge after them, and batching (Zulip's retention tests).
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser;
const DAY = 86_400;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  await createStreams(t, { weekly: { messageRetentionDays: 7, subscribers: [alice, bob] } });
});
after(() => t.close());

const db = () => t.app.ctx.store.db;
const now = () => Math.floor(Date.now() / 1000);
const age = async (ids: number[], days: number) => {
  await db().updateTable('message').set({ date_sent: now() - days * DAY }).where('id', 'in', ids).execute();
};
const say = (content: string, topic = 'week') => sendMessage(t, alice, { type: 'stream', to: 'weekly', topic, content });
const live = async (ids: number[]) => (await db().selectFrom('message').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort((a, b) => a - b);
const archive = (opts: { batchSize?: number } = {}) => archiveExpiredMessages(t.app.ctx, { realmId: t.realm.id, pauseFactor: 0, ...opts });
const batchOf = async (id: number) => (await db().selectFrom('archived_message').select('archive_transaction_id').where('id', '=', id).executeTakeFirst())?.archive_transaction_id;

test('restore brings a batch back: the message, its flags (starred stays starred), reactions and edit history', async () => {
  const id = await say('first draft');
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { as: alice, params: { content: 'second draft' } }));
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([id]), op: 'add', flag: 'starred' } }));
  assertOk(await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
  await age([id], 8);
  const before = assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as: bob })).message;
  const since = now() - 1;
  await archive();
  assert.deepEqual(await live([id]), []);
  assert.ok((await t.api('GET', `/api/v1/messages/${id}`, { as: bob })).status >= 400);
  const batch = await batchOf(id);
  assert.ok(batch !== undefined);

  log.clear();
  const restored = await restoreArchive(t.app.ctx, { realmId: t.realm.id, since });
  assert.ok(restored.messages >= 1);
  assert.equal(log.find('message').length, 0, 'no message events, as in Zulip');
  const back = assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as: bob })).message;
  assert.deepEqual(back, before, 'the same message, flags, reactions and edit history');
  assert.ok(back.flags.includes('starred'));
  assert.equal(back.reactions.length, 1);
  assert.equal(back.edit_history.length, 1);
  const starred = messageIds(assertOk(await getMessages(t, bob, { narrow: JSON.stringify([{ operator: 'is', operand: 'starred' }]) })));
  assert.deepEqual(starred, [id]);
  const found = messageIds(assertOk(await getMessages(t, bob, { narrow: JSON.stringify([{ operator: 'search', operand: 'second' }]) })));
  assert.deepEqual(found, [id], 'in the search index again');
  const row = await db().selectFrom('archive_transaction').selectAll().where('id', '=', batch!).executeTakeFirstOrThrow();
  assert.equal(row.restored, 1);
  assert.equal(await batchOf(id), undefined, 'the archive no longer holds it');
  // Restoring again finds nothing new; the message is left as it is.
  assert.equal((await restoreArchive(t.app.ctx, { realmId: t.realm.id, since })).messages, 0);
  // Still expired: the next run archives it again.
  await archive();
  assert.deepEqual(await live([id]), []);
});

test('restore takes only batches made at or after --since', async () => {
  const early = await say('early');
  await age([early], 8);
  await archive();
  // That batch is dated a day back; a later one is dated now.
  await db().updateTable('archive_transaction').set({ timestamp: now() - DAY }).where('id', '=', (await batchOf(early))!).execute();
  const late = await say('late');
  await age([late], 8);
  await archive();
  await restoreArchive(t.app.ctx, { realmId: t.realm.id, since: now() - 3600 });
  assert.deepEqual(await live([early, late]), [late]);
  await restoreArchive(t.app.ctx, { realmId: t.realm.id, since: now() - 2 * DAY });
  assert.deepEqual(await live([early, late]), sorted([early, late]));
  // Another organization's number restores nothing of this one.
  await age([early, late], 8);
  await archive();
  assert.equal((await restoreArchive(t.app.ctx, { realmId: t.realm.id + 1000, since: 0 })).messages, 0);
  assert.deepEqual(await live([early, late]), []);
});

test('the purge deletes batches older than the keep-days for good, and only those', async () => {
  const id = await say('to be purged');
  await age([id], 8);
  await archive();
  const batch = (await batchOf(id))!;
  const exists = async () => (await db().selectFrom('archive_transaction').select('id').where('id', '=', batch).executeTakeFirst()) !== undefined;
  assert.equal(t.app.ctx.config.archiveKeepDays, 30, 'PARLEY_ARCHIVE_KEEP_DAYS defaults to 30');
  await purgeArchive(t.app.ctx, { now: now() + 29 * DAY, pauseFactor: 0 });
  assert.ok(await exists(), 'kept within 30 days');
  const purged = await purgeArchive(t.app.ctx, { now: now() + 31 * DAY, pauseFactor: 0 });
  assert.ok(purged.messages >= 1 && purged.batches >= 1);
  assert.ok(!(await exists()));
  assert.equal(await batchOf(id), undefined);
  for (const table of ['archived_user_message', 'archived_reaction', 'archived_attachment_message'] as const) {
    assert.deepEqual(await db().selectFrom(table).select('message_id').where('archive_transaction_id', '=', batch).execute(), []);
  }
  await restoreArchive(t.app.ctx, { realmId: t.realm.id, since: 0 });
  assert.deepEqual(await live([id]), [], 'nothing left to restore');
  // keepDays from the call (the CLI's --archive-keep-days): a batch two days old goes at 1.
  const other = await say('short keep');
  await age([other], 8);
  await archive();
  await db().updateTable('archive_transaction').set({ timestamp: now() - 2 * DAY }).where('id', '=', (await batchOf(other))!).execute();
  const r = await runRetention(t.app.ctx, { realmId: t.realm.id, pauseFactor: 0, keepDays: 1 });
  assert.ok(r.purged.messages >= 1);
  assert.equal(await batchOf(other), undefined);
});

test('files linked only by archived messages stay claimed until the purge (the sweep leaves them for a restore); a restore links them again', async () => {
  const uri = await uploadOne(t, alice, 'old-notes.txt', 'notes');
  const id = await say(`[notes](${uri})`);
  const a = (await attachments.findByPathId(db(), uri.slice('/user_uploads/'.length)))!;
  assert.deepEqual(await attachments.listMessageIds(db(), a.id), [id]);
  await age([id], 8);
  const since = now() - 1;
  await archive();
  assert.deepEqual(await attachments.listMessageIds(db(), a.id), []);
  assert.ok(!(await attachments.listUnclaimed(db(), now() + 1)).some((x) => x.id === a.id), 'an archived message still claims its file');
  assert.equal(await attachments.isClaimed(db(), a.id), true);
  const list = assertOk(await t.api('GET', '/api/v1/attachments', { as: alice })).attachments.find((x: { id: number }) => x.id === a.id);
  assert.deepEqual(list.messages, []);
  await restoreArchive(t.app.ctx, { realmId: t.realm.id, since });
  assert.deepEqual(await attachments.listMessageIds(db(), a.id), [id]);
  // A file the sweep deleted meanwhile is simply not linked again.
  await age([id], 8);
  const since2 = now() - 1;
  await archive();
  await attachments.delete(db(), a.id);
  await restoreArchive(t.app.ctx, { realmId: t.realm.id, since: since2 });
  assert.deepEqual(await live([id]), [id]);
});

test('more than a batch: each batch is its own archive transaction, with its own events', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 7; i++) ids.push(await say(`bulk ${i}`, 'bulk'));
  await archive();
  assert.deepEqual(await live(ids), ids, 'earlier tests\' leftovers archived; these are still young');
  await age(ids, 8);
  log.clear();
  const summary = await archive({ batchSize: 3 });
  assert.deepEqual(await live(ids), []);
  assert.equal(summary.messages, 7);
  assert.equal(summary.batches, 3);
  const batches = new Set(await Promise.all(ids.map(batchOf)));
  assert.equal(batches.size, 3);
  const events = log.find('delete_message', undefined, (e) => e.userIds.includes(bob.id));
  assert.deepEqual(events.map((e) => (e.event.message_ids as number[])), [ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
  // Restoring them brings back all three batches in order.
  const restored = await restoreArchive(t.app.ctx, { realmId: t.realm.id, since: now() - 60 });
  assert.equal(restored.batches >= 3, true);
  assert.deepEqual(await live(ids), ids);
});

test('--since takes an ISO date-time or UNIX seconds', () => {
  assert.equal(parseSince('1700000000'), 1_700_000_000);
  assert.equal(parseSince('2023-11-14T22:13:20Z'), 1_700_000_000);
  assert.throws(() => parseSince('last tuesday'), /neither an ISO date-time/);
});
