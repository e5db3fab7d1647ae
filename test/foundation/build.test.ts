import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/pg.js';
import { ENGINE } from '../helpers/app.js';
import { until } from '../helpers/until.js';

// What `npm start` and `npx parley` run is the compiled tree in dist/ (built by `npm ci` /
// `npm install`, rebuilt when src/ is newer). The rest of the suite runs the sources
// through tsx; these check the compiled tree once, on SQLite.
const skip = ENGINE !== 'sqlite';

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourcesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('dist/ is current and mirrors src/: each module compiled beside its siblings', { skip, timeout: 300_000 }, () => {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  for (const file of sourcesUnder('src')) {
    const compiled = path.join('dist', path.relative('src', file)).replace(/\.ts$/, '.js');
    assert.ok(fs.existsSync(compiled), `${compiled} is missing`);
  }
});

test('compiled, a worker module is started from the URL of the .js beside the caller', { skip, timeout: 60_000 }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-worker-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'echo.js'), "import { parentPort, workerData } from 'node:worker_threads';\nparentPort.postMessage(workerData * 2);\n");
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  const helper = path.resolve('dist/lib/module-worker.js');
  const main = `import { startModuleWorker } from ${JSON.stringify(helper)};
    startModuleWorker(new URL('./echo.js', import.meta.url), { workerData: 21 }).on('message', (m) => console.log(m));`;
  fs.writeFileSync(path.join(dir, 'main.js'), main);
  const r = spawnSync(process.execPath, [path.join(dir, 'main.js')], { encoding: 'utf8' });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout.trim(), '42');
});

test('npx parley serve runs the compiled server: it answers, and SIGTERM stops it cleanly', { skip, timeout: 120_000 }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-dist-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/parley.mjs', 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: { ...process.env, PARLEY_LOG_LEVEL: 'silent', PARLEY_ADMIN_EMAIL: 'owner@parley.test', PARLEY_ADMIN_PASSWORD: 'owner-password-1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const settings = await until(async () => {
    assert.equal(child.exitCode, null, `the server exited: ${out}`);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`).catch(() => undefined);
    return res && ((await res.json()) as Record<string, unknown>);
  }, { timeoutMs: 60_000, intervalMs: 50, message: () => `the compiled server to answer: ${out}` });
  assert.equal(settings.result, 'success');
  child.kill('SIGTERM');
  assert.equal(await exited, 0, out);
});
