/**
 * `npm run bench -- events [queues] [seconds] [rate]`: many concurrent long-polling queues
 * in one server process (1,000 users, queues spread evenly). Reports the server's memory
 * for the queues and their parked connections, then delivery latency: time from a
 * POST /messages answer to each parked poll's answer, at a steady rate of messages to
 * 100 streams of 10 members each (so each message reaches a hundredth of the queues), and
 * then for one message fanned out to every queue at once (the worst burst).
 * BENCH_TIMELINE=1 prints percentiles per second; BENCH_STALLS=1 has the server report
 * GC pauses and event-loop stalls over 20 ms.
 */
import { spawn } from 'node:child_process';
import { RawPoller } from './lib/raw-poller.js';
import readline from 'node:readline';
import perfHooks from 'node:perf_hooks';
import { profileArgs } from './lib/profile.js';

const QUEUES = Number(process.argv[2] === 'child' ? 0 : process.argv[2] ?? 10_000);
const USERS = 1000;

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { queuesOf } = await import('../src/events/manager.js');
  const bench = await startBenchApp('events', { heartbeatMs: 60_000 });
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
  const users = await bench.addUsers(USERS, 'e', 'Listener');
  await bench.addStream('broadcast', users);
  for (let g = 0; g < 100; g++) await bench.addStream(`group${g}`, users.slice(g * 10, g * 10 + 10));
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  process.stdout.write(`${JSON.stringify({ base, rssBefore, users: users.map((u) => ({ email: u.email, key: u.api_key })) })}\n`);
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (line === 'load') {
      // CPU time (all threads, GC helpers included) and the main thread's busy share.
      const cpu = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpuMicros: cpu.user + cpu.system, elu: perfHooks.performance.eventLoopUtilization() })}\n`);
      return;
    }
    global.gc?.();
    process.stdout.write(`${JSON.stringify({ rss: process.memoryUsage().rss, queues: queuesOf(app.ctx).size })}\n`);
  });
  process.on('SIGTERM', async () => {
    await bench.close();
    process.exit(0);
  });
} else {
  const seconds = Number(process.argv[3] ?? 10);
  const child = spawn(process.execPath, [...profileArgs(), '--expose-gc', '--import', 'tsx', import.meta.filename, 'child', String(QUEUES)], { stdio: ['pipe', 'pipe', 'inherit'] });
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
      const now = performance.now();
      for (const e of JSON.parse(r.body).events as Array<{ id: number; type: string; message?: { content: string } }>) {
        q.last = Math.max(q.last, e.id);
        if (e.type === 'message') arrivals.push([Number(e.message!.content.split(' ')[1]), now]);
      }
    }
  };
  process.stderr.write(`  parking ${QUEUES} long polls...\n`);
  const loops = queues.map((q) => pollLoop(q));
  await new Promise((r) => setTimeout(r, 3000));
  child.stdin!.write('rss\n');
  const mem = JSON.parse((await out.next()).value as string) as { rss: number; queues: number };
  process.stdout.write(`${mem.queues} queues with parked polls: server RSS ${(mem.rss / 1048576).toFixed(0)} MB, `
    + `${((mem.rss - info.rssBefore) / 1048576).toFixed(0)} MB more than before the queues (${((mem.rss - info.rssBefore) / mem.queues / 1024).toFixed(1)} KB per queue)\n`);
  const rate = Number(process.argv[4] ?? 100);
  const burstId = 1_000_000;
  let messages = 0;
  // Only deliveries of messages numbered in [from, to) count.
  const report = (label: string, from: number, to: number) => {
    const counted = arrivals.filter(([n]) => n >= from && n < to);
    const sorted = (since: Map<number, number>) => counted.map(([n, at]) => Math.max(0, at - (since.get(n) ?? at))).sort((a, b) => a - b);
    const pct = (l: number[], p: number) => (l[Math.floor(l.length * p)] ?? 0).toFixed(1);
    const fromAnswer = sorted(answered);
    const fromSend = sorted(sent);
    process.stdout.write(`${label}: ${new Set(counted.map(([n]) => n)).size} messages, ${fromAnswer.length} deliveries: latency from POST /messages answer to poll answer p50 ${pct(fromAnswer, 0.5)} ms, p99 ${pct(fromAnswer, 0.99)} ms; `
      + `from POST /messages sent: p50 ${pct(fromSend, 0.5)} ms, p99 ${pct(fromSend, 0.99)} ms\n`);
  };

  // Steady: `rate` messages a second, each to one of 100 ten-member streams. First a
  // warm-up that ramps from a fifth of the rate to all of it (the server's code paths get
  // optimised under load), which is not counted; a cold start at full rate builds a backlog
  // that at this load takes seconds to drain.
  const WARMUP_SECONDS = 10;
  process.stderr.write(`  ${WARMUP_SECONDS}s of warm-up ramping up to ${rate} messages/s, then ${seconds}s measured at ${rate}/s (${rate * QUEUES / 100} deliveries/s)...\n`);
  type Load = { cpuMicros: number; elu: import('node:perf_hooks').EventLoopUtilization };
  const load = async (): Promise<Load> => {
    child.stdin!.write('load\n');
    return JSON.parse((await out.next()).value as string) as Load;
  };
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
  // Burst: one message every queue hears.
  const burst = burstId;
  sent.set(burst, performance.now());
  const r = await call('POST', '/api/v1/messages', auths[0]!, `type=stream&to=broadcast&topic=bench&content=tick%20${burst}`);
  answered.set(burst, performance.now());
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  await new Promise((res) => setTimeout(res, 3000));
  running = false;
  report('one message to all queues at once', burstId, burstId + 1);
  child.kill('SIGTERM');
  for (const q of queues) q.client.close();
  void loops;
  process.exit(0);
}
