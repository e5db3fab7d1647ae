/**
 * `npm run bench -- sim-users [options]` (--help lists them): simulated users against
 * Parley, after Mattermost's load-test-ng, reporting the largest number of concurrent users
 * at which its pass criteria hold (average ≤ 100 ms, p99 ≤ 2 s, errors ≤ 0.025 %).
 *
 * Without --url it starts the server in its own process (SQLite in a temporary directory,
 * or --database-url), seeded through actions; with --url it seeds through the API.
 * Users are added in steps (--step users at --ramp per second); each step is measured
 * after its ramp and a settling pause. The load generator runs in --workers processes and
 * reports its own CPU and event-loop delay: a step where that delay's p99 exceeds 50 ms
 * measured the generator, and says so instead of passing or failing the server.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import cliProgress from 'cli-progress';
import { cpuBetween, sampleCpu, type CpuSample } from './lib/proc-cpu.js';
import { profileArgs } from './lib/profile.js';
import { emptyHist, merge, quantile, mean } from './sim/histogram.js';
import { signInPhase } from './sim/login.js';
import { parseOptions, type SimOptions } from './sim/options.js';
import { CRITERIA, mergeOps, opTable, stepTable, windowFigures, figuresOf, type Second, type WindowFigures } from './sim/report.js';
import { seedThroughApi } from './sim/seed-api.js';
import type { SeedProgress, Shape, SimUser } from './sim/shape.js';
import type { ToWorker, WorkerMark, WorkerTick } from './sim/worker.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const opts = parseOptions(process.argv.slice(2));
const out = (s: string) => process.stdout.write(s);
const tty = process.stderr.isTTY;

/** A progress bar for seeding, one per stage. */
function seedProgress(): { on: (p: SeedProgress) => void; stop: () => void } {
  let bar: cliProgress.SingleBar | undefined;
  let stage = '';
  let lastLine = 0;
  return {
    on: (p) => {
      if (p.stage !== stage) {
        bar?.stop();
        stage = p.stage;
        bar = new cliProgress.SingleBar({ format: `  seeding ${p.stage.padEnd(8)} [{bar}] {value}/{total} {eta_formatted}`, stream: process.stderr, noTTYOutput: false }, cliProgress.Presets.shades_classic);
        bar.start(p.total, 0);
      }
      bar!.update(p.done);
      // Without a terminal, a line now and then instead.
      if (!tty && (Date.now() - lastLine > 5000 || p.done === p.total)) {
        lastLine = Date.now();
        process.stderr.write(`  seeding ${p.stage}: ${p.done}/${p.total}\n`);
      }
    },
    stop: () => bar?.stop(),
  };
}

async function startServer(shape: Shape, o: SimOptions): Promise<{ child: ChildProcess; base: string; users: SimUser[] }> {
  const args = [...profileArgs(), '--import', 'tsx', path.join(here, 'sim', 'server.ts'), JSON.stringify({ shape, databaseUrl: o.databaseUrl })];
  const child = o.taskset ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const progress = seedProgress();
  const lines = readline.createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return void process.stderr.write(`  [server] ${line}\n`);
      const m = JSON.parse(line) as { progress?: SeedProgress; base?: string; users?: SimUser[] };
      if (m.progress) progress.on(m.progress);
      else if (m.base) {
        progress.stop();
        resolve({ child, base: m.base, users: m.users! });
      }
    });
  });
}

const shape: Shape = { users: opts.users, streams: opts.streams, subs: opts.subs, history: opts.history, loginUsers: Math.min(opts.loginUsers, opts.users), prefix: `s${Date.now().toString(36)}-` };
const seedStarted = performance.now();
let server: ChildProcess | undefined;
let base: string;
let users: SimUser[];
if (opts.url) {
  if (!opts.adminEmail || !opts.adminPassword) throw new Error('--url needs --admin-email and --admin-password (an administrator who may create users)');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(opts.url).hostname)) throw new Error('--url must be on the loopback');
  base = opts.url.replace(/\/$/, '');
  const progress = seedProgress();
  users = await seedThroughApi(base, { email: opts.adminEmail, password: opts.adminPassword }, shape, progress.on);
  progress.stop();
} else {
  ({ child: server, base, users } = await startServer(shape, opts));
}
const serverPid = server?.pid ?? (process.env.BENCH_SERVER_PID ? Number(process.env.BENCH_SERVER_PID) : undefined);
out(`Seeded ${users.length} users, ${opts.streams} streams (each user in ${opts.subs}), ${opts.history} messages per stream in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s; server ${base}${server ? ` (pid ${server.pid}, ${opts.databaseUrl ? 'PostgreSQL' : 'SQLite'})` : ''}\n`);

// Password sign-in on its own, before the simulated users, at a steady arrival rate.
let signIn: ReturnType<typeof figuresOf> & { rate: number } | undefined;
if (opts.loginRate > 0 && users.some((u) => u.password)) {
  const total = Math.round(opts.loginRate * opts.loginSeconds);
  const bar = new cliProgress.SingleBar({ format: '  sign-in  [{bar}] {value}/{total}', stream: process.stderr }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  const r = await signInPhase(base, users, opts.loginRate, opts.loginSeconds, (n) => bar.update(n));
  bar.stop();
  signIn = { ...figuresOf('fetch_api_key (password)', { hist: r.hist, errors: r.errors }), rate: opts.loginRate };
}

// The load generator.
// Pinned, fork() runs `taskset -c 1 node --import tsx worker.ts` (the IPC channel passes through its exec).
const pinned = opts.taskset ? { execPath: 'taskset', execArgv: ['-c', '1', process.execPath, '--import', 'tsx'] } : { execArgv: ['--import', 'tsx'] };
if (opts.taskset) {
  // This process (ramp, report) shares the generator's core, not the server's.
  spawn('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
}
const workers = Array.from({ length: opts.workers }, () => fork(path.join(here, 'sim', 'worker.ts'), [], { ...pinned, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
const seconds: Second[] = [];
let pending: WorkerTick[] = [];
const marks = new Map<ChildProcess, (m: WorkerMark) => void>();
for (const w of workers) {
  w.on('message', (m: WorkerTick | WorkerMark) => {
    if (m.kind === 'mark') return void marks.get(w)?.(m);
    pending.push(m);
    if (pending.length < workers.length) return;
    // One second of the whole generator, once every worker has reported it.
    const s: Second = { at: Date.now(), ops: {}, delivery: emptyHist(), eldP99: 0, genCpuMs: 0, users: 0, ready: 0 };
    for (const t of pending) {
      for (const [op, o] of Object.entries(t.ops)) {
        const into = (s.ops[op] ??= { hist: emptyHist(), errors: 0 });
        merge(into.hist, o.hist);
        into.errors += o.errors;
      }
      merge(s.delivery, t.delivery);
      s.eldP99 = Math.max(s.eldP99, t.eld.p99);
      s.genCpuMs += t.cpuMs;
      s.users += t.users;
      s.ready += t.ready;
    }
    pending = [];
    seconds.push(s);
  });
  w.send({ cmd: 'start', base, client: opts.client, thinkMean: opts.thinkMean, thinkMin: opts.thinkMin, reactionWeight: opts.reactionWeight } satisfies ToWorker);
}
const markAll = () => Promise.all(workers.map((w) => new Promise<WorkerMark>((resolve) => {
  marks.set(w, resolve);
  w.send({ cmd: 'mark' } satisfies ToWorker);
})));

const steps = Math.ceil(opts.users / opts.step);
const settleSeconds = Math.min(10, opts.thinkMean);
// Each step: its ramp, the wait for its users' registers, settling, then the measured window.
const windowSeconds = opts.stepSeconds ?? Math.max(15, opts.duration / steps - opts.step / Math.max(opts.ramp, 0.1) - settleSeconds);
out(`${steps} steps of ${opts.step} users (ramp ${opts.ramp}/s), each measured for ${windowSeconds.toFixed(0)} s once its users have registered and ${settleSeconds} s more have passed; ${opts.workers} generator processes, ${opts.client} client\n`);

// The live display: the last five seconds.
const live = new cliProgress.SingleBar({
  format: '  {bar} {elapsed}s/{total}s | {users} users | {rps} req/s avg {avg} p99 {p99} ms | err {err} | deliv p99 {dp99} ms | gen ELD {eld} ms CPU {gcpu}% | server CPU {scpu}%',
  stream: process.stderr, barsize: 20, hideCursor: true,
}, cliProgress.Presets.shades_classic);
const totalSeconds = Math.round(steps * (windowSeconds + settleSeconds + opts.step / Math.max(opts.ramp, 0.1)));
const runStart = Date.now();
let lastServer: CpuSample | undefined = serverPid ? sampleCpu(serverPid) : undefined;
live.start(totalSeconds, 0, { users: 0, rps: 0, avg: '-', p99: '-', err: 0, dp99: '-', eld: '-', gcpu: '-', scpu: '-' });
const liveTimer = setInterval(() => {
  const recent = seconds.slice(-5);
  if (recent.length === 0) return;
  const ops = mergeOps(recent);
  const all = emptyHist();
  let err = 0;
  for (const [op, o] of ops) {
    err += o.errors;
    if (op !== 'events') merge(all, o.hist);
  }
  const now = serverPid ? sampleCpu(serverPid) : undefined;
  const scpu = cpuBetween(lastServer, now);
  lastServer = now;
  live.update(Math.min(totalSeconds, Math.round((Date.now() - runStart) / 1000)), {
    users: recent.at(-1)!.users, rps: (all.n / recent.length).toFixed(0), avg: mean(all).toFixed(1), p99: quantile(all, 0.99).toFixed(0), err,
    dp99: quantile(recent.reduce((h, s) => merge(h, s.delivery), emptyHist()), 0.99).toFixed(0),
    eld: Math.max(...recent.map((s) => s.eldP99)).toFixed(0), gcpu: ((recent.at(-1)!.genCpuMs / 1000) * 100).toFixed(0),
    scpu: scpu ? ((scpu.total / 1000) * 100).toFixed(0) : '-',
  });
}, 1000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const results: WindowFigures[] = [];
let next = 0;
for (let step = 1; step <= steps; step++) {
  const target = Math.min(opts.users, step * opts.step);
  // Ramp: a tenth of a second's worth of users at a time, spread over the workers.
  while (next < target) {
    const batch = users.slice(next, Math.min(target, next + Math.max(1, Math.round(opts.ramp / 10))));
    batch.forEach((u, k) => workers[(next + k) % workers.length]!.send({ cmd: 'add', users: [u] } satisfies ToWorker));
    next += batch.length;
    await sleep(100);
  }
  // Registers queued behind one another would spill into the measured window: wait until
  // every user of the step has started, then let the first actions spread out.
  const readyBy = Date.now() + 120_000;
  while ((seconds.at(-1)?.ready ?? 0) < target && Date.now() < readyBy) await sleep(250);
  await sleep(settleSeconds * 1000);
  const from = seconds.length;
  const t0 = Date.now();
  const stepEnd = t0 + windowSeconds * 1000;
  const server0 = serverPid ? sampleCpu(serverPid) : undefined;
  await markAll();
  await sleep(Math.max(1000, stepEnd - Date.now()));
  const gen = await markAll();
  const server1 = serverPid ? sampleCpu(serverPid) : undefined;
  const wall = Date.now() - t0;
  const window = seconds.slice(from);
  const cpu = cpuBetween(server0, server1);
  const f = windowFigures(window, {
    eldP99: Math.max(...gen.map((g) => g.eld.p99)), eldMax: Math.max(...gen.map((g) => g.eld.max)), cpuMs: gen.reduce((s, g) => s + g.cpuMs, 0),
  }, { cpuMs: cpu?.total, threads: cpu?.threads.slice(0, 4) ?? [] }, wall);
  f.users = target;
  results.push(f);
  if (wall < 10_000) process.stderr.write(`\n  step ${step}: only ${(wall / 1000).toFixed(0)} s measured; give more --duration\n`);
  if (!tty) process.stderr.write(`  ${target} users: avg ${f.all.avg.toFixed(1)} ms, p99 ${f.all.p99.toFixed(0)} ms, errors ${(f.errorRate * 100).toFixed(3)} %, gen ELD p99 ${f.genEldP99.toFixed(0)} ms\n`);
}
clearInterval(liveTimer);
live.stop();
for (const w of workers) w.send({ cmd: 'stop' } satisfies ToWorker);
server?.kill('SIGTERM');

// The figures.
out(`\nPer step (measured after each ramp; criteria: average ≤ ${CRITERIA.avgMs} ms, p99 ≤ ${CRITERIA.p99Ms} ms, errors ≤ ${CRITERIA.errorRate * 100} %; held long polls excluded from the latencies)\n`);
out(stepTable(results));
const whole = mergeOps(seconds);
const wholeSeconds = seconds.length;
out(`\nPer operation over the whole run (${wholeSeconds} s, ramps included: register, presence and the first view happen there)\n`);
out(opTable([...whole].map(([op, o]) => figuresOf(op, o)).sort((a, b) => b.count - a.count), wholeSeconds));
const top = results.at(-1)!;
out(`\nPer operation at ${top.users} users (${top.seconds.toFixed(0)} s measured)\n`);
out(opTable([...top.ops, top.all], top.seconds));
out(`\nDelivery latency at ${top.users} users (POST /messages sent → event parsed at each other subscriber's poll): ${top.delivery.count} deliveries, p50 ${top.delivery.p50.toFixed(1)} ms, p99 ${top.delivery.p99.toFixed(1)} ms, max ${top.delivery.max.toFixed(0)} ms\n`);
out(`Generator (${opts.workers} processes) at ${top.users} users: CPU ${top.genCpuPct.toFixed(0)} % of a core, event-loop delay p99 ${top.genEldP99.toFixed(1)} ms (max ${top.genEldMax.toFixed(0)} ms)\n`);
for (const r of results) {
  if (r.serverCpuPct === undefined) continue;
  // Issue 37's measure: server CPU per simulated user-second (0.2 ms is 5,000 users on a core).
  out(`  ${r.users} users: server ${(r.serverCpuPct * 10 / r.users).toFixed(3)} ms of CPU per user-second, generator ${(r.genCpuPct * 10 / r.users).toFixed(3)} ms${r.passes ? '' : ' (criteria failed)'}\n`);
}
if (top.serverCpuPct !== undefined) out(`Server at ${top.users} users: CPU ${top.serverCpuPct.toFixed(0)} % of a core; busiest threads ${top.serverThreads.map(([t, ms]) => `${t.split(':')[0]} ${((100 * ms) / (top.seconds * 1000)).toFixed(0)} %`).join(', ')}\n`);
if (signIn) out(`\nPassword sign-in at ${signIn.rate}/s (before the simulated users): ${signIn.count} sign-ins, avg ${signIn.avg.toFixed(0)} ms, p50 ${signIn.p50.toFixed(0)} ms, p99 ${signIn.p99.toFixed(0)} ms, ${signIn.errors} errors\n`);

const late = results.find((r) => r.generatorLate);
const passing = results.filter((r) => r.passes && !r.generatorLate && (!late || r.users < late.users));
if (late) {
  out(`\nThe generator's event loop was late (p99 ${late.genEldP99.toFixed(0)} ms > 50 ms) from ${late.users} users: that step measured the generator, so no capacity is reported`
    + `${passing.length ? ` (the criteria held up to ${passing.at(-1)!.users} users before it)` : ''}. Try more --workers.\n`);
} else if (passing.length === 0) {
  out('\nCapacity: the pass criteria failed at every step.\n');
} else {
  const first = results.find((r) => !r.passes);
  out(`\nCapacity: ${passing.at(-1)!.users} concurrent users pass the criteria${first ? ` (fail at ${first.users})` : ` (every step passed; try more --users)`}.\n`);
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ options: opts, signIn, steps: results }, null, 2));
await sleep(300);
process.exit(0);
