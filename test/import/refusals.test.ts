/**
 * An import is all or nothing: whatever refuses it (a name taken, a broken archive, a row that
 * contradicts the export, a file missing half way) leaves no organization, no rows and no
 * files behind, and says so in one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { testApp, type TestApp } from '../helpers/app.js';
import { runImport } from '../../src/import/run.js';
import { ImportError } from '../../src/import/source.js';
import { realms } from '../../src/store/repos/realms.js';
import { transact } from '../../src/actions/transaction.js';
import { nowSeconds } from '../../src/lib/time.js';
import { zulipExport, UPLOAD_PATH, IMAGE_PATH } from './zulip-export-fixture.js';

/** Rows per table: what the database holds, to compare before and after. */
async function census(t: TestApp): Promise<Record<string, number>> {
  const db = t.app.ctx.store.db;
  const names = t.app.ctx.store.dialect.name === 'sqlite'
    ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'message_fts_%' AND name <> 'kysely_migration' AND name <> 'kysely_migration_lock'`.execute(db)).rows.map((r) => r.name)
    : (await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely_%'`.execute(db)).rows.map((r) => r.name);
  const out: Record<string, number> = {};
  // The cache epoch counts writes, not data.
  for (const name of names.filter((n) => n !== 'cache_epoch').sort()) {
    out[name] = Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(name)}`.execute(db)).rows[0]!.n);
  }
  return out;
}

function storedFiles(t: TestApp): string[] {
  const dir = path.join(t.app.ctx.config.dataDir, 'uploads');
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((d) => d.isFile()).map((d) => d.name).sort();
}

async function refused(t: TestApp, run: () => Promise<unknown>, message: RegExp): Promise<void> {
  const before = await census(t);
  const files = storedFiles(t);
  await assert.rejects(run, (e: unknown) => {
    assert.ok(e instanceof ImportError, String(e));
    assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
  assert.deepEqual(await census(t), before, 'no rows left behind');
  assert.deepEqual(storedFiles(t), files, 'no files left behind');
  assert.equal(fs.readdirSync(path.join(t.app.ctx.config.dataDir, 'tmp')).length, 0, 'no temporary folder left');
}

test('every refusal leaves nothing behind', async () => {
  const t = await testApp();
  try {
    const good = await zulipExport();
    await refused(t, () => runImport(t.app.ctx, 'zulip', good.dir, { stringId: '' }), /Subdomain can only have|already exists/);
    await refused(t, () => runImport(t.app.ctx, 'zulip', good.dir, { stringId: 'Bad_Name' }), /Subdomain can only have lowercase letters/);
    // The second organization's name is taken by the first import.
    const first = await runImport(t.app.ctx, 'zulip', good.dir, { stringId: 'taken' });
    await refused(t, () => runImport(t.app.ctx, 'zulip', good.dir, { stringId: 'taken' }), /already exists/);

    // A file missing half way: messages and the first file are in by then, and all of it goes.
    const missing = await zulipExport();
    fs.rmSync(path.join(missing.dir, 'uploads', IMAGE_PATH));
    await refused(t, () => runImport(t.app.ctx, 'zulip', missing.dir, { stringId: 'broken' }), /lacks uploads\/|no such|cat\.png/);
    // A file bigger than its record says.
    const liar = await zulipExport();
    fs.appendFileSync(path.join(liar.dir, 'uploads', UPLOAD_PATH), ' and more');
    await refused(t, () => runImport(t.app.ctx, 'zulip', liar.dir, { stringId: 'broken' }), /not its declared 11/);
    // A message whose sender the export lacks.
    const orphan = await zulipExport((f) => f.messages.push({ ...f.messages[0]!, id: 2000, sender: 999 }));
    await refused(t, () => runImport(t.app.ctx, 'zulip', orphan.dir, { stringId: 'broken' }), /message 2000 names user 999/);
    // Messages out of order.
    const disordered = await zulipExport((f) => f.messages.reverse());
    await refused(t, () => runImport(t.app.ctx, 'zulip', disordered.dir, { stringId: 'broken' }), /ascending id/);
    // A path that climbs out of the export's folder.
    const climber = await zulipExport((f) => { f.realm.zerver_attachment![0]!.path_id = '7/../../../etc/passwd'; });
    await refused(t, () => runImport(t.app.ctx, 'zulip', climber.dir, { stringId: 'broken' }), /not a safe name|leaves|unsafe/);
    // A linkifier the API would refuse.
    const badLinkifier = await zulipExport((f) => { f.realm.zerver_realmfilter![0]!.pattern = '(unclosed'; });
    await refused(t, () => runImport(t.app.ctx, 'zulip', badLinkifier.dir, { stringId: 'broken' }), /Parley refuses/);
    // Not an export at all, and a corrupt archive.
    const empty = fs.mkdtempSync(path.join(t.app.ctx.config.dataDir, 'empty-'));
    await refused(t, () => runImport(t.app.ctx, 'zulip', empty, { stringId: 'broken' }), /no realm\.json/);
    const corrupt = path.join(empty, 'x.tar.gz');
    fs.writeFileSync(corrupt, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5]));
    await refused(t, () => runImport(t.app.ctx, 'zulip', corrupt, { stringId: 'broken' }), /not a readable archive/);
    assert.ok(await realms.findById(t.app.ctx.store.db, first.realmId));
  } finally {
    await t.close();
  }
});

test('an import under way holds its name; one whose process died is cleared by the next', async () => {
  const t = await testApp();
  try {
    const fixture = await zulipExport();
    const placeholder = await transact(t.app.ctx, (tx) => realms.insert(tx.db, {
      string_id: '.import.held', name: 'held', description: '', settings: '{}', deactivated: 1, date_created: nowSeconds(),
    }));
    await assert.rejects(runImport(t.app.ctx, 'zulip', fixture.dir, { stringId: 'held' }), /already under way/);
    await transact(t.app.ctx, (tx) => realms.update(tx.db, placeholder, { date_created: nowSeconds() - 3600 }));
    const result = await runImport(t.app.ctx, 'zulip', fixture.dir, { stringId: 'held' });
    assert.equal(await realms.findById(t.app.ctx.store.db, placeholder), undefined, 'the dead import is gone');
    assert.equal((await realms.findById(t.app.ctx.store.db, result.realmId))!.string_id, 'held');
  } finally {
    await t.close();
  }
});
