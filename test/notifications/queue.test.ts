import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { startNotifications } from '../../src/notifications/start.js';
import { recorder } from './recorder.js';

const now = () => Math.floor(Date.now() / 1000);

test('email batches: one per user once the earliest is due; a failing sender is retried with backoff; two workers take each batch once', async () => {
  const t = await testApp({ featureLevel: 372 });
  try {
    const rec = recorder();
    const n = startNotifications(t.app.ctx, rec);
    const alice = await t.createUser({ name: 'Alice Smith' });
    const bob = await t.createUser({ name: 'Bob Jones' });
    const ids: number[] = [];
    for (const c of ['one', 'two', 'three']) {
      ids.push((await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: c } })).body.id);
    }
    await n.decideNow();
    assert.equal(await n.runDue(now() + 10), 0, 'not due before the batching period');
    rec.fail = 1;
    const second = startNotifications(t.app.ctx, rec);
    const tried = (await Promise.all([n.runDue(now() + 200), second.runDue(now() + 200)])).reduce((a, b) => a + b, 0);
    assert.equal(tried, 1);
    assert.equal(rec.calls.length, 0, 'the sender threw');
    assert.equal(await n.runDue(now() + 201), 0, 'backing off');
    assert.equal(await n.runDue(now() + 200 + 11), 1);
    assert.equal(rec.calls.length, 1);
    assert.deepEqual(rec.calls[0]!.items.map((i) => i.messageId), ids);
    assert.equal(await n.runDue(now() + 10_000), 0, 'sent once');
  } finally {
    await t.close();
  }
});

test('restart: undecided messages and pending notifications survive and are sent by the next process', async () => {
  const first = await testApp({ featureLevel: 372 });
  const alice = await first.createUser({ name: 'Alice Smith' });
  const bob = await first.createUser({ name: 'Bob Jones' });
  const n = startNotifications(first.app.ctx, recorder());
  const pending = (await first.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'decided' } })).body.id;
  await n.decideNow();
  await first.app.close();
  const config = first.app.ctx.config;
  // The second message is stored by a process that never decides (no notifications started).
  const middle = await testApp({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, featureLevel: 372 });
  const undecided = (await middle.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'undecided' } })).body.id;
  await middle.app.close();
  const again = await testApp({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, featureLevel: 372 });
  try {
    const rec = recorder();
    const n2 = startNotifications(again.app.ctx, rec);
    await n2.decideNow();
    await n2.runDue(now() + 1000);
    await until(() => rec.calls.length > 0);
    assert.deepEqual(rec.calls.flatMap((c) => c.items.map((i) => i.messageId)), [pending, undecided]);
  } finally {
    await again.close();
  }
});
