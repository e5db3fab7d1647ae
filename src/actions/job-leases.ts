import type { AppContext } from '../context.js';
import { jobLeases } from '../store/repos/job-leases.js';

/**
 * The leases that leave each background job to one node at a time (src/jobs/scheduler.ts).
 * Each is one conditional statement on the job's row, so two nodes asking at once get one
 * yes between them; no events (nothing a client sees). Times in milliseconds.
 */

/** True when `holder` now runs `name` until `until`: due (`expires` passed), or with `early`, merely not running elsewhere. */
export function takeJobLease(ctx: AppContext, name: string, holder: string, now: number, until: number, early = false): Promise<boolean> {
  return jobLeases.take(ctx.store.db, name, holder, now, until, early);
}

/** False when the lease lapsed and another node took it: the run should end. */
export function renewJobLease(ctx: AppContext, name: string, holder: string, until: number): Promise<boolean> {
  return jobLeases.renew(ctx.store.db, name, holder, until);
}

/** The run is over: the job is next due at `nextDue`, on whichever node asks first then. */
export function releaseJobLease(ctx: AppContext, name: string, holder: string, nextDue: number): Promise<void> {
  return jobLeases.release(ctx.store.db, name, holder, nextDue);
}
