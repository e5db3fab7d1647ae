/**
 * `npm run bench -- fair-writer [rate] [rounds]`: does one organization's largest request
 * hold up everyone else's sends? A steady, open-loop stream of sends (`rate` per second,
 * default 200, each to a stream of 10 in the default organization) runs first alone, then
 * while users of a second organization each subscribe to the maximum number of streams
 * (LIST_LIMITS.streams) in one request, one after another (`rounds`, default 4). Prints
 * the sends' latency in both phases and how long each subscribe took. On SQLite, which
 * has one writer for every organization. The server runs in its own process.
 */
import http from 'node:http';
import { reportToParent, startChild } from './lib/child.js';
import { LIST_LIMITS } from '../src/lib/limits.js';

const HOST = 'bench.test';
const OTHER = `acme.${HOST}`;

interface Setup { base: string; senders: string[]; subscribers: string[]; streams: string[] }

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { transact } = await import('../src/actions/transaction.js');
  const { doCreateRealm } = await import('../src/actions/realm-create.js');
  const { doCreateUser } = await import('../src/actions/user-create.js');
  const { doCreateStream } = await import('../src/actions/stream-create.js');
  const rounds = Number(process.argv[3] ?? 4);
  const bench = await startBenchApp('fair-writer', { externalUrl: `http://${HOST}` });
  const senders = await bench.addUsers(10, 's', 'Sender');
  await bench.addStream('steady', senders);
  const ctx = bench.app.ctx;
  const { realm } = await transact(ctx, (tx) => doCreateRealm(tx, { stringId: 'acme', name: 'Acme', ownerEmail: 'boss@acme.test', ownerPassword: 'pw-123456', welcome: false }));
  const subscribers = [];
  for (let i = 0; i < rounds; i++) subscribers.push(await transact(ctx, (tx) => doCreateUser(tx, realm, { email: `big${i}@acme.test`, fullName: `Big ${i}` })));
  const streams: string[] = [];
  for (let i = 0; i < LIST_LIMITS.streams; i += 50) {
    await transact(ctx, async (tx) => {
      for (let j = i; j < Math.min(i + 50, LIST_LIMITS.streams); j++) streams.push((await doCreateStream(tx, realm, { name: `wide ${j}` })).name);
    });
  }
  const base = await bench.app.http.listen({ host: '127.0.0.1', port: 0 });
  const auth = (u: { email: string; api_key: string }) => 'Basic ' + Buffer.from(`${u.email}:${u.api_key}`).toString('base64');
  reportToParent(bench, { base, senders: senders.map(auth), subscribers: subscribers.map(auth), streams } satisfies Setup);
} else {
  const rate = Number(process.argv[2] ?? 200);
  const rounds = Number(process.argv[3] ?? 4);
  const { child, setup } = await startChild<Setup>(import.meta.filename, [String(rounds)]);
  const url = new URL(setup.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const call = (host: string, auth: string, method: string, path: string, body: string) => new Promise<{ ms: number; status: number }>((resolve) => {
    const t0 = performance.now();
    const req = http.request({
      host: url.hostname, port: url.port, method, path, agent,
      headers: { host, authorization: auth, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0 }));
    });
    req.on('error', () => resolve({ ms: performance.now() - t0, status: 0 }));
    req.end(body);
  });
  let n = 0;
  const send = () => {
    const i = n++;
    return call(HOST, setup.senders[i % setup.senders.length]!, 'POST', '/api/v1/messages',
      new URLSearchParams({ type: 'stream', to: 'steady', topic: `t${i % 5}`, content: `steady message ${i}` }).toString());
  };
  /** Sends at `rate` per second, whatever the answers' pace, until `done` resolves. */
  const steady = async (done: Promise<unknown>) => {
    const out: Array<Promise<{ ms: number; status: number }>> = [];
    let stop = false;
    void done.then(() => (stop = true));
    const t0 = performance.now();
    while (!stop) {
      const due = Math.floor(((performance.now() - t0) / 1000) * rate);
      while (out.length < due) out.push(send());
      await new Promise((r) => setTimeout(r, 1));
    }
    return Promise.all(out);
  };
  const stats = (label: string, xs: Array<{ ms: number; status: number }>) => {
    const ms = xs.map((x) => x.ms).sort((a, b) => a - b);
    const pct = (p: number) => (ms[Math.min(ms.length - 1, Math.floor(ms.length * p))] ?? 0).toFixed(1);
    const errors = xs.filter((x) => x.status !== 200).length;
    return `${label.padEnd(30)} ${String(xs.length).padStart(6)}  ${pct(0.5).padStart(7)}  ${pct(0.99).padStart(7)}  ${(ms.at(-1) ?? 0).toFixed(1).padStart(7)}  ${errors}`;
  };
  const subscribeBody = new URLSearchParams({ subscriptions: JSON.stringify(setup.streams.map((name) => ({ name }))) }).toString();
  process.stderr.write(`  warm-up, then ${rate} sends/s alone (4 s)...\n`);
  await steady(new Promise((r) => setTimeout(r, 1000)));
  const quiet = await steady(new Promise((r) => setTimeout(r, 4000)));
  process.stderr.write(`  ${rate} sends/s while ${rounds} users of another organization each subscribe to ${setup.streams.length} streams...\n`);
  const subscribes: Array<{ ms: number; status: number }> = [];
  const during = await steady((async () => {
    await new Promise((r) => setTimeout(r, 500));
    for (const auth of setup.subscribers) subscribes.push(await call(OTHER, auth, 'POST', '/api/v1/users/me/subscriptions', subscribeBody));
    await new Promise((r) => setTimeout(r, 500));
  })());
  child.kill('SIGTERM');
  agent.destroy();
  process.stdout.write(`${'sends'.padEnd(30)} ${'count'.padStart(6)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'max ms'.padStart(7)}  errors\n`);
  process.stdout.write(`${stats('alone', quiet)}\n${stats(`during ${setup.streams.length}-stream subscribes`, during)}\n`);
  process.stdout.write(`subscribes of ${setup.streams.length} streams: ${subscribes.map((s) => `${Math.round(s.ms)} ms${s.status === 200 ? '' : ` (HTTP ${s.status})`}`).join(', ')}\n`);
}
