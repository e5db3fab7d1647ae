import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import tar from 'tar-stream';
import { ENGINE } from '../helpers/app.js';
import { cli, newStore, ownerAuth, startOn, storeArgs, waitIdle } from '../helpers/backup.js';
import { scratchDir } from '../helpers/scratch.js';

/**
 * `parley backup` of a running server with people, messages and an upload; `parley restore`
 * into an empty store; a server started on the restored store serves all of it. Then the
 * refusals: a store that holds data (without --force), a running server, another engine, a
 * newer Parley's backup, an archive with an unsafe name.
 */
test(`backup and restore on ${ENGINE}: a server on the restored store serves the messages, users and uploads`, { timeout: 240_000 }, async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-backup-out-'));
  const source = await newStore();
  const server = await startOn(source);
  const archive = path.join(out, 'parley.tar.gz');
  let auth: { authorization: string; userId: number };
  let bob: { user_id: number; api_key: string };
  const contents = ['first words', 'second words', 'third words'];
  let uploadUri: string;
  try {
    auth = await ownerAuth(server.url);
    const created = await cli(['user', 'create', ...storeArgs(source), '--email', 'bob@parley.test', '--full-name', 'Bob Backup', '--password', 'bob-password-1']);
    assert.equal(created.code, 0, created.stderr);
    // The CLI's log lines (a warning about the tests' cheap hashes) come first.
    bob = JSON.parse(created.stdout.slice(created.stdout.indexOf('{\n'))) as { user_id: number; api_key: string };
    const form = new FormData();
    form.append('file', new Blob(['the uploaded bytes']), 'notes.txt');
    const up = await fetch(`${server.url}/api/v1/user_uploads`, { method: 'POST', headers: { authorization: auth.authorization }, body: form });
    assert.equal(up.status, 200, await up.clone().text());
    uploadUri = ((await up.json()) as { uri: string }).uri;
    for (const content of [...contents, `[notes](${uploadUri})`]) {
      const res = await fetch(`${server.url}/api/v1/messages`, {
        method: 'POST', headers: { authorization: auth.authorization },
        body: new URLSearchParams({ type: 'private', to: JSON.stringify([bob.user_id]), content }),
      });
      assert.equal(res.status, 200, await res.text());
    }
    // While the server runs.
    const made = await cli(['backup', ...storeArgs(source), archive]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /^Backed up the (sqlite|postgres) store \(migration \d+-[a-z0-9-]+, 1 uploads\) to .*\n$/);
    assert.match(made.stderr, /database (pages|tables)/, 'a progress bar per phase on stderr');
    // A second backup to the same name is refused rather than overwriting the first.
    const again = await cli(['backup', ...storeArgs(source), archive]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
  } finally {
    await server.stop();
  }

  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', archive, 'manifest.json'], { encoding: 'utf8' }));
  assert.equal(manifest.format, 'parley-backup');
  assert.equal(manifest.engine, ENGINE);
  assert.equal(manifest.parley_version, JSON.parse(fs.readFileSync('package.json', 'utf8')).version);
  assert.equal(manifest.migration_level, manifest.migrations.at(-1));
  assert.deepEqual(manifest.uploads, { storage: 'local', included: true, folder: 'uploads/', files: 1, bytes: 'the uploaded bytes'.length });
  assert.ok(manifest.secrets.in_database.some((s: string) => s.startsWith('push_server')));
  const names = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n');
  assert.ok(names.includes(manifest.database), names.join(' '));
  assert.equal(names.filter((n) => n.startsWith('uploads/')).length, 1);

  const target = await newStore();
  const restored = await cli(['restore', ...storeArgs(target), archive]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /^Restored the backup of .* \(.*1 uploads\) into .*: start the server\n$/);

  const second = await startOn(target);
  try {
    // The restored password and API keys work: the secrets came back with the database.
    const owner = await ownerAuth(second.url);
    const bobAuth = { authorization: `Basic ${Buffer.from(`bob@parley.test:${bob.api_key}`).toString('base64')}` };
    const users = (await (await fetch(`${second.url}/api/v1/users`, { headers: bobAuth })).json()) as { members: Array<{ email: string; full_name: string }> };
    assert.ok(users.members.some((u) => u.full_name === 'Bob Backup'), JSON.stringify(users));
    const query = new URLSearchParams({ anchor: 'oldest', num_before: '0', num_after: '1000', narrow: JSON.stringify([{ operator: 'is', operand: 'private' }]), apply_markdown: 'false' });
    const got = (await (await fetch(`${second.url}/api/v1/messages?${query}`, { headers: bobAuth })).json()) as { messages: Array<{ content: string }> };
    const texts = got.messages.map((m) => m.content);
    for (const c of [...contents, `[notes](${uploadUri})`]) assert.ok(texts.includes(c), `${c} in ${JSON.stringify(texts)}`);
    const file = await fetch(`${second.url}${uploadUri}`, { headers: { authorization: owner.authorization } });
    assert.equal(file.status, 200);
    assert.equal(await file.text(), 'the uploaded bytes');

    // A running server on the store: refused, even with --force.
    const busy = await cli(['restore', ...storeArgs(target), archive, '--force']);
    assert.equal(busy.code, 1, busy.stdout);
    assert.match(busy.stderr, /stop the Parley server/);
  } finally {
    await second.stop();
  }
  await waitIdle(target);
  const refused = await cli(['restore', ...storeArgs(target), archive]);
  assert.equal(refused.code, 1, refused.stdout);
  assert.equal(refused.stderr.trim().split('\n').at(-1), `parley: the target store holds data (${ENGINE === 'sqlite' ? path.join(target.dataDir, 'parley.db') : 'the database'}): restore into an empty one, or give --force to replace it`);
  const forced = await cli(['restore', ...storeArgs(target), archive, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /replacing what it held/);

  // Another engine.
  const other = ENGINE === 'sqlite' ? ['--data-dir', target.dataDir, '--database-url', 'postgres://nobody@127.0.0.1:9/none'] : ['--data-dir', scratchDir('parley-sqlite-')];
  const wrongEngine = await cli(['restore', ...other, archive]);
  assert.equal(wrongEngine.code, 1);
  assert.match(wrongEngine.stderr, /the backup is of a (SQLite|PostgreSQL) store and the target is/);

  // A newer Parley's backup: a migration this one does not know.
  const unpacked = fs.mkdtempSync(path.join(out, 'unpacked-'));
  execFileSync('tar', ['-xzf', archive, '-C', unpacked]);
  const future = { ...manifest, migrations: [...manifest.migrations, '999-from-the-future'], migration_level: '999-from-the-future' };
  fs.writeFileSync(path.join(unpacked, 'manifest.json'), JSON.stringify(future));
  const newer = path.join(out, 'newer.tar.gz');
  execFileSync('tar', ['-czf', newer, '-C', unpacked, ...fs.readdirSync(unpacked)]);
  const fresh = await newStore();
  const tooNew = await cli(['restore', ...storeArgs(fresh), newer]);
  assert.equal(tooNew.code, 1);
  assert.match(tooNew.stderr, /made by a newer Parley .*migration 999-from-the-future.*upgrade Parley first/);

  // An archive with a name climbing out of the folder.
  const evil = path.join(out, 'evil.tar.gz');
  const pack = tar.pack();
  pack.entry({ name: 'manifest.json' }, JSON.stringify(manifest));
  pack.entry({ name: '../../escaped.txt' }, 'x');
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  fs.writeFileSync(evil, zlib.gzipSync(Buffer.concat(chunks)));
  const unsafe = await cli(['restore', ...storeArgs(fresh), evil]);
  assert.equal(unsafe.code, 1);
  assert.match(unsafe.stderr, /unsafe entry .*climbs out/);
  assert.equal(fs.existsSync(path.join(fresh.dataDir, '..', 'escaped.txt')), false);
  fs.rmSync(out, { recursive: true, force: true });
});
