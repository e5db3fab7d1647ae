import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import { releaseJobLease, renewJobLease, takeJobLease } from '../actions/job-leases.js';

/**
 * A periodic background job. Register it in src/wiring.ts (the list handed to startJobs);
 * nothing else is needed for it to run at start, every `everyMs` after, on one node of a
 * cluster at a time.
 */
export interface Job {
  /** Unique among jobs: the key of its lease row (migration 070) and its name in the logs. */
  name: string;
  /** From the start of one run to the start of the next, over the whole cluster. */
  everyMs: number;
  /**
   * One run. `signal` aborts when this node stops or loses the lease: a long job checks it
   * between batches and returns, and its next turn (on any node) does the rest. A throw is
   * logged and the job runs again at its next turn.
   */
  run(ctx: AppContext, signal: AbortSignal): Promise<unknown>;
}

export interface Jobs {
  /** Stops the timers, aborts the runs under way and waits for them to return (shutdown). */
  stop(): Promise<void>;
  /**
   * Runs the job now on this node, due or not, unless another node is running it; answers
   * whether it ran here. A run of it already under way here is waited for first. Rethrows
   * what the job threw.
   */
  runNow(name: string): Promise<boolean>;
}

export interface JobOptions {
  /** The clock, in milliseconds: tests pass one they can move. */
  now?: () => number;
  /** A running holder's lease; renewed every third of it, so a node that dies frees the job after at most this. */
  leaseMs?: number;
  /** How often this node asks whether a job is due (at most `everyMs`): a run follows its due time by at most this. */
  checkMs?: number;
}

/** Long enough that renewals (every 100 s) never miss for a stalled event loop; short enough that a dead node's job waits little. */
const LEASE_MS = 5 * 60 * 1000;
/** One cheap conditional UPDATE per job per node per minute. */
const CHECK_MS = 60 * 1000;

/**
 * Starts the background jobs: each node asks every minute whether each job is due, and the
 * job's lease row answers yes to one of them (src/actions/job-leases.ts). The lease also
 * holds the next due time, so a cluster of nodes runs a job every `everyMs`, not each of
 * them once every `everyMs`. A node that dies mid-run leaves its lease to lapse, after which
 * another takes the job over.
 */
export function startJobs(ctx: AppContext, jobs: Job[], opts: JobOptions = {}): Jobs {
  const now = opts.now ?? Date.now;
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  // One name per scheduler (not per process): two schedulers on one store are two holders.
  const holder = `${ctx.bus.nodeId}:${crypto.randomBytes(4).toString('hex')}`;
  const byName = new Map<string, Job>();
  for (const job of jobs) {
    if (byName.has(job.name)) throw new Error(`two background jobs named '${job.name}'`);
    byName.set(job.name, job);
  }
  const running = new Map<string, { done: Promise<boolean>; abort: AbortController }>();
  // Every attempt, from its lease request on: stop() waits for those still asking too.
  const attempts = new Set<Promise<boolean>>();
  const track = (p: Promise<boolean>): Promise<boolean> => {
    attempts.add(p);
    const forget = () => attempts.delete(p);
    p.then(forget, forget);
    return p;
  };
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;

  /** Takes the lease and runs the job once; false when the lease went elsewhere. */
  const attempt = async (job: Job, early: boolean): Promise<boolean> => {
    const started = now();
    if (!(await takeJobLease(ctx, job.name, holder, started, started + leaseMs, early))) return false;
    if (stopped) {
      // Stopped while asking: give it straight back rather than start a run shutdown would not wait for.
      await releaseJobLease(ctx, job.name, holder, now());
      return false;
    }
    const abort = new AbortController();
    const renewer = setInterval(() => {
      renewJobLease(ctx, job.name, holder, now() + leaseMs).then((mine) => {
        if (mine || abort.signal.aborted) return;
        ctx.log.warn({ job: job.name }, 'background job: lease lost to another node; this run stops');
        abort.abort();
      }, (err: unknown) => ctx.log.warn({ err, job: job.name }, 'background job: lease renewal failed'));
    }, Math.max(1, Math.floor(leaseMs / 3)));
    const done = (async () => {
      let failure: unknown;
      try {
        await job.run(ctx, abort.signal);
      } catch (err) {
        failure = err;
        ctx.log.error({ err, job: job.name }, 'background job failed; it runs again at its next turn');
      } finally {
        clearInterval(renewer);
      }
      // Cut short (a stop; or the lease lost, when this release changes nothing): due again at
      // once, for another node to finish. Otherwise (done or failed) at its next turn; a run
      // longer than the period is followed by the next at once.
      const nextDue = abort.signal.aborted ? now() : Math.max(started + job.everyMs, now());
      await releaseJobLease(ctx, job.name, holder, nextDue).catch((err: unknown) => ctx.log.warn({ err, job: job.name }, 'background job: lease release failed; it lapses instead'));
      if (failure !== undefined && early) throw failure;
      return true;
    })();
    running.set(job.name, { done, abort });
    try {
      return await done;
    } finally {
      running.delete(job.name);
    }
  };

  const tick = (job: Job): void => {
    if (stopped || running.has(job.name)) return;
    track(attempt(job, false)).catch((err: unknown) => ctx.log.warn({ err, job: job.name }, 'background job: could not ask for its lease'));
  };

  for (const job of jobs) {
    const every = Math.max(1, Math.min(job.everyMs, opts.checkMs ?? CHECK_MS));
    const timer = setInterval(() => tick(job), every);
    timer.unref();
    const first = setTimeout(() => tick(job), 0);
    first.unref();
    timers.push(timer, first);
  }

  return {
    async runNow(name) {
      const job = byName.get(name);
      if (!job) throw new Error(`no background job named '${name}'`);
      if (stopped) return false;
      while (running.has(name)) await running.get(name)!.done.catch(() => undefined);
      return track(attempt(job, true));
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      for (const r of running.values()) r.abort.abort();
      await Promise.all([...attempts].map((p) => p.catch(() => undefined)));
    },
  };
}
