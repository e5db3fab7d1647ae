/**
 * `npm run bench -- metrics-cost`: what Prometheus metrics add per request and per send,
 * measured directly (the send benchmark's throughput swings more than the difference on a
 * shared machine): the request counter and histogram, the store's per-send and per-batch
 * hooks, a counted rate-limit check, and one whole scrape. Compare with `npm run bench --
 * send` (server CPU per message) and its BENCH_METRICS=1 run.
 */
import { startBenchApp } from './lib/bench-app.js';

const bench = await startBenchApp('metrics-cost', { metricsToken: 'bench-metrics-token-0123456789', rateLimiting: false });
const metrics = bench.app.ctx.metrics!;
const ROUTES = ['/api/v1/messages', '/api/v1/messages/:message_id', '/api/v1/users/:user_id', '/api/v1/events', '/api/v1/register'];

// The store's hooks as startMetrics installed them, called as the writer calls them.
const inner = bench.app.ctx.store.writer?.observer;
if (!inner) throw new Error('metrics-cost runs on an SQLite file store');

function nsPer(label: string, n: number, fn: (i: number) => void): number {
  for (let i = 0; i < n / 10; i++) fn(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / n;
  process.stdout.write(`${label.padEnd(52)} ${ns.toFixed(0).padStart(6)} ns\n`);
  return ns;
}

const N = 2_000_000;
const request = nsPer('request: counter + histogram (5 routes, 2 statuses)', N, (i) => metrics.request(i & 1 ? 'GET' : 'POST', ROUTES[i % 5], i % 7 === 0 ? 400 : 200, 0.004));
const send = nsPer('send: its wait observed', N, () => inner.sendWait(0.003));
const batch = nsPer('batch: its size and stored count', N, () => inner.batch(8, 8));
let scrapeMs = 0;
for (let i = 0; i < 20; i++) {
  const t0 = performance.now();
  await metrics.registry.metrics();
  scrapeMs += (performance.now() - t0) / 20;
}
process.stdout.write(`${'one scrape (whole registry)'.padEnd(52)} ${scrapeMs.toFixed(2).padStart(6)} ms\n`);
const perSend = request + send + batch / 4;
process.stdout.write(`per API send (request + send + a quarter of a batch): ${(perSend / 1000).toFixed(2)} µs; `
  + `at 300 µs of server CPU per message (bench send, 100 subscribers) that is ${((perSend / 1000 / 300) * 100).toFixed(2)} %; `
  + `a scrape every 15 s at 2,000 sends/s costs ${((scrapeMs / 15_000) * 100).toFixed(3)} % of one core\n`);
await bench.close();
