import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINE, testApp } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { createStreams } from '../helpers/streams.js';
import { digestsTo } from '../helpers/digest-mail.js';
import { weekdayOf } from '../../src/notifications/digest.js';
import { nowSeconds } from '../../src/lib/time.js';

// `parley digest send [--org ID] [--user EMAIL]`: the digest now, on any weekday. Run on
// SQLite, as the other CLI commands' tests: the store code under it is tested on both engines.
const skip = ENGINE !== 'sqlite';

function parley(dataDir: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--data-dir', dataDir], { env: { ...process.env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('digest send: to those due on any weekday, one user on demand, progress for many, one clear line on failure', { skip, timeout: 180_000 }, async (tc) => {
  const t = await testApp();
  const dir = t.app.ctx.config.dataDir;
  tc.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const reader = await t.createUser({ name: 'Rita Reader', email: 'rita@parley.test' });
  const talker = await t.createUser({ name: 'Tess Talker' });
  const crowd = [];
  for (let i = 0; i < 55; i++) crowd.push(await t.createUser({ name: `Crowd ${i}`, email: `crowd${i}@parley.test` }));
  await createStreams(t, { lobby: [reader, talker, ...crowd] });
  await sendMessage(t, talker, { type: 'stream', to: 'lobby', topic: 'hello', content: 'Welcome, everyone.' });
  // Digests off, and on they would be due tomorrow, not today.
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { digest_emails_enabled: false, digest_weekday: (weekdayOf(nowSeconds()) + 1) % 7 } }));
  await t.app.close();
  const outbox = path.join(dir, 'outbox');

  const off = parley(dir, 'digest', 'send', '--user', 'rita@parley.test');
  assert.equal(off.code, 1);
  assert.equal(off.err, "parley: Digest emails are off in organization '(default)' (digest_emails_enabled)\n");
  const none = parley(dir, 'digest', 'send');
  assert.equal(none.code, 0, none.err);
  assert.deepEqual(JSON.parse(none.out), { considered: 0, sent: 0 });

  const missingOrg = parley(dir, 'digest', 'send', '--org', 'nosuch');
  assert.equal(missingOrg.code, 1);
  assert.equal(missingOrg.err, "parley: No organization with string id 'nosuch'\n");

  const app = await (await import('../../src/app.js')).buildApp({ dataDir: dir, logLevel: 'silent' });
  const realm = (await app.ctx.store.db.selectFrom('realm').selectAll().where('string_id', '=', '').executeTakeFirstOrThrow());
  await app.ctx.store.db.updateTable('realm').set({ settings: JSON.stringify({ ...JSON.parse(realm.settings), digest_emails_enabled: true }) }).where('id', '=', realm.id).execute();
  await app.close();

  const all = parley(dir, 'digest', 'send');
  assert.equal(all.code, 0, all.err);
  const result = JSON.parse(all.out);
  assert.ok(result.sent >= 57, `the reader, the crowd and the owner: ${all.out}`);
  assert.match(all.err, /^digest: 25\/\d+ users$/m, 'progress for many users');
  assert.match(all.err, /^digest: (\d+)\/\1 users$/m);
  assert.equal((await digestsTo(outbox, 'rita@parley.test')).length, 1);

  const again = parley(dir, 'digest', 'send');
  assert.equal(again.code, 0, again.err);
  assert.equal(JSON.parse(again.out).sent, 0, 'none twice in a period');

  const forced = parley(dir, 'digest', 'send', '--user', 'rita@parley.test');
  assert.equal(forced.code, 0, forced.err);
  assert.deepEqual(JSON.parse(forced.out), { considered: 1, sent: 1 });
  assert.equal((await digestsTo(outbox, 'rita@parley.test')).length, 2, 'asked for by name: sent now');

  const nobody = parley(dir, 'digest', 'send', '--user', 'nobody@parley.test');
  assert.equal(nobody.code, 1);
  assert.equal(nobody.err, "parley: No user 'nobody@parley.test' in organization '(default)'\n");
});
