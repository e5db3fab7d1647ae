/**
 * `npm run bench -- register [n] [--users 10000] [--streams S] [--subscribers]`: POST /register
 * with every event type for a user of an organization (default 1,000 users and 200 streams,
 * the user in 40 of them), n times in sequence: p50 and p99 of the answer time, the answer's
 * size (as sent, and gzipped as a proxy would send it) and the server's CPU per register.
 *
 * The organization scales with --users: users/5 streams of 50 members each, the user in 40
 * of them; above 1,000 users also three big streams (everyone, and two of half), the user
 * in two, everyone's presence from the last hours and a status for every tenth user (written
 * straight through the repos: the actions would tell everyone of each). --subscribers asks for include_subscribers. The server child is pinned to CPU 0
 * and this process to CPU 1 when `taskset` exists (BENCH_TASKSET=0 turns that off).
 * BENCH_DUMP=<file> writes the last answer there, to compare answers before and after a change;
 * BENCH_PROFILE_WINDOW=<dir> writes a CPU profile of the server over the measured requests alone.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { profileArgs } from './lib/profile.js';
import { cpuBetween, sampleCpu } from './lib/proc-cpu.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const COLORS = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5'];

interface Shape { users: number; streams: number; big: number }

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function shapeOf(args: string[]): Shape {
  const users = Number(option(args, '--users') ?? 1000);
  const streams = Number(option(args, '--streams') ?? Math.max(1, Math.round(users / 5)));
  return { users, streams, big: users > 1000 ? 3 : 0 };
}

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { sendMessage } = await import('../src/actions/message-send.js');
  const { transact } = await import('../src/actions/transaction.js');
  const { createStreamWithSubscribers } = await import('../src/actions/stream-create.js');
  const { subscriptions } = await import('../src/store/repos/subscriptions.js');
  const shape = shapeOf(process.argv.slice(3));
  const bench = await startBenchApp('register');
  if (process.env.BENCH_PROFILE_WINDOW) (await import('./lib/profile-window.js')).profileOnSignal(process.env.BENCH_PROFILE_WINDOW, 'register');
  const { app, realm } = bench;
  const t0 = performance.now();
  const phase = (name: string) => process.stderr.write(`  ${name} at ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const users = shape.users <= 1000 ? await bench.addUsers(shape.users, 'g', 'Member', 100) : await addManyUsers(bench, shape.users);
  // Streams of 50: user i is in stream s when (i + s) % (users / 50) is 0; at 1,000 users and 200 streams, as before.
  const mod = Math.max(1, Math.round(shape.users / 50));
  const ownEvery = Math.max(1, Math.round(shape.streams / 40));
  const specs: Array<{ name: string; inviteOnly: boolean; members: typeof users; messages: boolean }> = [];
  for (let s = 0; s < shape.streams; s++) {
    const own = s % ownEvery === 0;
    specs.push({ name: `stream ${s}`, inviteOnly: s % 10 === 0, members: users.filter((_, i) => (i + s) % mod === 0 || (i === 0 && own)), messages: s < 200 || own });
  }
  for (let b = 0; b < shape.big; b++) {
    specs.push({ name: `big ${b}`, inviteOnly: false, members: users.filter((_, i) => b === 0 || i % 2 === b - 1), messages: true });
  }
  phase('users made');
  for (let k = 0; k < specs.length; k += 20) {
    const batch = specs.slice(k, k + 20);
    // Above 1,000 users the action subscribes the user alone and the others are written in bulk:
    // its events for each new subscriber to everyone were most of ten minutes' seeding.
    const bulk = shape.users > 1000;
    const made = await transact(app.ctx, async (tx) => {
      const out = [];
      for (const spec of batch) {
        const stream = await createStreamWithSubscribers(tx, realm, { name: spec.name, inviteOnly: spec.inviteOnly }, bulk ? spec.members.filter((m) => m === users[0]) : spec.members);
        if (bulk) {
          await subscriptions.insertMany(tx.db, spec.members.filter((m) => m !== users[0]).map((m, i) => ({
            user_id: m.id, stream_id: stream.id, active: 1, is_muted: 0, color: COLORS[(i + stream.id) % COLORS.length]!, pin_to_top: 0,
            desktop_notifications: null, audible_notifications: null, push_notifications: null, email_notifications: null, wildcard_mentions_notify: null,
          })));
        }
        out.push(stream);
      }
      return out;
    });
    for (let j = 0; j < batch.length; j++) {
      const { members, messages } = batch[j]!;
      if (!messages) continue;
      for (let m = 0; m < 5; m++) await sendMessage(app.ctx, realm, members[m % members.length]!, { to: { kind: 'stream', id: made[j]!.id }, topic: `t${m}`, content: `hello ${m}`, client: 'bench' });
    }
    process.stderr.write(`  ${Math.min(k + 20, specs.length)}/${specs.length} streams\r`);
  }
  phase('\nstreams and messages made');
  if (shape.big > 0) {
    const { presence } = await import('../src/store/repos/presence.js');
    const { userStatuses } = await import('../src/store/repos/user-status.js');
    const now = Math.floor(Date.now() / 1000);
    for (let k = 0; k < users.length; k += 500) {
      await transact(app.ctx, async (tx) => {
        for (const [j, user] of users.slice(k, k + 500).entries()) {
          const t = now - ((k + j) % 360) * 60;
          await presence.upsert(tx.db, realm.id, { user_id: user.id, client: 'website', last_active_time: t, last_connected_time: t }, true);
          if ((k + j) % 10 === 0) await userStatuses.upsert(tx.db, user.id, realm.id, { status_text: `in a meeting ${k + j}`, emoji_name: 'calendar', emoji_code: '1f4c6', reaction_type: 'unicode_emoji' }, now);
        }
      });
    }
  }
  process.stderr.write(`\n  organization made in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  const u = users[0]!;
  process.stdout.write(`${JSON.stringify({ base, auth: 'Basic ' + Buffer.from(`${u.email}:${u.api_key}`).toString('base64') })}\n`);
  process.on('SIGTERM', async () => {
    await bench.close();
    process.exit(0);
  });
} else {
  const args = process.argv.slice(2);
  const n = Number(args[0] && !args[0].startsWith('--') ? args[0] : 100);
  const shape = shapeOf(args);
  const pin = process.env.BENCH_TASKSET !== '0' && hasTaskset();
  if (pin) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const node = [...profileArgs(), '--import', 'tsx', import.meta.filename, 'child', ...args];
  const child = pin ? spawn('taskset', ['-c', '0', process.execPath, ...node], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, node, { stdio: ['ignore', 'pipe', 'inherit'] });
  const { base, auth } = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdout! }).once('line', r))) as { base: string; auth: string };
  const body = `client_capabilities=%7B%22notification_settings_null%22%3Atrue%7D${args.includes('--subscribers') ? '&include_subscribers=true' : ''}`;
  const times: number[] = [];
  let bytes: Buffer = Buffer.alloc(0);
  const profile = !!process.env.BENCH_PROFILE_WINDOW;
  let cpuStart = sampleCpu(child.pid!);
  for (let i = 0; i < n + 10; i++) {
    if (i === 10) {
      if (profile) child.kill('SIGUSR2');
      cpuStart = sampleCpu(child.pid!);
    }
    const t0 = performance.now();
    const res = await post(`${base}/api/v1/register`, auth, body);
    if (i >= 10) times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(res.bytes.toString());
    bytes = res.bytes;
  }
  const cpu = cpuBetween(cpuStart, sampleCpu(child.pid!));
  if (profile) {
    child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 3000));
  }
  child.kill('SIGTERM');
  agent.destroy();
  if (process.env.BENCH_DUMP) fs.writeFileSync(process.env.BENCH_DUMP, bytes);
  times.sort((a, b) => a - b);
  const gzipped = zlib.gzipSync(bytes).length;
  const org = `${shape.users.toLocaleString('en')} users / ${shape.streams + shape.big} streams${args.includes('--subscribers') ? ', include_subscribers' : ''}`;
  process.stdout.write(`POST /register, all event types, ${org}${pin ? ' (server on CPU 0, client on CPU 1)' : ''}: `
    + `p50 ${times[Math.floor(n / 2)]!.toFixed(1)} ms, p99 ${times[Math.floor(n * 0.99)]!.toFixed(1)} ms over ${n} requests; `
    + `${(bytes.length / 1024).toFixed(0)} KB each (${(gzipped / 1024).toFixed(0)} KB gzipped); `
    + `server CPU ${cpu ? `${(cpu.total / n).toFixed(1)} ms per register` : 'unknown'}\n`);
}

/**
 * Above 1,000 users: the first through the action, the others copies of its rows (the user,
 * their personal recipient, their system groups) in bulk: the action tells everyone of each
 * new user, which made 10,000 take many minutes.
 */
async function addManyUsers(bench: import('./lib/bench-app.js').BenchApp, n: number): Promise<import('../src/store/rows.js').UserRow[]> {
  const { RecipientType } = await import('../src/lib/recipient-type.js');
  const { cacheSignal } = await import('../src/cache/signal.js');
  const db = bench.app.ctx.store.db;
  const [first] = await bench.addUsers(1, 'g', 'Member');
  const { id: _id, ...template } = first!;
  const groups = (await db.selectFrom('user_group_member').select('group_id').where('user_id', '=', first!.id).execute()).map((r) => r.group_id);
  for (let i = 1; i < n; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(i + 500, n); j++) {
      const email = `g${j}@bench.test`;
      rows.push({ ...template, email, email_lower: email, delivery_email: email, full_name: `Member ${j}`, api_key: `key${j}`.padEnd(32, 'x') });
    }
    const ids = (await db.insertInto('users').values(rows).returning('id').execute()).map((r) => r.id);
    await db.insertInto('recipient').values(ids.map((id) => ({ type: RecipientType.PERSONAL, type_id: id }))).execute();
    for (const g of groups) await db.insertInto('user_group_member').values(ids.map((user_id) => ({ group_id: g, user_id }))).execute();
    process.stderr.write(`  ${Math.min(i + 500, n)}/${n} users\r`);
  }
  process.stderr.write('\n');
  // Written behind the caches' back.
  cacheSignal.retire({ scopes: new Set(['users', 'realms', 'streams', 'subscriptions']) });
  return await db.selectFrom('users').selectAll().where('realm_id', '=', bench.realm.id).where('email', 'like', 'g%@bench.test').orderBy('id').execute();
}

/**
 * The answer as bytes, timed to its last byte: decoding megabytes of text in the client
 * (fetch's res.text()) was a third of the time measured at 10,000 users.
 */
function post(url: string, authorization: string, body: string): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
