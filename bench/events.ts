/**
 * `npm run bench -- events [queues] [seconds] [rate] [--users N] [--bursts N]`: many
 * concurrent long-polling queues in one server process (`--users`, default 1,000, queues
 * spread evenly). Reports the server's memory for the queues and their parked connections
 * (and its RSS in all), then delivery latency: time from a POST /messages answer to each
 * parked poll's answer, at a steady rate of messages to 100 streams of 10 members each (so
 * each message reaches a hundredth of the queues; `seconds` or `rate` 0 skips it), and then
 * for one message to a stream of every user, fanned out to every queue at once (the worst
 * burst), `--bursts` times.
 * Issue 37's cases: `events 10000 0 0 --users 10000 --bursts 5` (one message to 10,000
 * subscribers with 10,000 parked polls) and `events 20000 0 0 --users 10000` (memory of
 * 20,000 parked polls).
 * The server runs pinned to CPU 0 and this generator to CPU 1 when `taskset` exists
 * (BENCH_TASKSET=0: not pinned). BENCH_TIMELINE=1 prints percentiles per second;
 * BENCH_STALLS=1 has the server report GC pauses and event-loop stalls over 20 ms;
 * BENCH_PROFILE_BURSTS=<dir> writes a CPU profile of the server during the bursts there.
 */
import { execFileSync, spawn } from 'node:child_process';
import { RawPoller } from './lib/raw-poller.js';
import readline from 'node:readline';
import perfHooks from 'node:perf_hooks';
import { profileArgs } from './lib/profile.js';
import type { UserRow } from '../src/store/rows.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(argv[i + 1]);
};
const positional = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
const QUEUES = Number(positional[0] === 'child' ? positional[1] : positional[0] ?? 10_000);
const USERS = positional[0] === 'child' ? Number(positional[2]) : flag('users', 1000);

if (positional[0] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { queuesOf } = await import('../src/events/manager.js');
  const bench = await startBenchApp('events', { heartbeatMs: 60_000 });
  if (process.env.BENCH_PROFILE_BURSTS) (await import('./lib/profile-window.js')).profileOnSignal(process.env.BENCH_PROFILE_BURSTS, 'events-bursts');
  if (process.env.BENCH_STALLS) {
    // Where the tail comes from: garbage-collection pauses and event-loop stalls over 20 ms.
    const { PerformanceObserver } = await import('node:perf_hooks');
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.duration > 20) process.stderr.write(`  [server] gc kind ${(e as any).detail?.kind} ${e.duration.toFixed(0)} ms\n`);
    }).observe({ entryTypes: ['gc'] });
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      if (now - last > 30) process.stderr.write(`  [server] event loop stalled ${(now - last - 10).toFixed(0)} ms\n`);
      last = now;
    }, 10).unref();
  }
  const { app } = bench;
  const users = USERS <= 1000 ? await bench.addUsers(USERS, 'e', 'Listener') : await copiedUsers(bench, USERS);
  await bench.addStream('broadcast', users);
  for (let g = 0; g < 100; g++) await bench.addStream(`group${g}`, users.slice((g * 10) % USERS, (g * 10) % USERS + 10));
  // Where a burst's time goes, on the server's clock: the POST's arrival, the fan-out to the
  // queues (start and end), and the POST's answer written.
  const trace = { posted: 0, fanoutFrom: 0, fanoutTo: 0, answered: 0 };
  app.http.server.on('request', (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/api/v1/messages')) return;
    trace.posted = performance.now();
    trace.fanoutFrom = trace.fanoutTo = 0;
    res.once('finish', () => { trace.answered = performance.now(); });
  });
  const manager = queuesOf(app.ctx);
  const deliver = manager.deliver.bind(manager);
  manager.deliver = (env, place) => {
    const whole = env.userIds.length >= USERS;
    if (whole) trace.fanoutFrom = performance.now();
    deliver(env, place);
    if (whole) trace.fanoutTo = performance.now();
  };
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  process.stdout.write(`${JSON.stringify({ base, rssBefore, users: users.map((u) => ({ email: u.email, key: u.api_key })) })}\n`);
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', async (line) => {
    if (line === 'load') {
      // CPU time (all threads, GC helpers included) and the main thread's busy share.
      const cpu = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpuMicros: cpu.user + cpu.system, elu: perfHooks.performance.eventLoopUtilization(), trace })}\n`);
      return;
    }
    global.gc?.();
    const m = process.memoryUsage();
    // Each worker thread (the SQLite writer among them) has a V8 heap of its own; Linux only.
    const threads = await import('node:fs').then((fs) => fs.readdirSync('/proc/self/task').length, () => 0).catch(() => 0);
    process.stdout.write(`${JSON.stringify({ rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, threads, queues: queuesOf(app.ctx).size })}\n`);
  });
  process.on('SIGTERM', async () => {
    await bench.close();
    process.exit(0);
  });
} else {
  const seconds = Number(positional[1] ?? 10);
  const rate = Number(positional[2] ?? 100);
  const bursts = flag('bursts', 1);
  // Every poll holds a socket at each end; the generator and the server each need more descriptors than the usual 1,024 (or 20,000).
  raiseFileLimit(QUEUES + 1000);
  const pinned = pin();
  const nodeArgs = [...profileArgs(), '--expose-gc', '--import', 'tsx', import.meta.filename, 'child', String(QUEUES), String(USERS)];
  const child = pinned
    ? spawn('taskset', ['-c', '0', process.execPath, ...nodeArgs], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.execPath, nodeArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
  // The child's stdout carries JSON lines; anything else (V8's --trace-gc, say) goes to stderr.
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const out = {
    next: async (): Promise<IteratorResult<string>> => {
      for (;;) {
        const r = await lines.next();
        if (r.done || r.value.startsWith('{')) return r;
        process.stderr.write(`  [server] ${r.value}\n`);
      }
    },
  };
  const info = JSON.parse((await out.next()).value as string) as { base: string; rssBefore: number; users: Array<{ email: string; key: string }> };
  process.stderr.write(`  server ${pinned ? 'pinned to CPU 0, generator to CPU 1' : 'not pinned'}\n`);
  // Registrations and sends go through fetch; each queue polls over its own socket
  // (bench/lib/raw-poller.ts) so that the load generator stays cheaper than the server.
  const call = async (method: 'GET' | 'POST', p: string, auth: string, body?: string): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${info.base}${p}`, { method, body, headers: { authorization: auth, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } });
    return { status: res.status, json: await res.json() };
  };
  const server = new URL(info.base);
  const auths = info.users.map((u) => 'Basic ' + Buffer.from(`${u.email}:${u.key}`).toString('base64'));
  process.stderr.write(`  registering ${QUEUES} queues...\n`);
  type Listener = { auth: string; id: string; last: number; client: RawPoller };
  const queues: Listener[] = [];
  for (let i = 0; i < QUEUES; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, QUEUES - i) }, async (_, j) => {
      const auth = auths[(i + j) % USERS]!;
      const r = await call('POST', '/api/v1/register', auth, 'event_types=%5B%22message%22%5D&fetch_event_types=%5B%22message%22%5D');
      queues.push({ auth, id: r.json.queue_id, last: -1, client: new RawPoller(server.hostname, Number(server.port), server.host) });
    }));
  }
  // Deliveries can reach a poll before the sender has its answer (events go out at
  // COMMIT, the answer after): those count as zero. Time from sending the POST is
  // reported too, as the upper bound that includes the send itself.
  const arrivals: Array<[number, number]> = [];
  const answered = new Map<number, number>();
  const sent = new Map<number, number>();
  let running = true;
  const pollLoop = async (q: Listener) => {
    while (running) {
      const r = await q.client.get(`/api/v1/events?queue_id=${encodeURIComponent(q.id)}&last_event_id=${q.last}`, q.auth).catch(() => undefined);
      if (r?.status !== 200) return; // closed at the end of the run
      // The time the answer was read, not the time this continuation ran behind others.
      for (const e of JSON.parse(r.body).events as Array<{ id: number; type: string; message?: { content: string } }>) {
        q.last = Math.max(q.last, e.id);
        if (e.type === 'message') arrivals.push([Number(e.message!.content.split(' ')[1]), r.at]);
      }
    }
  };
  process.stderr.write(`  parking ${QUEUES} long polls...\n`);
  const loops = queues.map((q) => pollLoop(q));
  await new Promise((r) => setTimeout(r, 3000 + QUEUES / 10));
  child.stdin!.write('rss\n');
  const mem = JSON.parse((await out.next()).value as string) as { rss: number; heapTotal: number; heapUsed: number; external: number; threads: number; queues: number };
  process.stdout.write(`${mem.queues} queues with parked polls (${USERS} users): server RSS ${(mem.rss / 1048576).toFixed(0)} MB in all, `
    + `${((mem.rss - info.rssBefore) / 1048576).toFixed(0)} MB more than before the queues (${((mem.rss - info.rssBefore) / mem.queues / 1024).toFixed(1)} KB per queue); `
    + `main thread's V8 heap ${(mem.heapTotal / 1048576).toFixed(0)} MB (${(mem.heapUsed / 1048576).toFixed(0)} MB in use), external ${(mem.external / 1048576).toFixed(0)} MB, ${mem.threads} threads\n`);
  const burstId = 1_000_000;
  let messages = 0;
  const pct = (l: number[], p: number) => (l[Math.min(l.length - 1, Math.floor(l.length * p))] ?? 0).toFixed(1);
  // Only deliveries of messages numbered in [from, to) count.
  const report = (label: string, from: number, to: number) => {
    const counted = arrivals.filter(([n]) => n >= from && n < to);
    const sorted = (since: Map<number, number>) => counted.map(([n, at]) => Math.max(0, at - (since.get(n) ?? at))).sort((a, b) => a - b);
    const fromAnswer = sorted(answered);
    const fromSend = sorted(sent);
    process.stdout.write(`${label}: ${new Set(counted.map(([n]) => n)).size} messages, ${fromAnswer.length} deliveries: latency from POST /messages answer to poll answer p50 ${pct(fromAnswer, 0.5)} ms, p99 ${pct(fromAnswer, 0.99)} ms; `
      + `from POST /messages sent: p50 ${pct(fromSend, 0.5)} ms, p99 ${pct(fromSend, 0.99)} ms\n`);
  };
  type Load = { cpuMicros: number; elu: import('node:perf_hooks').EventLoopUtilization; trace: { posted: number; fanoutFrom: number; fanoutTo: number; answered: number } };
  const load = async (): Promise<Load> => {
    child.stdin!.write('load\n');
    return JSON.parse((await out.next()).value as string) as Load;
  };

  if (seconds > 0 && rate > 0) {
    // Steady: `rate` messages a second, each to one of 100 ten-member streams. First a
    // warm-up that ramps from a fifth of the rate to all of it (the server's code paths get
    // optimised under load), which is not counted; a cold start at full rate builds a backlog
    // that at this load takes seconds to drain.
    const WARMUP_SECONDS = 10;
    process.stderr.write(`  ${WARMUP_SECONDS}s of warm-up ramping up to ${rate} messages/s, then ${seconds}s measured at ${rate}/s (${rate * QUEUES / 100} deliveries/s)...\n`);
    let loadFrom: Promise<Load> | undefined;
    const start = performance.now();
    const inflight: Array<Promise<void>> = [];
    let measuredFrom = -1;
    let due = start;
    while (performance.now() - start < (WARMUP_SECONDS + seconds) * 1000) {
      const n = messages++;
      const elapsed = (due - start) / 1000;
      if (elapsed >= WARMUP_SECONDS && measuredFrom < 0) {
        measuredFrom = n;
        loadFrom = load();
      }
      due += 1000 / (rate * Math.min(1, 0.2 + (0.8 * elapsed) / WARMUP_SECONDS));
      const wait = due - performance.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      sent.set(n, performance.now());
      inflight.push(call('POST', '/api/v1/messages', auths[(n * 10) % USERS]!, `type=stream&to=group${n % 100}&topic=bench&content=tick%20${n}`).then((r) => {
        if (r.status !== 200) throw new Error(JSON.stringify(r.json));
        answered.set(n, performance.now());
      }));
    }
    const loadTo = await load();
    await Promise.all(inflight);
    await new Promise((res) => setTimeout(res, 500));
    report(`steady ${rate}/s to 10-member streams`, measuredFrom, burstId);
    {
      // The figure that does not swing with how close to saturation a run lands.
      const a = await loadFrom!;
      const deliveries = (messages - measuredFrom) * (QUEUES / 100);
      const busy = (loadTo.elu.active - a.elu.active) / (loadTo.elu.active + loadTo.elu.idle - a.elu.active - a.elu.idle);
      process.stdout.write(`  server while measured: ${((loadTo.cpuMicros - a.cpuMicros) / deliveries).toFixed(1)} µs of CPU per delivery (all threads), main thread busy ${(busy * 100).toFixed(0)} %\n`);
    }
    if (process.env.BENCH_TIMELINE) {
      const bySecond = new Map<number, number[]>();
      // BENCH_TIMELINE=1: percentiles per second of sending, warm-up included.
      for (const [n, at] of arrivals) if (n < burstId) {
        const s = Math.floor((sent.get(n)! - start) / 1000);
        bySecond.set(s, [...(bySecond.get(s) ?? []), at - sent.get(n)!]);
      }
      for (const [s, l] of [...bySecond].sort((a, b) => a[0] - b[0])) {
        l.sort((a, b) => a - b);
        process.stdout.write(`  second ${s}: p50 ${l[Math.floor(l.length / 2)]!.toFixed(1)} p99 ${l[Math.floor(l.length * 0.99)]!.toFixed(1)} max ${l.at(-1)!.toFixed(1)}\n`);
      }
    }
  }
  // Bursts: one message every queue hears, to the stream of every user. Each is timed from
  // the POST sent to its answer and to the last poll answered, with the server's CPU from
  // just before the POST until every poll has its answer (or 5 s have passed).
  const burstLatencies: number[] = [];
  if (process.env.BENCH_PROFILE_BURSTS) child.kill('SIGUSR2');
  for (let b = 0; b < bursts; b++) {
    await new Promise((res) => setTimeout(res, 1000)); // every poll parked again
    const id = burstId + b;
    const cpuFrom = await load();
    const generatorFrom = process.cpuUsage();
    const before = arrivals.length;
    sent.set(id, performance.now());
    const r = await call('POST', '/api/v1/messages', auths[0]!, `type=stream&to=broadcast&topic=bench&content=tick%20${id}`);
    answered.set(id, performance.now());
    if (r.status !== 200) throw new Error(JSON.stringify(r.json));
    const deadline = performance.now() + 5000;
    while (arrivals.length - before < QUEUES && performance.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    const cpuTo = await load();
    const generator = process.cpuUsage(generatorFrom);
    const got = arrivals.slice(before).filter(([n]) => n === id).map(([, at]) => at - sent.get(id)!).sort((x, y) => x - y);
    burstLatencies.push(...got);
    const busy = (cpuTo.elu.active - cpuFrom.elu.active) / (cpuTo.elu.active + cpuTo.elu.idle - cpuFrom.elu.active - cpuFrom.elu.idle);
    process.stdout.write(`burst ${b + 1}: ${got.length}/${QUEUES} polls answered; from the POST sent: its answer ${(answered.get(id)! - sent.get(id)!).toFixed(1)} ms, `
      + `polls p50 ${pct(got, 0.5)} ms, p99 ${pct(got, 0.99)} ms, last ${(got.at(-1) ?? NaN).toFixed(1)} ms; `
      + `server CPU ${((cpuTo.cpuMicros - cpuFrom.cpuMicros) / 1000).toFixed(0)} ms (${((cpuTo.cpuMicros - cpuFrom.cpuMicros) / Math.max(1, got.length)).toFixed(1)} µs per poll answered, all threads; main thread busy ${(busy * 100).toFixed(0)} % of the window), `
      + `generator CPU ${((generator.user + generator.system) / 1000).toFixed(0)} ms\n`);
    const t = cpuTo.trace;
    const at = (x: number) => (x > 0 ? `${(x - t.posted).toFixed(1)} ms` : 'n/a');
    process.stdout.write(`  on the server's clock from the POST's arrival: fan-out to the queues from ${at(t.fanoutFrom)} to ${at(t.fanoutTo)}, the POST answered at ${at(t.answered)}\n`);
  }
  running = false;
  if (process.env.BENCH_PROFILE_BURSTS) {
    child.kill('SIGUSR2');
    await new Promise((res) => setTimeout(res, 2000)); // the profile written
  }
  if (bursts > 0) {
    burstLatencies.sort((x, y) => x - y);
    process.stdout.write(`one message to all ${QUEUES} queues, ${bursts} bursts: from the POST sent p50 ${pct(burstLatencies, 0.5)} ms, p99 ${pct(burstLatencies, 0.99)} ms\n`);
    report('  (from the POST answer, all bursts)', burstId, burstId + bursts);
  }
  child.kill('SIGTERM');
  for (const q of queues) q.client.close();
  void loops;
  process.exit(0);
}

/**
 * Beyond 1,000, members copy the first one's row: creating 10,000 through the action (a
 * group each, an event to everyone already there) takes many minutes and changes nothing
 * measured here. As in bench/presence.ts.
 */
async function copiedUsers(bench: import('./lib/bench-app.js').BenchApp, n: number): Promise<UserRow[]> {
  const [first] = await bench.addUsers(1, 'e', 'Listener');
  const db = bench.app.ctx.store.db;
  const { id: _id, ...template } = first!;
  for (let i = 1; i < n; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(i + 500, n); j++) {
      const email = `e${j}@bench.test`;
      rows.push({ ...template, email, email_lower: email, delivery_email: email, full_name: `Listener ${j}`, api_key: `key${j}`.padEnd(32, 'x') });
    }
    await db.insertInto('users').values(rows).execute();
  }
  const all = await db.selectFrom('users').selectAll().where('realm_id', '=', bench.realm.id).where('email', 'like', 'e%@bench.test').orderBy('id').execute();
  return all as UserRow[];
}

/** Server on CPU 0, this generator on CPU 1, when taskset exists and there are two CPUs (BENCH_TASKSET=0: neither pinned). */
function pin(): boolean {
  if (process.env.BENCH_TASKSET === '0') return false;
  try {
    execFileSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Raises this process's open-file limit (inherited by the server child) where allowed; else
 * says so. A container whose hard limit is 20,000 holds at most about 19,900 parked polls.
 */
function raiseFileLimit(atLeast: number): void {
  if (atLeast <= 15_000) return;
  const n = String(atLeast);
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${n}:${n}`], { stdio: 'ignore' });
  } catch {
    const hard = execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim();
    process.stderr.write(`  could not raise the open-file limit to ${n} (hard limit ${hard}): polls beyond it will fail\n`);
  }
}
