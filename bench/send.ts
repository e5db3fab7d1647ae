/**
 * `npm run bench -- send [seconds]`: POST /messages throughput and latency on SQLite,
 * to streams of 10, 100 and 1,000 subscribers and as private messages, with 32
 * concurrent senders. The server runs in its own process.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { runLoad, printStats, type LoadStats } from './lib/http-load.js';

const SENDERS = 32;

if (process.argv[2] === 'child') {
  const { buildApp } = await import('../src/app.js');
  const { ensureDefaultRealm } = await import('../src/cli/bootstrap.js');
  const { transact } = await import('../src/store/tx.js');
  const { doCreateUser } = await import('../src/actions/user-create.js');
  const { createStreamWithSubscribers } = await import('../src/actions/stream-create.js');
  const { realms } = await import('../src/store/repos/realms.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-send-'));
  const app = await buildApp({ dataDir, logLevel: 'silent', adminEmail: 'owner@bench.test', adminPassword: 'bench-password-1' });
  await ensureDefaultRealm(app.ctx);
  const realm = (await realms.findByStringId(app.ctx.store.db, ''))!;
  const users: Array<Awaited<ReturnType<typeof doCreateUser>>> = [];
  for (let i = 0; i < 1000; i++) {
    users.push(await transact(app.ctx, (tx) => doCreateUser(tx, realm, { email: `u${i}@bench.test`, fullName: `Bench User ${i}` })));
    if (i % 100 === 99) process.stderr.write(`  seeded ${i + 1}/1000 users\r`);
  }
  process.stderr.write('\n');
  for (const n of [10, 100, 1000]) await transact(app.ctx, (tx) => createStreamWithSubscribers(tx, realm, `subs${n}`, users.slice(0, n)));
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ base, senders: users.slice(0, SENDERS).map((u) => ({ id: u.id, email: u.email, key: u.api_key })) })}\n`);
  process.on('SIGTERM', async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
} else {
  const seconds = Number(process.argv[2] ?? 8);
  const child = spawn(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []), '--import', 'tsx', import.meta.filename, 'child'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { base, senders } = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdout! }).once('line', r))) as
    { base: string; senders: Array<{ id: number; email: string; key: string }> };
  const auth = senders.map((s) => 'Basic ' + Buffer.from(`${s.email}:${s.key}`).toString('base64'));
  const body = (p: Record<string, string>) => new URLSearchParams(p).toString();
  const rows: LoadStats[] = [];
  const cases: Array<[string, (w: number, i: number) => Record<string, string>]> = [
    ['stream, 10 subscribers', (w, i) => ({ type: 'stream', to: 'subs10', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` })],
    ['stream, 100 subscribers', (w, i) => ({ type: 'stream', to: 'subs100', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` })],
    ['stream, 1000 subscribers', (w, i) => ({ type: 'stream', to: 'subs1000', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` })],
    ['private, 1:1', (w, i) => ({ type: 'private', to: `[${senders[(w + 1) % SENDERS]!.id}]`, content: `private ${i} from ${w}` })],
  ];
  for (const [label, params] of cases) {
    process.stderr.write(`  ${label} (${seconds}s)...\n`);
    await runLoad('warm-up', { base, concurrency: SENDERS, durationMs: 1000, request: (w, i) => ({ method: 'POST', path: '/api/v1/messages', auth: auth[w]!, body: body(params(w, i)) }) });
    rows.push(await runLoad(label, { base, concurrency: SENDERS, durationMs: seconds * 1000, request: (w, i) => ({ method: 'POST', path: '/api/v1/messages', auth: auth[w]!, body: body(params(w, i)) }) }));
  }
  child.kill('SIGTERM');
  printStats(rows);
}
