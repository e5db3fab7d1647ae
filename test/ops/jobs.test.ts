import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINE, testApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { startJobs, type Job, type Jobs } from '../../src/jobs/scheduler.js';
import { takeJobLease } from '../../src/actions/job-leases.js';
import { jobLeases } from '../../src/store/repos/job-leases.js';
import { scaledMs } from '../helpers/machine.js';

// The background scheduler (src/jobs/scheduler.ts): each job at start and on its period, on
// one node at a time through its lease row (migration 070). Short periods and a clock the
// tests move stand in for hours.

/** A job that counts its runs and the most that were ever under way at once, anywhere. */
function counted(name: string, everyMs: number, shared = { active: 0, most: 0 }) {
  const job = {
    runs: 0,
    shared,
    job: {
      name, everyMs,
      run: async () => {
        shared.active += 1;
        shared.most = Math.max(shared.most, shared.active);
        // Long enough that another node's check would overlap it, were the lease not there.
        await new Promise((r) => setTimeout(r, 15));
        shared.active -= 1;
        job.runs += 1;
      },
    } satisfies Job,
  };
  return job;
}

async function withApp(fn: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await testApp({ backgroundJobs: false });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

test('a job runs at start and then on its period', () => withApp(async (t) => {
  const c = counted('every-50ms', 50);
  const started = Date.now();
  const jobs = startJobs(t.app.ctx, [c.job], { checkMs: 10 });
  try {
    await until(() => c.runs >= 1, { message: 'the run at start' });
    assert.ok(Date.now() - started < scaledMs(1000), 'soon after start, not after a period of waiting');
    await until(() => c.runs >= 4, { message: 'runs on the period' });
    const lease = await jobLeases.findByName(t.app.ctx.store.db, 'every-50ms');
    assert.ok(lease, 'the lease row is kept');
  } finally {
    await jobs.stop();
  }
}));

test('two schedulers on one store (two nodes): one run at a time, and the period is the cluster\'s, not each node\'s', () => withApp(async (t) => {
  const shared = { active: 0, most: 0 };
  const a = counted('shared', 1, shared);
  const b = counted('shared', 1, shared);
  const nodes = [startJobs(t.app.ctx, [a.job], { checkMs: 2 }), startJobs(t.app.ctx, [b.job], { checkMs: 2 })];
  try {
    await until(() => a.runs + b.runs >= 20, { message: 'twenty runs between the nodes' });
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
  assert.equal(shared.most, 1, 'never two runs at once');

  // A long period: however many nodes look, it runs once per period. A quick job beside it
  // shows that both nodes kept looking meanwhile.
  const slow = [counted('hourly', 3_600_000), counted('hourly', 3_600_000)];
  const probes = [counted('probe-0', 1), counted('probe-1', 1)];
  const more = slow.map((s, i) => startJobs(t.app.ctx, [s.job, probes[i]!.job], { checkMs: 5 }));
  try {
    await until(() => probes[0]!.runs >= 5 && probes[1]!.runs >= 5, { message: 'both nodes looking, several times' });
    assert.equal(slow[0]!.runs + slow[1]!.runs, 1);
  } finally {
    await Promise.all(more.map((n) => n.stop()));
  }
}));

test('two apps on one PostgreSQL database: one run at a time', { skip: ENGINE !== 'postgres' ? 'two server processes share a store only on PostgreSQL (SQLite: one process, --workers > 1 needs PostgreSQL); the lease itself is tested on SQLite by two schedulers on one store above' : false }, async () => {
  const first = await testApp({ backgroundJobs: false });
  const second = await testApp({ backgroundJobs: false, databaseUrl: first.app.ctx.config.databaseUrl });
  const shared = { active: 0, most: 0 };
  const a = counted('across-apps', 1, shared);
  const b = counted('across-apps', 1, shared);
  const nodes = [startJobs(first.app.ctx, [a.job], { checkMs: 2 }), startJobs(second.app.ctx, [b.job], { checkMs: 2 })];
  try {
    await until(() => a.runs + b.runs >= 20, { message: 'twenty runs between the apps' });
    assert.equal(shared.most, 1, 'never two runs at once');
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
    await second.close();
    await first.close();
  }
});

test("a dead holder's lease is taken over once it expires; runNow does not run a job another node holds", () => withApp(async (t) => {
  let offset = 0;
  const now = () => Date.now() + offset;
  // A node took the job's lease for a minute and died.
  assert.equal(await takeJobLease(t.app.ctx, 'held', 'dead-node', now(), now() + 60_000), true);
  const held = counted('held', 1);
  const other = counted('other', 1);
  const jobs = startJobs(t.app.ctx, [held.job, other.job], { now, checkMs: 5 });
  try {
    await until(() => other.runs >= 3, { message: 'the scheduler looking several times' });
    assert.equal(held.runs, 0, 'not while the dead node\'s lease lasts');
    assert.equal(await jobs.runNow('held'), false, 'runNow neither');
    offset = 61_000;
    await until(() => held.runs >= 1, { message: 'the takeover after expiry' });
    await until(async () => (await jobLeases.findByName(t.app.ctx.store.db, 'held'))?.holder !== 'dead-node');
  } finally {
    await jobs.stop();
  }
}));

test('a job that throws is logged and runs again at its next turn; runNow rethrows', () => withApp(async (t) => {
  let failing = true;
  let calls = 0;
  const flaky: Job = {
    name: 'flaky', everyMs: 20,
    run: async () => {
      calls += 1;
      if (failing) throw new Error('flaky failed');
    },
  };
  const broken: Job = { name: 'broken', everyMs: 3_600_000, run: async () => { throw new Error('broken, always'); } };
  const errors: unknown[] = [];
  const log = t.app.ctx.log;
  const realError = log.error.bind(log);
  log.error = ((obj: unknown, ...rest: unknown[]) => {
    errors.push(obj);
    return (realError as (...a: unknown[]) => void)(obj, ...rest);
  }) as typeof log.error;
  const jobs = startJobs(t.app.ctx, [flaky, broken], { checkMs: 5 });
  try {
    await until(() => calls >= 3, { message: 'runs after failures' });
    assert.ok(errors.length >= 3, 'each failure logged');
    failing = false;
    const before = calls;
    await until(() => calls > before + 1, { message: 'runs go on once it recovers' });
    await assert.rejects(jobs.runNow('broken'), /broken, always/);
    await assert.rejects(jobs.runNow('nonesuch'), /no background job named 'nonesuch'/);
  } finally {
    await jobs.stop();
    log.error = realError;
  }
}));

test('stop() aborts the run under way, waits for it to return, and leaves the job due for another node', () => withApp(async (t) => {
  let release!: () => void;
  let signal: AbortSignal | undefined;
  const returned = new Promise<void>((r) => (release = r));
  const slow: Job = {
    name: 'slow', everyMs: 3_600_000,
    run: async (_ctx, s) => {
      signal = s;
      await returned;
    },
  };
  const jobs: Jobs = startJobs(t.app.ctx, [slow], { checkMs: 5 });
  await until(() => signal !== undefined, { message: 'the run at start' });
  let stopped = false;
  const stopping = jobs.stop().then(() => (stopped = true));
  await until(() => signal!.aborted, { message: 'the abort' });
  // A few turns of the event loop: stop() is still waiting for the run.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.equal(stopped, false, 'stop() waits for the run in progress');
  release();
  await stopping;
  const lease = (await jobLeases.findByName(t.app.ctx.store.db, 'slow'))!;
  assert.equal(lease.holder, null, 'released');
  assert.ok(lease.expires <= Date.now(), 'cut short: due again at once, not in an hour');
  assert.equal(await jobs.runNow('slow'), false, 'a stopped scheduler runs nothing');
}));
