import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { groupCommit } from '../../src/store/group-commit.js';
import type { EventEnvelope } from '../../src/events/bus.js';

let t: TestApp;
before(async () => { t = await testApp(); });
after(() => t.close());

test('units submitted together share one transaction, yet a failing unit rolls back alone and publishes nothing', async () => {
  const published: EventEnvelope[] = [];
  t.app.ctx.bus.subscribe((e) => published.push(e));
  const unit = (word: string, fail: boolean) => groupCommit(t.app.ctx, async (tx) => {
    await tx.db.insertInto('alert_word').values({ user_id: t.owner.id, realm_id: t.realm.id, word }).execute();
    tx.notify({ type: 'alert_words', alert_words: [word] }, [t.owner.id], t.realm.id);
    if (fail) throw new Error(`unit ${word} failed`);
    return word;
  });
  const results = await Promise.allSettled([unit('one', false), unit('two', true), unit('three', false)]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal((results[1] as PromiseRejectedResult).reason.message, 'unit two failed');
  const words = (await t.app.ctx.store.db.selectFrom('alert_word').select('word').where('user_id', '=', t.owner.id).orderBy('id').execute()).map((r) => r.word);
  assert.deepEqual(words, ['one', 'three']);
  assert.deepEqual(published.map((e) => (e.event.alert_words as string[])[0]), ['one', 'three']);
});

test('recipient rows staged by sends are stored at COMMIT, those of a unit that failed are not, and a failed insert fails the batch', async () => {
  const db = t.app.ctx.store.db;
  const stage = (messageId: number, fail: boolean) => groupCommit(t.app.ctx, async (tx) => {
    assert.ok(tx.stageUserMessages, 'group commit offers staging');
    tx.stageUserMessages([{ user_id: t.owner.id, message_id: messageId, flags: 0 }, { user_id: t.owner.id + 1000, message_id: messageId, flags: 1 }]);
    if (fail) throw new Error('send failed after staging');
    return messageId;
  });
  const results = await Promise.allSettled([stage(900_003, false), stage(900_002, true), stage(900_001, false)]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const stored = await db.selectFrom('user_message').select(['user_id', 'message_id', 'flags']).where('message_id', '>=', 900_000).orderBy('message_id').orderBy('user_id').execute();
  assert.deepEqual(stored, [
    { user_id: t.owner.id, message_id: 900_001, flags: 0 }, { user_id: t.owner.id + 1000, message_id: 900_001, flags: 1 },
    { user_id: t.owner.id, message_id: 900_003, flags: 0 }, { user_id: t.owner.id + 1000, message_id: 900_003, flags: 1 },
  ]);
  // A duplicate key only shows when the staged rows go in: every unit of that batch is refused and nothing is kept.
  const dup = await Promise.allSettled([stage(900_001, false), stage(900_004, false)]);
  assert.deepEqual(dup.map((r) => r.status), ['rejected', 'rejected']);
  const after = await db.selectFrom('user_message').select('message_id').where('message_id', '>=', 900_004).execute();
  assert.deepEqual(after, []);
});
