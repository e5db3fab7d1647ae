/**
 * `npm run bench -- cluster-cost [seconds] [setups]`: the CPU a server process spends per
 * operation, on PostgreSQL, in three setups (`setups`: any of a, b, c; default all):
 *   (a) one process, no Redis (the baseline: a cluster needs PostgreSQL, so like with like);
 *   (b) one cluster node (PostgreSQL + Redis);
 *   (c) two cluster nodes, CPU summed over both: sends on one, polls on the other.
 * Operations: a send to a 100-subscriber stream alone; the same send with each subscriber's
 * long poll parked and answered with the message, delivery counted in ("send + delivery");
 * a poll (what one delivery adds: the two runs' difference over 100); POST /register with
 * zulip-terminal's fetch types. Also Redis's and PostgreSQL's CPU per operation, Redis
 * memory per queue and per bus entry, and the load generator's own CPU.
 * Each node runs in its own process (bench/lib/child.ts). BENCH_PROFILE_RUN=<run label>
 * (e.g. 'send + delivery') writes a CPU profile of each node over that run's measured part
 * to BENCH_PROFILE_DIR (default: the temp dir); bench/lib/profile-summary.ts reads them.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { reportToParent, startChild } from './lib/child.js';
import { processCpuMs, findPostmaster, postgresCpu, postgresCpuBetween } from './lib/service-cpu.js';
import { Deliveries, Listener, Node, registerLoop, sendLoop, type Account } from './lib/cost-ops.js';
import { printCostTable, type Run } from './lib/cost-table.js';
import { profiledRun, profileOnSignal } from './lib/profile-window.js';

const SUBSCRIBERS = 100;
const SENDERS = Number(process.env.BENCH_SENDERS ?? 1);
const REGISTER_CONCURRENCY = 2;
const WARMUP_MS = 3000;

interface ChildOptions { role: 'seed' | 'join'; databaseUrl: string; redisUrl?: string; clusterName: string }
interface Seeded { base: string; subscribers?: Account[]; registrant?: Account }

if (process.argv[2] === 'child') {
  const opts = JSON.parse(process.argv[3]!) as ChildOptions;
  if (process.env.BENCH_PROFILE_RUN) profileOnSignal(process.env.BENCH_PROFILE_DIR ?? (await import('node:os')).tmpdir(), `${opts.clusterName}-${opts.role}`);
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { sendMessage } = await import('../src/actions/message-send.js');
  // No heartbeat within a run: a parked poll answers only with the benchmark's messages.
  const bench = await startBenchApp('ccost', { databaseUrl: opts.databaseUrl, redisUrl: opts.redisUrl, clusterName: opts.clusterName, heartbeatMs: 85_000 });
  let seeded: Omit<Seeded, 'base'> = {};
  if (opts.role === 'seed') {
    const { app, realm } = bench;
    const users = await bench.addUsers(1000, 'c', 'Member');
    await bench.addStream('subs100', users.slice(0, SUBSCRIBERS));
    // What the registering user's POST /register reads: 40 streams of 50 members, 10 of them its own, with a few messages each.
    const registrant = users[999]!;
    for (let s = 0; s < 40; s++) {
      const members = users.filter((_, i) => (i + s) % 20 === 0 || (i === 999 && s % 4 === 0));
      const stream = await bench.addStream({ name: `stream ${s}`, inviteOnly: s % 10 === 0 }, members);
      for (let m = 0; m < 3; m++) await sendMessage(app.ctx, realm, members[m]!, { to: { kind: 'stream', id: stream.id }, topic: `t${m}`, content: `hello ${m}`, client: 'bench' });
    }
    const account = (u: typeof registrant): Account => ({ id: u.id, email: u.email, key: u.api_key });
    seeded = { subscribers: users.slice(0, SUBSCRIBERS).map(account), registrant: account(registrant) };
  }
  const base = await bench.app.http.listen({ host: '127.0.0.1', port: 0 });
  reportToParent(bench, { base, ...seeded });
} else {
  const seconds = Number(process.argv[2] ?? 15);
  const setups = process.argv[3] ?? 'abc';
  const { findPgBin, startCluster } = await import('../test/helpers/pg.js');
  const { startRedis } = await import('../test/helpers/redis.js');
  const bin = findPgBin();
  if (!bin) throw new Error('no PostgreSQL binaries (PARLEY_PG_BIN)');
  process.stderr.write('starting a throwaway PostgreSQL and Redis...\n');
  const pgCluster = await startCluster(bin);
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url);
  const postmaster = findPostmaster(Number(new URL(pgCluster.url).port));
  const children: Array<import('node:child_process').ChildProcess> = [];
  const cleanup = async (): Promise<void> => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    redis.disconnect();
    await redisServer.stop();
    pgCluster.stop();
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

  const redisInfo = async (): Promise<{ memory: number; keys: number }> => {
    const info = await redis.info('memory');
    return { memory: Number(/used_memory:(\d+)/.exec(info)![1]), keys: await redis.dbsize() };
  };

  /** Runs `op` for a warm-up, then measured for `seconds`: CPU of every process involved per operation. */
  const measure = async (setup: string, label: string, nodes: Node[], op: (ms: number) => Promise<number>, measuring: () => void = () => undefined): Promise<Run> => {
    process.stderr.write(`  (${setup}) ${label}: warm-up...`);
    await op(WARMUP_MS);
    measuring();
    const profiling = profiledRun(label);
    if (profiling) for (const n of nodes) process.kill(n.pid, 'SIGUSR2');
    const nodeBefore = nodes.map((n) => processCpuMs(n.pid)!);
    const redisBefore = setup === 'a' ? undefined : processCpuMs(redisServer.pid()!);
    const pgBefore = postmaster ? postgresCpu(postmaster) : undefined;
    const own = process.cpuUsage();
    const t0 = performance.now();
    let done = false;
    let count = 0;
    const ticker = setInterval(() => process.stderr.write(`\r  (${setup}) ${label}: ${((performance.now() - t0) / 1000).toFixed(0)}/${seconds} s measured...   `), 1000);
    try {
      count = await op(seconds * 1000);
      done = true;
    } finally {
      clearInterval(ticker);
      if (!done) process.stderr.write('\n');
    }
    const wall = (performance.now() - t0) / 1000;
    const gen = process.cpuUsage(own);
    const nodeMs = nodes.map((n, i) => processCpuMs(n.pid)! - nodeBefore[i]!);
    if (profiling) {
      for (const n of nodes) process.kill(n.pid, 'SIGUSR2');
      // The profiles are written before the next run begins (its figures would carry the writing).
      await new Promise((r) => setTimeout(r, 2000));
    }
    const run: Run = {
      setup, label, ops: count, wall, nodeMs,
      redisMs: redisBefore === undefined ? undefined : processCpuMs(redisServer.pid()!)! - redisBefore,
      pgMs: pgBefore && postmaster ? postgresCpuBetween(pgBefore, postgresCpu(postmaster)) : undefined,
      genMs: (gen.user + gen.system) / 1000,
    };
    const per = (ms: number) => (ms / count).toFixed(2);
    process.stderr.write(`\r  (${setup}) ${label}: ${count} ops in ${wall.toFixed(1)} s; server ${per(nodeMs.reduce((a, b) => a + b, 0))} ms/op`
      + `${run.redisMs === undefined ? '' : `, redis ${per(run.redisMs)}`}${run.pgMs === undefined ? '' : `, postgres ${per(run.pgMs)}`}, load generator ${per(run.genMs)}\n`);
    return run;
  };

  /** 100 listeners on `pollNodes` (subscriber i on pollNodes[i % n]), sends on `sendNodes`. */
  const deliveryRun = async (setup: string, label: string, sendNodes: Node[], pollNodes: Node[], all: Node[], subscribers: Account[]): Promise<Run> => {
    const listeners = await Promise.all(subscribers.map((s, i) => Listener.register(pollNodes[i % pollNodes.length]!, s)));
    const deliveries = new Deliveries();
    for (const l of listeners) l.start(deliveries);
    let answersBefore = 0;
    let eventsBefore = 0;
    const run = await measure(setup, label, all, (ms) => sendLoop(sendNodes, subscribers.slice(0, SENDERS), ms, { to: deliveries, listeners: listeners.length }),
      () => void ([answersBefore, eventsBefore] = [deliveries.answers, deliveries.events]));
    run.eventsPerAnswer = (deliveries.events - eventsBefore) / (deliveries.answers - answersBefore);
    await Promise.all(listeners.map((l) => l.stop()));
    return run;
  };

  const runs: Run[] = [];
  const memory: Array<{ setup: string; perQueue: number; keysPerQueue: number; perEntry: number; entriesPerSend: number }> = [];
  let dbCount = 0;
  try {
    for (const setup of ['a', 'b', 'c'].filter((s) => setups.includes(s))) {
      process.stderr.write(`setup (${setup}): ${{ a: 'one process on PostgreSQL, no Redis', b: 'one cluster node, PostgreSQL + Redis', c: 'two cluster nodes, PostgreSQL + Redis' }[setup]}\n`);
      const db = `ccost_${setup}_${dbCount++}`;
      const admin = new pg.Client({ connectionString: pgCluster.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${db}`);
      await admin.end();
      const dbUrl = new URL(pgCluster.url);
      dbUrl.pathname = `/${db}`;
      await redis.flushall();
      const clusterName = `ccost-${setup}`;
      const opts = (role: ChildOptions['role']): string => JSON.stringify({ role, databaseUrl: dbUrl.toString(), redisUrl: setup === 'a' ? undefined : redisServer.url, clusterName });
      process.stderr.write('  seeding 1,000 users, a 100-subscriber stream and 40 more streams...\n');
      const first = await startChild<Seeded>(import.meta.filename, [opts('seed')]);
      children.push(first.child);
      const nodes = [new Node(first.setup.base, first.child.pid!)];
      if (setup === 'c') {
        const second = await startChild<Seeded>(import.meta.filename, [opts('join')]);
        children.push(second.child);
        nodes.push(new Node(second.setup.base, second.child.pid!));
      }
      const subscribers = first.setup.subscribers!;
      const bus = `${clusterName}:bus`;

      // Send alone: no queue hears it (in c, sends alternate between the nodes).
      const m0 = await redisInfo();
      const len0 = setup === 'a' ? 0 : await redis.xlen(bus);
      let sentAlone = 0;
      runs.push(await measure(setup, 'send alone', nodes, async (ms) => {
        const n = await sendLoop(nodes, subscribers.slice(0, SENDERS), ms);
        sentAlone += n;
        return n;
      }));
      const m1 = await redisInfo();
      const len1 = setup === 'a' ? 0 : await redis.xlen(bus);

      // Send + delivery: in c, sent on node 1 and polled on node 2, so every delivery crosses.
      runs.push(await deliveryRun(setup, 'send + delivery', [nodes[0]!], [nodes.at(-1)!], nodes, subscribers));
      if (setup === 'c') runs.push(await deliveryRun(setup, 'send + delivery, split', nodes, nodes, nodes, subscribers));

      // Register: in c, alternating between the nodes. Each one leaves a queue behind.
      const m2 = await redisInfo();
      let registered = 0;
      runs.push(await measure(setup, 'register', nodes, async (ms) => {
        const n = await registerLoop(nodes, first.setup.registrant!, REGISTER_CONCURRENCY, ms);
        registered += n;
        return n;
      }));
      const m3 = await redisInfo();
      if (setup !== 'a') {
        memory.push({
          setup, perQueue: (m3.memory - m2.memory) / registered, keysPerQueue: (m3.keys - m2.keys) / registered,
          perEntry: (m1.memory - m0.memory) / (len1 - len0), entriesPerSend: (len1 - len0) / sentAlone,
        });
      }
      for (const c of children.splice(0)) {
        c.kill('SIGTERM');
        await new Promise((r) => c.once('exit', r));
      }
      await Promise.all(nodes.map((n) => n.pool.close()));
    }
  } finally {
    await cleanup();
  }
  printCostTable(runs, SUBSCRIBERS, seconds, SENDERS);
  for (const m of memory) {
    process.stdout.write(`Redis memory (${m.setup}): ${(m.perQueue / 1024).toFixed(2)} KB per queue (${m.keysPerQueue.toFixed(2)} keys each), `
      + `${(m.perEntry / 1024).toFixed(2)} KB per bus entry (${m.entriesPerSend.toFixed(2)} entries per send to 100 subscribers)\n`);
  }
}
