/**
 * The commands as an operator runs them: `parley import ...` and `parley export`, exit code 0
 * with a summary, or 1 with one clear line on stderr. On SQLite, as the other CLI tests: the
 * store code under them is tested on both engines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINE, HOST } from '../helpers/app.js';
import { buildApp } from '../../src/app.js';
import { zulipExport } from './zulip-export-fixture.js';

const skip = ENGINE !== 'sqlite';

function parley(dataDir: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--data-dir', dataDir], { env: { ...process.env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('parley import and export: a summary and exit 0, or one line and exit 1', { skip, timeout: 180_000 }, async (tc) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-import-'));
  tc.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const fixture = await zulipExport();
  const ok = parley(dataDir, 'import', 'zulip', fixture.dir, '--string-id', 'zulipdev');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /Imported 8 users, 3 streams and 8 messages into http:\/\/zulipdev\./);
  assert.match(ok.err, /messages/, 'a progress bar per phase');

  const again = parley(dataDir, 'import', 'zulip', fixture.dir, '--string-id', 'zulipdev');
  assert.equal(again.code, 1);
  assert.equal(again.err.trim().split('\n').pop(), "parley: an organization with the string id 'zulipdev' already exists");

  const missing = parley(dataDir, 'import', 'slack', path.join(dataDir, 'nothing.zip'), '--string-id', 'other');
  assert.equal(missing.code, 1);
  assert.match(missing.err.trim().split('\n').pop()!, /^parley: .*nothing\.zip: no such file or folder$/);

  const out = path.join(dataDir, 'zulipdev.tar.gz');
  const exported = parley(dataDir, 'export', out, '--org', 'zulipdev');
  assert.equal(exported.code, 0, exported.err);
  assert.match(exported.out, /Exported 8 messages and \d+ files of http:\/\/zulipdev\.[^ ]+ to /);
  assert.ok(fs.statSync(out).size > 0);
  const twice = parley(dataDir, 'export', out, '--org', 'zulipdev');
  assert.equal(twice.code, 1);
  assert.match(twice.err.trim().split('\n').pop()!, /^parley: .*exists already/);
  const nowhere = parley(dataDir, 'export', path.join(dataDir, 'no', 'such', 'x.tar.gz'), '--org', 'zulipdev');
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.err.trim().split('\n').pop()!, /^parley: cannot write .*: no folder/);
  const unknown = parley(dataDir, 'export', path.join(dataDir, 'y.tar.gz'), '--org', 'nope');
  assert.equal(unknown.code, 1);
  assert.equal(unknown.err.trim().split('\n').pop(), "parley: No organization with string id 'nope'");
  // What was exported imports again, under another name.
  const back = parley(dataDir, 'import', 'zulip', out, '--string-id', 'again');
  assert.equal(back.code, 0, back.err);
  assert.match(back.out, /Imported 8 users, 3 streams and 8 messages/);

  // Imported people have no password: an operator gives them one, and they sign in with it.
  const set = parley(dataDir, 'user', 'password', '--org', 'zulipdev', '--email', 'cordelia@zulip.example');
  assert.equal(set.code, 0, set.err);
  const { password } = JSON.parse(set.out) as { password: string };
  assert.equal(password.length, 20);
  const app = await buildApp({ dataDir, logLevel: 'silent', externalUrl: `http://${HOST}` });
  try {
    const login = await app.http.inject({
      method: 'POST', url: '/api/v1/fetch_api_key', headers: { host: `zulipdev.${HOST}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ username: 'cordelia@zulip.example', password }).toString(),
    });
    assert.equal(login.statusCode, 200, login.body);
  } finally {
    await app.close();
  }
  const bot = parley(dataDir, 'user', 'password', '--org', 'zulipdev', '--email', 'helper-bot@zulip.example');
  assert.equal(bot.code, 1);

  const key = parley(dataDir, 'api-key', 'show', '--org', 'zulipdev', '--email', 'iago@zulip.example');
  assert.equal(key.code, 0, key.err);
  assert.match(JSON.parse(key.out).api_key, /^[A-Za-z0-9]{32}$/);
});

test('bin/parley.mjs starts an import again with two malloc arenas and a small young generation; its output and exit code pass through', { skip, timeout: 300_000 }, async (tc) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-launcher-'));
  tc.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // dist/ current first: the launcher would otherwise compile it in processes of its own, which the probe would count.
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  // Every process the command starts says what it was given (NODE_OPTIONS reaches both).
  const probe = path.join(dataDir, 'probe.cjs');
  fs.writeFileSync(probe, "process.stderr.write(`[arenas ${process.env.MALLOC_ARENA_MAX ?? 'unset'} ${process.execArgv.find((a) => a.startsWith('--max-semi')) ?? 'default'}]\\n`);\n");
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `--require ${probe}` };
  delete env.MALLOC_ARENA_MAX;
  const launch = (...args: string[]) => spawnSync(process.execPath, ['bin/parley.mjs', ...args, '--data-dir', dataDir], { env, encoding: 'utf8' });
  const fixture = await zulipExport();
  const ok = launch('import', 'zulip', fixture.dir, '--string-id', 'launched');
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /Imported 8 users, 3 streams and 8 messages into http:\/\/launched\./);
  // The launcher, then the import it started and that process's worker threads.
  const [launcher, ...started] = ok.stderr.match(/\[arenas [^\]]+\]/g) ?? [];
  assert.equal(launcher, '[arenas unset default]');
  assert.ok(started.length > 0 && started.every((s) => s === '[arenas 2 --max-semi-space-size=2]'), started.join(' '));
  const refused = launch('import', 'zulip', fixture.dir, '--string-id', 'launched');
  assert.equal(refused.status, 1);
  assert.equal(refused.stderr.trim().split('\n').pop(), "parley: an organization with the string id 'launched' already exists");
  // Other commands run in the launcher's own process.
  const other = launch('api-key', 'show', '--org', 'launched', '--email', 'iago@zulip.example');
  assert.equal(other.status, 0, other.stderr);
  assert.ok(!other.stderr.includes('[arenas 2'));
});
