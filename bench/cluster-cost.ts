/**
 * `npm run bench -- cluster-cost [seconds] [setups] [rounds]`: the CPU a server process
 * spends per operation, on PostgreSQL, in three setups (`setups`: any of a, b, c; default
 * all), each operation measured for `seconds` per setup in `rounds` windows (default 6):
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
 * BENCH_OPS=<labels, comma-separated> measures only those operations (e.g. 'send alone,register');
 * BENCH_SENDERS=<n> sends n at a time (default 1: each poll then answers with one event).
 * BENCH_CLUSTER_TRIAL=autopipeline,lazy-checkpoints tries fixes on the nodes (bench/lib/cluster-trials.ts).
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { reportToParent, startChild } from './lib/child.js';
import { processCpuMs, findPostmaster, postgresCpu, postgresCpuBetween } from './lib/service-cpu.js';
import { Deliveries, Listener, Node, registerLoop, sendLoop, type Account } from './lib/cost-ops.js';
import { addRun, printCostTable, type Run } from './lib/cost-table.js';
import { profiledRun, profileOnSignal } from './lib/profile-window.js';

const SUBSCRIBERS = 100;
const SENDERS = Number(process.env.BENCH_SENDERS ?? 1);
const REGISTER_CONCURRENCY = 2;
const WARMUP_MS = 3000;
const ROUNDS = Number(process.argv[4] ?? 6);

interface ChildOptions { role: 'seed' | 'join'; databaseUrl: string; redisUrl?: string; clusterName: string }
interface Seeded { base: string; subscribers?: Account[]; registrant?: Account }
interface Setup { name: 'a' | 'b' | 'c'; nodes: Node[]; subscribers: Account[]; registrant: Account; bus: string }

if (process.argv[2] === 'child') {
  const opts = JSON.parse(process.argv[3]!) as ChildOptions;
  if (process.env.BENCH_PROFILE_RUN) profileOnSignal(process.env.BENCH_PROFILE_DIR ?? (await import('node:os')).tmpdir(), `${opts.clusterName}-${opts.role}`);
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { sendMessage } = await import('../src/actions/message-send.js');
  // No heartbeat within a run: a parked poll answers only with the benchmark's messages.
  const bench = await startBenchApp('ccost', { databaseUrl: opts.databaseUrl, redisUrl: opts.redisUrl, clusterName: opts.clusterName, heartbeatMs: 85_000 });
  if (process.env.BENCH_CLUSTER_TRIAL) (await import('./lib/cluster-trials.js')).applyClusterTrials(bench.app.ctx, process.env.BENCH_CLUSTER_TRIAL.split(','));
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
  const only = process.argv[3] ?? 'abc';
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

  /**
   * One measured window of `op` on one setup, after a warm-up: the CPU of every process
   * involved, and what Redis gained (memory, keys, bus entries) over warm-up and window.
   */
  const window = async (setup: Setup, label: string, op: (ms: number) => Promise<number>, opts: { warmMs: number; ms: number; profile: boolean; measuring?: () => void }): Promise<Run> => {
    const { nodes } = setup;
    process.stderr.write(`  (${setup.name}) ${label}: warm-up...`);
    const redisAt = async () => setup.name === 'a' ? { memory: 0, keys: 0, entries: 0 } : { ...await redisInfo(), entries: await redis.xlen(setup.bus) };
    const r0 = await redisAt();
    let all = await op(opts.warmMs);
    opts.measuring?.();
    if (opts.profile) for (const n of nodes) process.kill(n.pid, 'SIGUSR2');
    const nodeBefore = nodes.map((n) => processCpuMs(n.pid)!);
    const redisBefore = setup.name === 'a' ? undefined : processCpuMs(redisServer.pid()!);
    const pgBefore = postmaster ? postgresCpu(postmaster) : undefined;
    const own = process.cpuUsage();
    const t0 = performance.now();
    const ticker = setInterval(() => process.stderr.write(`\r  (${setup.name}) ${label}: ${((performance.now() - t0) / 1000).toFixed(0)}/${(opts.ms / 1000).toFixed(0)} s measured...   `), 1000);
    let count: number;
    try {
      count = await op(opts.ms);
    } finally {
      clearInterval(ticker);
    }
    const wall = (performance.now() - t0) / 1000;
    const gen = process.cpuUsage(own);
    const nodeMs = nodes.map((n, i) => processCpuMs(n.pid)! - nodeBefore[i]!);
    const redisMs = redisBefore === undefined ? undefined : processCpuMs(redisServer.pid()!)! - redisBefore;
    const pgMs = pgBefore && postmaster ? postgresCpuBetween(pgBefore, postgresCpu(postmaster)) : undefined;
    all += count;
    const r1 = await redisAt();
    if (opts.profile) {
      for (const n of nodes) process.kill(n.pid, 'SIGUSR2');
      // The profiles are written before the next window begins (its figures would carry the writing).
      await new Promise((r) => setTimeout(r, 2000));
    }
    const run: Run = {
      setup: setup.name, label, ops: count, wall, nodeMs, redisMs, pgMs, genMs: (gen.user + gen.system) / 1000,
      redis: { opsWithWarmUp: all, memory: r1.memory - r0.memory, keys: r1.keys - r0.keys, entries: r1.entries - r0.entries },
    };
    const per = (ms: number) => (ms / count).toFixed(2);
    process.stderr.write(`\r  (${setup.name}) ${label}: ${count} ops in ${wall.toFixed(1)} s; server ${per(nodeMs.reduce((a, b) => a + b, 0))} ms/op`
      + `${redisMs === undefined ? '' : `, redis ${per(redisMs)}`}${pgMs === undefined ? '' : `, postgres ${per(pgMs)}`}, load generator ${per(run.genMs)}\n`);
    return run;
  };

  /**
   * The operations, each measured in `ROUNDS` windows per setup taken in turn (a, b, c, a,
   * b, c...): the machine's other load drifts over minutes, and taking the setups in turn
   * spreads it over all of them instead of loading one setup's figures.
   */
  interface Operation<S> {
    label: string;
    only?: string;
    /** Before the first window on a setup (listeners), and after its last. */
    begin?: (s: Setup) => Promise<S>;
    end?: (s: Setup, state: S) => Promise<void>;
    op: (s: Setup, state: S) => (ms: number) => Promise<number>;
    measuring?: (state: S) => () => void;
    after?: (run: Run, state: S) => void;
  }
  type Delivery = { listeners: Listener[]; deliveries: Deliveries; answers: number; events: number; before: [number, number] };
  /** 100 listeners on `pollNodes` (subscriber i on pollNodes[i % n]), sends on `sendNodes`. */
  const deliveryOp = (label: string, only: string | undefined, sendNodes: (s: Setup) => Node[], pollNodes: (s: Setup) => Node[]): Operation<Delivery> => ({
    label, only,
    begin: async (s) => {
      const listeners = await Promise.all(s.subscribers.map((a, i) => Listener.register(pollNodes(s)[i % pollNodes(s).length]!, a)));
      const deliveries = new Deliveries();
      for (const l of listeners) l.start(deliveries);
      return { listeners, deliveries, answers: 0, events: 0, before: [0, 0] };
    },
    end: async (_s, d) => void await Promise.all(d.listeners.map((l) => l.stop())),
    op: (s, d) => (ms) => sendLoop(sendNodes(s), s.subscribers.slice(0, SENDERS), ms, { to: d.deliveries, listeners: d.listeners.length }),
    measuring: (d) => () => void (d.before = [d.deliveries.answers, d.deliveries.events]),
    after: (run, d) => {
      d.answers += d.deliveries.answers - d.before[0];
      d.events += d.deliveries.events - d.before[1];
      run.eventsPerAnswer = d.events / d.answers;
    },
  });
  const operations: Array<Operation<any>> = [
    // What the nodes spend with nothing to do (timers, the bus's blocking read), per second.
    { label: 'idle', op: () => async (ms) => { await new Promise((r) => setTimeout(r, ms)); return ms / 1000; } },
    // No queue hears these (in c, sends alternate between the nodes).
    { label: 'send alone', op: (s) => (ms) => sendLoop(s.nodes, s.subscribers.slice(0, SENDERS), ms) },
    // In c, sent on node 1 and polled on node 2, so that every delivery crosses.
    deliveryOp('send + delivery', undefined, (s) => [s.nodes[0]!], (s) => [s.nodes.at(-1)!]),
    deliveryOp('send + delivery, split', 'c', (s) => s.nodes, (s) => s.nodes),
    // In c, alternating between the nodes. Each one leaves a queue behind.
    { label: 'register', op: (s) => (ms) => registerLoop(s.nodes, s.registrant, REGISTER_CONCURRENCY, ms) },
  ];

  const setups: Setup[] = [];
  const runs: Run[] = [];
  const windows: Run[] = [];
  try {
    for (const name of (['a', 'b', 'c'] as const).filter((s) => only.includes(s))) {
      process.stderr.write(`setup (${name}): ${{ a: 'one process on PostgreSQL, no Redis', b: 'one cluster node, PostgreSQL + Redis', c: 'two cluster nodes, PostgreSQL + Redis' }[name]}\n`);
      const db = `ccost_${name}`;
      const admin = new pg.Client({ connectionString: pgCluster.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${db}`);
      await admin.end();
      const dbUrl = new URL(pgCluster.url);
      dbUrl.pathname = `/${db}`;
      const clusterName = `ccost-${name}`;
      const opts = (role: ChildOptions['role']): string => JSON.stringify({ role, databaseUrl: dbUrl.toString(), redisUrl: name === 'a' ? undefined : redisServer.url, clusterName });
      process.stderr.write('  seeding 1,000 users, a 100-subscriber stream and 40 more streams...\n');
      const first = await startChild<Seeded>(import.meta.filename, [opts('seed')]);
      children.push(first.child);
      const nodes = [new Node(first.setup.base, first.child.pid!)];
      if (name === 'c') {
        const second = await startChild<Seeded>(import.meta.filename, [opts('join')]);
        children.push(second.child);
        nodes.push(new Node(second.setup.base, second.child.pid!));
      }
      setups.push({ name, nodes, subscribers: first.setup.subscribers!, registrant: first.setup.registrant!, bus: `${clusterName}:bus` });
    }
    for (const o of operations) {
      const on = setups.filter((s) => !o.only || o.only.includes(s.name));
      if (on.length === 0 || (process.env.BENCH_OPS && !process.env.BENCH_OPS.split(',').includes(o.label))) continue;
      process.stderr.write(`${o.label}: ${ROUNDS} windows of ${o.label === 'idle' ? 2 : (seconds / ROUNDS).toFixed(1)} s per setup, setups in turn\n`);
      const states = new Map<Setup, unknown>();
      for (const s of on) states.set(s, await o.begin?.(s));
      for (let round = 0; round < ROUNDS; round++) {
        for (const s of on) {
          const state = states.get(s);
          const run = await window(s, o.label, o.op(s, state), {
            warmMs: o.label === 'idle' ? 0 : round === 0 ? WARMUP_MS : WARMUP_MS / 6, ms: o.label === 'idle' ? 2000 : (seconds * 1000) / ROUNDS, profile: round === 0 && profiledRun(o.label), measuring: o.measuring?.(state),
          });
          o.after?.(run, state);
          addRun(runs, run);
          windows.push(run);
        }
      }
      for (const s of on) await o.end?.(s, states.get(s));
    }
  } finally {
    await Promise.all(setups.flatMap((s) => s.nodes.map((n) => n.pool.close())));
    await cleanup();
  }
  printCostTable(runs, windows, SUBSCRIBERS, seconds, SENDERS, ROUNDS);
  for (const s of setups.filter((x) => x.name !== 'a')) {
    const send = runs.find((r) => r.setup === s.name && r.label === 'send alone')?.redis;
    const reg = runs.find((r) => r.setup === s.name && r.label === 'register')?.redis;
    if (!send || !reg) continue;
    process.stdout.write(`Redis memory (${s.name}): ${(reg.memory / reg.opsWithWarmUp / 1024).toFixed(2)} KB per queue (${(reg.keys / reg.opsWithWarmUp).toFixed(2)} keys each), `
      + `${(send.memory / send.entries / 1024).toFixed(2)} KB per bus entry (${(send.entries / send.opsWithWarmUp).toFixed(2)} entries per send to 100 subscribers)\n`);
  }
}
