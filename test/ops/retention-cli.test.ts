import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { ENGINE, testApp } from '../helpers/app.js';
import { sendMessage } from '../helpers/messages.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { buildApp } from '../../src/app.js';

// `parley retention run [--org ID]` and `parley retention restore --org ID --since T`. Run
// on SQLite, as the other CLI commands' tests: the actions under them are tested on both
// engines (retention.test.ts, retention-restore.test.ts).
const skip = ENGINE !== 'sqlite';

function parley(dataDir: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--data-dir', dataDir], { env: { ...process.env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('retention run archives and reports; restore brings the batch back; bad input is one line and status 1', { skip, timeout: 180_000 }, async (tc) => {
  const t = await testApp();
  const dir = t.app.ctx.config.dataDir;
  tc.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const alice = await t.createUser({ name: 'Alice Smith' });
  await createStreams(t, { lobby: [alice] });
  await setRealmSettings(t, { message_retention_days: 10 });
  const old = await sendMessage(t, alice, { type: 'stream', to: 'lobby', topic: 'then', content: 'long ago' });
  const recent = await sendMessage(t, alice, { type: 'stream', to: 'lobby', topic: 'now', content: 'just now' });
  await t.app.ctx.store.db.updateTable('message').set({ date_sent: Math.floor(Date.now() / 1000) - 11 * 86_400 }).where('id', '=', old).execute();
  const realmId = t.realm.id;
  await t.app.close();
  const since = Math.floor(Date.now() / 1000) - 1;

  const ran = parley(dir, 'retention', 'run', '--org', String(realmId));
  assert.equal(ran.code, 0, ran.err);
  assert.equal(ran.out, 'Archived 1 messages in 1 batches; purged 0 messages of 0 batches archived over 30 days ago\n');
  assert.match(ran.err, /archiving/);

  const left = async () => {
    const app = await buildApp({ dataDir: dir, logLevel: 'silent' });
    try {
      return (await app.ctx.store.db.selectFrom('message').select('id').where('id', 'in', [old, recent]).orderBy('id').execute()).map((r) => r.id);
    } finally {
      await app.close();
    }
  };
  assert.deepEqual(await left(), [recent]);

  const restored = parley(dir, 'retention', 'restore', '--org', '', '--since', new Date(since * 1000).toISOString());
  assert.equal(restored.code, 0, restored.err);
  assert.match(restored.out, /^Restored 1 messages from 1 archived batches since /);
  assert.deepEqual(await left(), [old, recent]);

  const noOrg = parley(dir, 'retention', 'restore', '--org', 'nosuch', '--since', '0');
  assert.equal(noOrg.code, 1);
  assert.equal(noOrg.err.trim(), "parley: No organization 'nosuch' (give its string id or its number)");
  const badTime = parley(dir, 'retention', 'restore', '--org', '', '--since', 'yesterday');
  assert.equal(badTime.code, 1);
  assert.match(badTime.err, /--since: 'yesterday' is neither an ISO date-time/);
});
