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
