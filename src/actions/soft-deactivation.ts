/**
 * Soft deactivation, as Zulip does it (zerver/lib/soft_deactivation.py): a person who has
 * not used the server for weeks is marked long-term idle, and an ordinary stream message
 * (one that neither flags nor notifies them) makes no recipient row for them. In a large
 * organization most members of the big streams are such people, and their rows were most
 * of the cost of a send. Their rows are made later, in bulk and off the send path: each
 * day for everyone idle, at once when they come back (any authenticated request), and
 * before anything reads or changes what they received (a subscription change, a digest,
 * an export). Nothing a client sees changes: from their first request on, their messages,
 * unreads and flags are what they would have been.
 */
import type { AppContext } from '../context.js';
import type { Q, UserRow } from '../store/rows.js';
import { realmIdleRecipients } from '../reads/idle-users.js';
import { subscriberIds } from '../reads/streams.js';
import { softDeactivation } from '../store/repos/soft-deactivation.js';
import { transact } from './transaction.js';
import { pauseAfterBatch } from './retention-pace.js';
import { nowSeconds } from '../lib/time.js';

const DAY = 86_400;
/** A visit is written at most this often per person and process: Zulip's UserActivity is as coarse. */
const VISIT_GRANULARITY_SECS = 3600;
const DEACTIVATE_BATCH = 100;
/**
 * Message ids a step of the daily catch-up covers for one person: at most this many rows per
 * transaction. An import can leave its lurkers every message of the import to catch up.
 */
export const CATCH_UP_SPAN = 5000;
/** Longer than a send takes from reading who is idle to its commit, even under load. */
export const RETURN_SWEEP_MS = 5000;

const lastWritten = new WeakMap<object, Map<number, number>>();
const reactivating = new WeakMap<object, Map<number, Promise<void>>>();

/**
 * Every authenticated request: remembers the visit (at most hourly), and brings an idle
 * person back before their request reads anything. No promise unless they were idle.
 */
export function noteVisit(ctx: AppContext, user: UserRow): Promise<void> | undefined {
  const now = nowSeconds();
  let seen = lastWritten.get(ctx.store.db);
  if (!seen) lastWritten.set(ctx.store.db, (seen = new Map()));
  if (now - (seen.get(user.id) ?? 0) >= VISIT_GRANULARITY_SECS) {
    seen.set(user.id, now);
    softDeactivation.recordVisit(ctx.store.db, user.id, now).catch((err: unknown) => {
      seen.delete(user.id);
      ctx.log.error({ err }, 'recording a visit failed');
    });
  }
  return user.long_term_idle === 1 ? softReactivate(ctx, user.id) : undefined;
}

/** Zulip's reactivate_user_if_soft_deactivated: their missing rows made, then no longer idle. Once per person at a time. */
export function softReactivate(ctx: AppContext, userId: number): Promise<void> {
  let inFlight = reactivating.get(ctx.store.db);
  if (!inFlight) reactivating.set(ctx.store.db, (inFlight = new Map()));
  const running = inFlight.get(userId);
  if (running) return running;
  const done = (async () => {
    // Someone an import left a year behind: others' writes go between the steps.
    await catchUpIdle(ctx, [userId]);
    await transact(ctx, async (tx) => {
      await softDeactivation.catchUp(tx.db, [userId]);
      await softDeactivation.markActive(tx.db, userId);
    });
  })().finally(() => inFlight.delete(userId));
  // A send that read them as idle before this committed may store its message after the
  // catch-up: once such sends have surely committed, their rows are made too.
  done.then(() => {
    const timer = setTimeout(() => {
      transact(ctx, (tx) => softDeactivation.sweepAfterReturn(tx.db, userId))
        .catch((err: unknown) => ctx.log.error({ err }, 'the sweep after a soft reactivation failed'));
    }, RETURN_SWEEP_MS);
    timer.unref();
  }, () => undefined);
  inFlight.set(userId, done);
  return done;
}

/**
 * Makes the rows idle people among `userIds` lack, before something changes what they
 * received, in steps of `span` message ids per transaction (outside the caller's): the
 * catch-up that change makes in its own transaction then has little left to do.
 */
export async function catchUpIdle(ctx: AppContext, userIds: readonly number[], span = CATCH_UP_SPAN): Promise<number> {
  let made = 0;
  for (const id of userIds) made += (await catchUpPerson(ctx, id, span)).rows;
  return made;
}

/**
 * One person's missing rows, a transaction per step. `paced`: the daily job's pause after
 * each step, so that sends keep the writer, and its signal, looked at before each step.
 */
async function catchUpPerson(ctx: AppContext, id: number, span: number, paced?: { signal?: AbortSignal }): Promise<{ rows: number; finished: boolean }> {
  let rows = 0;
  for (;;) {
    if (paced?.signal?.aborted) return { rows, finished: false };
    const started = performance.now();
    const step = await transact(ctx, (tx) => softDeactivation.catchUpStep(tx.db, id, span));
    rows += step.rows;
    if (paced) await pauseAfterBatch(performance.now() - started);
    if (step.done) return { rows, finished: true };
  }
}

/**
 * An edit that newly mentions soft-deactivated people (by name, by a wildcard, as a topic's
 * participants) flags rows they may lack: they are caught up first. Outside the edit's
 * transaction, as its other reads: catching up is idempotent. True when any row was made.
 */
export async function catchUpNewlyMentioned(q: Q, realmId: number, streamId: number, holders: ReadonlySet<number>,
  mentioned: Iterable<number>, wildcard: boolean): Promise<boolean> {
  const idle = await realmIdleRecipients(q, realmId);
  if (idle.size === 0) return false;
  const candidates = wildcard ? await subscriberIds(q, streamId) : [...mentioned];
  const lacking = candidates.filter((id) => idle.isIdle(id) && !holders.has(id));
  return lacking.length > 0 && (await softDeactivation.catchUp(q, lacking)) > 0;
}

export interface SoftDeactivationSummary { deactivated: number; caughtUp: number; rows: number }

/**
 * The daily job (Zulip's soft_deactivate_users cron with AUTO_CATCH_UP_SOFT_DEACTIVATED_USERS):
 * people away longer than the configured days become idle, then every idle person's rows
 * are brought up to date, one person and CATCH_UP_SPAN message ids per transaction with a
 * pause after each, so that sends keep the writer.
 */
export async function runSoftDeactivation(ctx: AppContext, opts: { signal?: AbortSignal; realmId?: number; days?: number; now?: number; onProgress?: (s: SoftDeactivationSummary) => void } = {}): Promise<SoftDeactivationSummary> {
  const summary: SoftDeactivationSummary = { deactivated: 0, caughtUp: 0, rows: 0 };
  const days = opts.days ?? ctx.config.softDeactivationDays;
  if (days > 0) {
    const cutoff = (opts.now ?? nowSeconds()) - days * DAY;
    for (;;) {
      if (opts.signal?.aborted) return summary;
      const ids = await softDeactivation.awayHumans(ctx.store.db, cutoff, DEACTIVATE_BATCH, opts.realmId);
      if (ids.length === 0) break;
      await transact(ctx, (tx) => softDeactivation.markIdle(tx.db, ids));
      summary.deactivated += ids.length;
      opts.onProgress?.(summary);
    }
  }
  for (let after = 0; ;) {
    const ids = await softDeactivation.idleIds(ctx.store.db, after, DEACTIVATE_BATCH, opts.realmId);
    if (ids.length === 0) break;
    after = ids[ids.length - 1]!;
    for (const id of ids) {
      const person = await catchUpPerson(ctx, id, CATCH_UP_SPAN, { signal: opts.signal });
      summary.rows += person.rows;
      if (!person.finished) return summary;
      summary.caughtUp++;
    }
    opts.onProgress?.(summary);
  }
  return summary;
}
