/**
 * `npm run bench -- send [seconds] [case]`: POST /messages throughput and latency on SQLite,
 * to streams of 10, 100 and 1,000 subscribers and as private messages, with 32
 * concurrent senders (`case`: only the cases whose label contains it, e.g. `100 sub`).
 * The server runs in its own process. BENCH_NOTIFY=1: every subscriber is away and notified
 * of every stream message by email and push (sinks in this process take the mail and calls).
 * BENCH_METRICS=1: Prometheus metrics on, scraped every 5 s (bench-app.ts), to compare with off.
 * BENCH_IDLE=F: that share of the organization's people (never the senders, the last ones
 * first) soft-deactivated, as the daily job leaves those away for weeks
 * (src/actions/soft-deactivation.ts): they get no recipient row for these messages.
 */
import { runLoad, printStats, type LoadStats } from './lib/http-load.js';
import { reportToParent, startChild } from './lib/child.js';
import { cpuBetween, sampleCpu } from './lib/proc-cpu.js';
import { startNotifySinks } from './lib/notify-sinks.js';
import { softDeactivation } from '../src/store/repos/soft-deactivation.js';

const SENDERS = Number(process.env.BENCH_SENDERS ?? 32);

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const [smtpUrl, pushBouncerUrl] = process.argv.slice(3);
  const bench = await startBenchApp('send', smtpUrl ? { smtpUrl, pushBouncerUrl } : {});
  if (process.env.BENCH_STALLS) {
    const { PerformanceObserver, monitorEventLoopDelay } = await import('node:perf_hooks');
    const gcs: number[] = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push(e.duration); }).observe({ entryTypes: ['gc'] });
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    setInterval(() => {
      gcs.sort((a, b) => b - a);
      process.stderr.write(`  [server] loop delay p50 ${(h.percentile(50) / 1e6).toFixed(1)} p99 ${(h.percentile(99) / 1e6).toFixed(1)} max ${(h.max / 1e6).toFixed(1)} ms; gc ${gcs.length} pauses, ${gcs.reduce((a, b) => a + b, 0).toFixed(0)} ms, longest ${gcs.slice(0, 3).map((g) => g.toFixed(1)).join(', ')} ms\n`);
      h.reset();
      gcs.length = 0;
    }, 2000).unref();
  }
  const users = await bench.addUsers(1000, 'u', 'Bench User');
  for (const n of [10, 100, 1000]) await bench.addStream(`subs${n}`, users.slice(0, n));
  const { app } = bench;
  const idleShare = Number(process.env.BENCH_IDLE ?? 0);
  if (idleShare > 0) {
    const idle = users.slice(SENDERS).slice(-Math.round(idleShare * users.length)).map((u) => u.id);
    for (let i = 0; i < idle.length; i += 500) {
      await softDeactivation.markIdle(app.ctx.store.db, idle.slice(i, i + 500));
    }
    process.stderr.write(`  ${idle.length} of ${users.length} people soft-deactivated\n`);
  }
  if (smtpUrl) {
    // Away: nobody holds an event queue. Notified: stream email and push on, and a phone each.
    const db = app.ctx.store.db;
    await db.updateTable('users').set({ settings: JSON.stringify({ enable_stream_email_notifications: true, enable_stream_push_notifications: true }) }).where('is_bot', '=', 0).execute();
    const everyone = await db.selectFrom('users').select('id').where('is_bot', '=', 0).execute();
    await db.insertInto('push_device').values(everyone.map((u) => ({ user_id: u.id, kind: 2, token: `fcm-${u.id}`, ios_app_id: null, last_updated: 0 }))).execute();
    setInterval(async () => {
      const pending = await db.selectFrom('missed_message_notification').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      const outbox = await db.selectFrom('push_outbox').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      process.stderr.write(`  [notifications] pending ${String(pending?.n)}, push calls queued ${String(outbox?.n)}\n`);
    }, 2000).unref();
  }
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  reportToParent(bench, { base, senders: users.slice(0, SENDERS).map((u) => ({ id: u.id, email: u.email, key: u.api_key })) });
} else {
  const seconds = Number(process.argv[2] ?? 8);
  const sinks = process.env.BENCH_NOTIFY ? await startNotifySinks() : undefined;
  const { child, setup: { base, senders } } = await startChild<{ base: string; senders: Array<{ id: number; email: string; key: string }> }>(
    import.meta.filename, sinks ? [sinks.smtpUrl, sinks.bouncerUrl] : []);
  const auth = senders.map((s) => 'Basic ' + Buffer.from(`${s.email}:${s.key}`).toString('base64'));
  const body = (p: Record<string, string>) => new URLSearchParams(p).toString();
  const rows: LoadStats[] = [];
  const cases: Array<[string, (w: number, i: number) => Record<string, string>]> = [
    ['stream, 10 subscribers', (w, i) => ({ type: 'stream', to: 'subs10', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` })],
    ['stream, 100 subscribers', (w, i) => ({ type: 'stream', to: 'subs100', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` })],
    ['stream, 1000 subscribers', (w, i) => ({ type: 'stream', to: 'subs1000', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` })],
    ['private, 1:1', (w, i) => ({ type: 'private', to: `[${senders[(w + 1) % SENDERS]!.id}]`, content: `private ${i} from ${w}` })],
  ];
  for (const [label, params] of cases.filter(([l]) => l.includes(process.argv[3] ?? ''))) {
    process.stderr.write(`  ${label} (${seconds}s)...\n`);
    await runLoad('warm-up', { base, concurrency: SENDERS, durationMs: 1000, request: (w, i) => ({ method: 'POST', path: '/api/v1/messages', auth: auth[w]!, body: body(params(w, i)) }) });
    const before = sampleCpu(child.pid!);
    const own = process.cpuUsage();
    const stats = await runLoad(label, { base, concurrency: SENDERS, durationMs: seconds * 1000, request: (w, i) => ({ method: 'POST', path: '/api/v1/messages', auth: auth[w]!, body: body(params(w, i)) }) });
    const used = cpuBetween(before, sampleCpu(child.pid!));
    const gen = process.cpuUsage(own);
    rows.push(stats);
    // CPU per message holds steady where throughput swings with the machine's other load.
    if (used) {
      const per = (ms: number) => `${Math.round((ms * 1000) / stats.requests)} µs`;
      process.stderr.write(`  ${label}: server CPU ${per(used.total)}/message (${used.threads.slice(0, 3).map(([t, ms]) => `${t.split(':')[0]} ${per(ms)}`).join(', ')}); load generator ${per((gen.user + gen.system) / 1000)}\n`);
    }
  }
  child.kill('SIGTERM');
  printStats(rows);
  if (sinks) {
    process.stdout.write(`notifications delivered during the run: ${sinks.pushes} pushes, ${sinks.mails} emails (emails wait for the 120 s batching period)\n`);
    await sinks.close();
  }
}
