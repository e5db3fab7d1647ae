/**
 * `parley serve --workers N` (src/cli/workers.ts): N processes on one port, on PostgreSQL
 * and Redis; a worker that dies is replaced while the others answer; SIGTERM stops them
 * all gracefully; without PostgreSQL and Redis it refuses in one line.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createPgDatabase, ENGINE } from '../helpers/app.js';
import { freePort } from '../helpers/pg.js';
import { findRedisServer, startRedis, type RedisServer } from '../helpers/redis.js';
import { until } from '../helpers/until.js';

const NEEDS = ENGINE !== 'postgres'
  ? 'workers need PostgreSQL: run with PARLEY_TEST_ENGINES=postgres'
  : findRedisServer() ? false : 'no redis-server on this machine (apt-get install redis-server)';
if (NEEDS) process.stdout.write(`*** cluster workers test SKIPPED: ${NEEDS} ***\n`);

const dirs: string[] = [];
const children: ChildProcess[] = [];
let redis: RedisServer | undefined;
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-workers-'));
  dirs.push(d);
  return d;
}

/** The environment of a server child with nothing of the runner's database or Redis in it. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_LOG_LEVEL: 'info', PARLEY_ADMIN_EMAIL: 'chief@example.com', PARLEY_ADMIN_PASSWORD: 'chief-pass-1', ...extra };
  for (const k of ['PARLEY_DATABASE_URL', 'PARLEY_REDIS_URL', 'PARLEY_WORKERS']) if (!(k in extra)) delete env[k];
  return env;
}

interface Server {
  child: ChildProcess;
  /** Every JSON log line so far, from the primary and the workers. */
  lines(): Array<Record<string, any>>;
  text(): string;
  exit: Promise<number | null>;
}

function serve(args: string[], env: NodeJS.ProcessEnv): Server {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const lines = () => out.split('\n').flatMap((l) => {
    if (!l.startsWith('{')) return [];
    try {
      return [JSON.parse(l) as Record<string, any>];
    } catch {
      return [];
    }
  });
  return { child, lines, text: () => out, exit };
}

/** A GET on a connection of its own, so that the cluster hands each to a worker afresh. */
function get(port: number, urlPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    }).on('error', reject);
  });
}

/** An API call on a connection of its own (dealt to either worker), answering the JSON body. */
function call(port: number, auth: string, method: string, urlPath: string, params: Record<string, string>): Promise<any> {
  const body = new URLSearchParams(params).toString();
  const get = method === 'GET';
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: get ? `${urlPath}?${body}` : urlPath, agent: false,
      headers: { authorization: auth, ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(get ? undefined : body);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pid listening as worker `slot` now (the primary's latest "listening" line for it). */
const listeningPid = (s: Server, slot: number): number | undefined =>
  s.lines().filter((l) => l.role === 'primary' && l.worker === slot && /listening/.test(l.msg)).at(-1)?.workerPid;

test('serve --workers 2: both workers answer on one port; a killed worker is replaced; SIGTERM stops all with 0', { skip: NEEDS, timeout: 120_000 }, async () => {
  redis = await startRedis();
  const port = await freePort();
  const s = serve(['--workers', '2', '--host', '127.0.0.1', '--port', String(port), '--data-dir', tempDir(),
    '--database-url', await createPgDatabase(), '--redis-url', redis.url], cleanEnv({ PARLEY_PASSWORD_HASH_MEMORY_KIB: '1024', PARLEY_PASSWORD_HASH_TIME_COST: '1' }));
  const pids = await until(() => {
    const [a, b] = [listeningPid(s, 1), listeningPid(s, 2)];
    return a && b ? [a, b] : undefined;
  }, { timeoutMs: 60_000, message: () => `two workers listening: ${s.text()}` });
  assert.notEqual(pids[0], pids[1]);
  assert.ok(!pids.includes(s.child.pid!), 'the primary answers no request itself');
  // The primary made the organization once; no worker made it again.
  assert.equal(s.lines().filter((l) => /created the default organization/.test(l.msg)).length, 1);

  // Connections are dealt out among the workers: each request's log line names who answered.
  const answeredBy = (): Set<number> => new Set(s.lines().filter((l) => l.msg === 'request' && l.url === '/api/v1/server_settings').map((l) => l.pid as number));
  for (let i = 0; i < 6; i++) assert.equal(await get(port, '/api/v1/server_settings'), 200);
  await until(() => pids.every((p) => answeredBy().has(p)), { message: () => `requests answered by both ${pids}: ${[...answeredBy()]}` });
  assert.ok(s.lines().filter((l) => l.msg === 'request').every((l) => l.worker === 1 || l.worker === 2), 'every request line names its worker');

  // SIGKILL one worker: the other answers meanwhile; the primary starts a new worker 1.
  process.kill(pids[0]!, 'SIGKILL');
  await until(() => !alive(pids[0]!));
  const statuses: number[] = [];
  const replaced = await until(async () => {
    statuses.push(await get(port, '/api/v1/server_settings'));
    const now = listeningPid(s, 1);
    return now !== undefined && now !== pids[0] ? now : undefined;
  }, { timeoutMs: 60_000, message: () => `worker 1 replaced: ${s.text()}` });
  assert.ok(statuses.every((c) => c === 200), String(statuses));
  assert.ok(s.lines().some((l) => l.role === 'primary' && l.worker === 1 && l.signal === 'SIGKILL' && /died/.test(l.msg)), 'the death is logged');
  assert.ok(alive(replaced) && alive(pids[1]!));
  for (let i = 0; i < 4; i++) assert.equal(await get(port, '/api/v1/server_settings'), 200);
  // Signing in works on either worker (the database is shared).
  const key = await fetch(`http://127.0.0.1:${port}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'chief@example.com', password: 'chief-pass-1' }) });
  assert.equal(key.status, 200);
  // Events cross the workers: a queue registered on one is polled on connections dealt to either.
  const me = await key.json() as { email: string; api_key: string };
  const auth = 'Basic ' + Buffer.from(`${me.email}:${me.api_key}`).toString('base64');
  const reg = await call(port, auth, 'POST', '/api/v1/register', { event_types: '["message"]' });
  let last = -1;
  for (let i = 0; i < 4; i++) {
    const sent = await call(port, auth, 'POST', '/api/v1/messages', { type: 'private', to: me.email, content: `to myself ${i}` });
    const events = await until(async () => {
      const r = await call(port, auth, 'GET', '/api/v1/events', { queue_id: reg.queue_id, last_event_id: String(last), dont_block: 'true' });
      return r.events?.length ? r.events : undefined;
    }, { message: () => `message ${i} through any worker: ${s.text().slice(-2000)}` });
    assert.deepEqual(events.map((e: any) => [e.id, e.message.id]), [[last + 1, sent.id]]);
    last += 1;
  }
  // The cluster deals new connections out in turn: the sends and the polls were answered by both workers.
  const involved = new Set(s.lines().filter((l) => l.msg === 'request' && /^\/api\/v1\/(events|messages)/.test(String(l.url))).map((l) => l.pid));
  assert.equal(involved.size, 2, `sends and polls answered by ${[...involved]}`);

  s.child.kill('SIGTERM');
  assert.equal(await s.exit, 0, s.text());
  assert.ok(!alive(replaced) && !alive(pids[1]!), 'the workers are gone');
  const stopped = s.lines().filter((l) => l.role === 'primary' && /^worker \d+ stopped$/.test(l.msg));
  assert.deepEqual(stopped.map((l) => [l.worker, l.code]).sort(), [[1, 0], [2, 0]]);
  // Each worker ran its own graceful shutdown.
  assert.equal(s.lines().filter((l) => l.msg === 'shutting down: finishing in-flight requests').length, 2);
});

test('--workers above 1 without PostgreSQL and Redis is refused in one line', { timeout: 60_000 }, async () => {
  const refused = async (args: string[], env = cleanEnv()) => {
    const s = serve(['--data-dir', tempDir(), '--port', '0', ...args], env);
    assert.equal(await s.exit, 1, s.text());
    const out = s.text().trim();
    assert.equal(out.split('\n').length, 1, out);
    return out;
  };
  assert.match(await refused(['--workers', '2']), /^parley: --workers 2 needs a PostgreSQL database .* and Redis .*/);
  assert.match(await refused(['--workers', '3', '--database-url', 'postgres://nobody@127.0.0.1:1/none']), /^parley: --workers 3 needs Redis \(--redis-url, PARLEY_REDIS_URL\)/);
  assert.match(await refused(['--redis-url', 'redis://127.0.0.1:1'], cleanEnv({ PARLEY_WORKERS: '2' })), /^parley: --workers 2 needs a PostgreSQL database/);
  assert.match(await refused(['--workers', '0']), /must be a whole number of at least 1, got '0'/);
  assert.match(await refused([], cleanEnv({ PARLEY_WORKERS: 'many' })), /got 'many'/);
});
