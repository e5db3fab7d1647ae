import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/pg.js';
import { ENGINE } from '../helpers/app.js';
import { until } from '../helpers/until.js';

// The serve command is exercised on SQLite only: it is the zero-configuration path.
const skip = ENGINE !== 'sqlite';

function start(dataDir: string, port: number, env: Record<string, string> = {}): { child: ChildProcess; out: () => string; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: { ...process.env, PARLEY_LOG_LEVEL: 'info', PARLEY_ADMIN_EMAIL: '', PARLEY_ADMIN_PASSWORD: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Parley listening')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { child, out: () => out, ready };
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => c.on('exit', (code) => r(code)));

/**
 * A form POST on a connection of its own: `written` settles once its bytes are with the
 * kernel (on loopback, in the server's socket), `status` with the answer's status.
 */
function postForm(port: number, path: string, form: Record<string, string>): { written: Promise<void>; status: Promise<number> } {
  const body = new URLSearchParams(form).toString();
  let written!: () => void;
  const onWire = new Promise<void>((r) => (written = r));
  const status = new Promise<number>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path, method: 'POST', agent: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body, () => written());
  });
  return { written: onWire, status };
}

test('first start creates the organization and prints a generated login once; later starts reuse it; SIGTERM is graceful', { skip, timeout: 60_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-serve-'));
  const port = await freePort();
  const first = start(dataDir, port);
  await first.ready;
  const m = /log in as (\S+) with password (\S+)/.exec(first.out());
  assert.ok(m, first.out());
  const [, email, password] = m;
  const key = await fetch(`http://127.0.0.1:${port}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email!, password: password! }) });
  assert.equal(key.status, 200);
  const apiKey = ((await key.json()) as any).api_key as string;
  // A request in flight when SIGTERM arrives still gets its answer (password hashing keeps it busy).
  const inFlight = postForm(port, '/api/v1/fetch_api_key', { username: email!, password: password! });
  await inFlight.written;
  // Its socket was readable before this request was sent: once this one is answered, the
  // server has read the first one too, and it is in flight.
  assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`)).status, 200);
  first.child.kill('SIGTERM');
  assert.equal(await inFlight.status, 200);
  assert.equal(await exited(first.child), 0);
  assert.ok(first.out().includes('shutting down'));

  const second = start(dataDir, port);
  await second.ready;
  assert.ok(!second.out().includes('log in as'), 'the login is printed only on the first start');
  const me = await fetch(`http://127.0.0.1:${port}/api/v1/users/me`, { headers: { authorization: 'Basic ' + Buffer.from(`${email}:${apiKey}`).toString('base64') } });
  assert.equal(me.status, 200);
  // One structured log line per request, with status and duration.
  const line = await until(() => second.out().split('\n').find((l) => l.includes('"url":"/api/v1/users/me"')),
    { message: () => `the request's log line in: ${second.out()}` });
  const parsed = JSON.parse(line);
  assert.equal(parsed.status, 200);
  assert.equal(typeof parsed.ms, 'number');
  second.child.kill('SIGINT');
  assert.equal(await exited(second.child), 0);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('PARLEY_ADMIN_EMAIL/PASSWORD choose the owner on first start', { skip, timeout: 60_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-serve-'));
  const port = await freePort();
  const s = start(dataDir, port, { PARLEY_ADMIN_EMAIL: 'chief@example.com', PARLEY_ADMIN_PASSWORD: 'chief-pass-1' });
  await s.ready;
  assert.ok(!s.out().includes('log in as'));
  const key = await fetch(`http://127.0.0.1:${port}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'chief@example.com', password: 'chief-pass-1' }) });
  assert.equal(key.status, 200);
  s.child.kill('SIGTERM');
  assert.equal(await exited(s.child), 0);
  fs.rmSync(dataDir, { recursive: true, force: true });
});
