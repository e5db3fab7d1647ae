import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import { nowSeconds } from '../lib/time.js';
import { notificationCursor } from '../store/repos/missed-messages.js';
import { decideBatch } from './decide.js';
import { NotificationWorker } from './worker.js';
import type { MissedMessageSenders } from './senders.js';

/** How often each node looks for undecided messages and due notifications without being nudged. */
const POLL_MS = 1000;
/**
 * The share of time the background steps may take while there is more to do: the rest is
 * left to the sends, which share the store's writer with them. Under a burst the decisions
 * lag and catch up after it; the sends keep their pace (bench `send` with every subscriber
 * notified).
 */
const DUTY = 0.05;

export interface Notifications {
  /** Decides every message after the cursor now (if this node holds it); answers how many notifications it stored. */
  decideNow(): Promise<number>;
  /** Sends what is due at `now` (tests pass a later clock); answers how many users' batches this node sent or tried. */
  runDue(now?: number): Promise<number>;
}

/**
 * Notifications for people who are away, off the send's path: a message event heard on the
 * bus (every node hears every one) nudges the background steps, and a timer looks anyway, so
 * that messages committed while this node was down or before a nudge are decided too. The
 * decisions and what is due are in the database (migration 062): they outlive a restart.
 */
export function startNotifications(ctx: AppContext, senders: MissedMessageSenders): Notifications {
  const node = `${ctx.bus.nodeId}:${crypto.randomBytes(4).toString('hex')}`;
  const worker = new NotificationWorker(ctx, senders);
  let stopped = false;
  // One decider batch at a time on this node (two would only race for the cursor's move).
  let deciding: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = deciding.then(fn, fn);
    deciding = run.catch(() => undefined);
    return run;
  };
  const decideNow = (): Promise<number> => exclusive(async () => {
    let stored = 0;
    for (;;) {
      if (stopped) return stored;
      const r = await decideBatch(ctx, node, nowSeconds());
      if (!r) return stored;
      stored += r.stored;
      if (!r.more) return stored;
    }
  });
  const runDue = (now = nowSeconds()): Promise<number> => worker.runDue(now);

  /** One batch of decisions and one look for due notifications: whether more is waiting. */
  const step = async (): Promise<boolean> => {
    const decided = await exclusive(() => decideBatch(ctx, node, nowSeconds()));
    if (worker.busy()) return decided?.more ?? false;
    const look = await worker.look(nowSeconds());
    return (decided?.more ?? false) || look.more;
  };
  let wanted = false;
  let running = false;
  let wake: NodeJS.Timeout | undefined;
  const loop = async (): Promise<void> => {
    running = true;
    try {
      while (wanted && !stopped) {
        wanted = false;
        const started = performance.now();
        if (await step()) wanted = true;
        if (!wanted) break;
        // More to do (or more sent meanwhile): rest in proportion to the step, so that the steps take at most DUTY of the time.
        const rest = (performance.now() - started) * (1 / DUTY - 1);
        await new Promise<void>((resolve) => (wake = setTimeout(resolve, rest)));
      }
    } catch (err) {
      ctx.log.error({ err }, 'missed-message notifications: a background step failed');
    } finally {
      running = false;
    }
  };
  const nudge = (): void => {
    wanted = true;
    if (running || stopped) return;
    running = true;
    setImmediate(() => void loop());
  };
  const unsubscribe = ctx.bus.subscribe((env) => {
    if (env.event.type === 'message') nudge();
  });
  const timer = setInterval(nudge, POLL_MS);
  timer.unref();
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(wake);
    unsubscribe();
    await deciding;
    await worker.stop();
    await notificationCursor.release(ctx.store.db, node).catch(() => undefined);
  });
  const service = { decideNow, runDue };
  ctx.notifications = service;
  return service;
}
