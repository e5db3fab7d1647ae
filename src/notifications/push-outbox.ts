import type { AppContext } from '../context.js';
import type { PushOutboxRow } from '../store/schema.js';
import { deletePushTokens, pushOutbox, pushServer } from '../store/repos/push-outbox.js';
import { PUSH_KIND } from '../lib/push-kind.js';
import { nowSeconds } from '../lib/time.js';
import { serialRounds } from '../lib/serial-rounds.js';
import { sendsUnderWay } from './send-pressure.js';
import { setPushRegistered } from '../lib/push-status.js';
import { BouncerError, callBouncer, type BouncerBody } from './bouncer-client.js';
import { ensurePushCredentials } from './push-identity.js';
import { ANALYTICS_ENDPOINT, applyServerDataAnswer, queueUploadAfterRegistration } from './push-analytics.js';

/** How often each node looks for due calls (a queueing node also looks at once). */
const POLL_MS = 500;
/** How long one call may take; Zulip's PushBouncerSession allows 15 s. */
export const BOUNCER_TIMEOUT_MS = 10_000;
/** A node that took a call and died frees it after this: well past the timeout. */
const LEASE_SECS = 60;
/** Calls under way at once on a node: a hanging service holds some, the others go on. */
const MAX_IN_FLIGHT = 32;
const CALLS_PER_TICK_UNDER_SENDS = 8;
/** Retries back off from 10 s, doubling, to at most an hour between tries... */
const FIRST_RETRY_SECS = 10;
const MAX_RETRY_SECS = 3600;
/** ...and stop after this many tries or a day, whichever comes first (logged). */
export const MAX_ATTEMPTS = 30;
export const GIVE_UP_AFTER_SECS = 86_400;

export interface PushOutboxWorker {
  /**
   * Makes every call due at `now` (the clock by default; tests pass a later time rather
   * than wait) that no node holds, waits for them, and answers how many this node tried.
   */
  runDue(now?: number): Promise<number>;
  /** Something was queued: look now rather than at the next poll. */
  kick(): void;
}

/**
 * The outbox worker, run by every node (pattern: actions/scheduled-delivery.ts). A node
 * leases a call before making it, so that each is made by one node; the calls of a round
 * run side by side, and a round does not wait for them, so a service that hangs holds only
 * its own calls until their timeout while the next rounds go on.
 */
export function startPushOutbox(ctx: AppContext): PushOutboxWorker {
  let stopped = false;
  let registered = false;
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  // Calls made, deleted together: one statement for many instead of a write each.
  let made: Array<{ id: number; lease: number }> = [];
  let removing: Promise<void> | undefined;
  const removeSoon = (id: number, lease: number): Promise<void> => {
    made.push({ id, lease });
    removing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const batch = made;
      made = [];
      removing = undefined;
      await pushOutbox.removeMany(ctx.store.db, batch);
    });
    return removing;
  };

  const round = async (now: number): Promise<Array<Promise<void>>> => {
    const started: Array<Promise<void>> = [];
    // While messages are being sent, a few calls a tick: the rest wait for a pause in the sends.
    const room = (sendsUnderWay(ctx) ? CALLS_PER_TICK_UNDER_SENDS : MAX_IN_FLIGHT) - inFlight.size;
    if (room <= 0 || stopped) return started;
    if (!(await pushOutbox.anyDue(ctx.store.db, now))) return started;
    const lease = now + LEASE_SECS;
    for (const row of await pushOutbox.leaseDue(ctx.store.db, now, lease, room)) {
      const p = makeCall(row, now, lease).catch((err: unknown) => ctx.log.error({ err, endpoint: row.endpoint }, 'push notification service call failed unexpectedly'))
        .finally(() => {
          inFlight.delete(p);
          // A slot is free: the next due call takes it now rather than at the next tick (while
          // messages are being sent, the ticks alone: the calls wait for a pause).
          if (!stopped && !sendsUnderWay(ctx)) tick();
        });
      inFlight.add(p);
      started.push(p);
    }
    return started;
  };

  const makeCall = async (row: PushOutboxRow, now: number, lease: number): Promise<void> => {
    const baseUrl = ctx.config.pushBouncerUrl!;
    const body = JSON.parse(row.body) as BouncerBody;
    // Registration itself is the one call without credentials (Zulip's register_server posts them as fields).
    const auth = row.endpoint === 'server/register' ? null : await ensurePushCredentials(ctx.store.db);
    const attempts = row.attempts + 1;
    try {
      const answer = await callBouncer(baseUrl, row.endpoint, body, auth, BOUNCER_TIMEOUT_MS, abort.signal);
      await afterSuccess(row.endpoint, answer);
      await removeSoon(row.id, lease);
      ctx.log.debug({ endpoint: row.endpoint, attempts }, 'push notification service call made');
    } catch (err) {
      if (!(err instanceof BouncerError)) throw err;
      const at = nowSeconds() > now ? nowSeconds() : now;
      const giveUp = !err.retryable || attempts >= MAX_ATTEMPTS || at - row.created >= GIVE_UP_AFTER_SECS;
      const fields = { endpoint: row.endpoint, attempts, failure: err.failure, status: err.status, reason: err.message };
      if (giveUp) {
        await pushOutbox.remove(ctx.store.db, row.id, lease);
        ctx.log.warn(fields, 'push notification service call given up');
      } else {
        const delay = Math.min(FIRST_RETRY_SECS * 2 ** (attempts - 1), MAX_RETRY_SECS);
        await pushOutbox.retryAt(ctx.store.db, row.id, lease, now + delay, attempts);
        ctx.log.warn({ ...fields, retryInSecs: delay }, 'push notification service call failed; retrying later');
      }
    }
  };

  /** What the service's answer changes here. */
  const afterSuccess = async (endpoint: string, answer: Record<string, unknown>): Promise<void> => {
    if (endpoint === 'server/register') {
      await pushServer.markRegistered(ctx.store.db, nowSeconds());
      registered = true;
      setPushRegistered(ctx.config, true);
      await queueUploadAfterRegistration(ctx);
      return;
    }
    if (endpoint === ANALYTICS_ENDPOINT) return applyServerDataAnswer(ctx, answer);
    if (endpoint !== 'push/notify') return;
    // Zulip's send_notifications_to_bouncer: tokens FCM or APNs no longer know are deleted here too.
    const deleted = answer.deleted_devices as { android_devices?: unknown; apple_devices?: unknown } | undefined;
    const tokens = (v: unknown) => (Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : []);
    if (deleted) {
      await deletePushTokens(ctx.store.db, PUSH_KIND.FCM, tokens(deleted.android_devices));
      await deletePushTokens(ctx.store.db, PUSH_KIND.APNS, tokens(deleted.apple_devices));
    }
  };

  /** Another node may have registered this server: learn it from the stored row until then. */
  const refreshRegistration = async (): Promise<void> => {
    if (registered) return;
    const row = await pushServer.find(ctx.store.db);
    if (row?.registered_at != null) {
      registered = true;
      setPushRegistered(ctx.config, true);
    }
  };

  const rounds = serialRounds(async (now: number) => {
    await refreshRegistration();
    return round(now);
  });
  const runDue = async (now = nowSeconds()): Promise<number> => {
    const started = await rounds.run(now);
    await Promise.all(started);
    return started.length;
  };
  // A tick during a round runs another once it ends: the round may have found the slots full.
  let again = false;
  const tick = (): void => {
    if (stopped) return;
    if (rounds.busy()) {
      again = true;
      return;
    }
    again = false;
    rounds.run(nowSeconds())
      .catch((err: unknown) => ctx.log.error({ err }, 'push notification outbox round failed'))
      .finally(() => {
        if (again) setImmediate(tick);
      });
  };
  const timer = setInterval(tick, POLL_MS);
  timer.unref();
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    clearInterval(timer);
    // A call cut short keeps its row: its lease runs out and a node makes it again.
    abort.abort();
    await rounds.settled();
    await Promise.all([...inFlight]);
  });
  return { runDue, kick: () => setImmediate(tick) };
}
