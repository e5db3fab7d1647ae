import { setImmediate as nextTurn } from 'node:timers/promises';
import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import { nowSeconds } from '../lib/time.js';
import { notificationCursor } from '../store/repos/missed-messages.js';
import { decideBatch } from './decide.js';
import { NotificationWorker } from './worker.js';
import { noteSend, sendsUnderWay } from './send-pressure.js';
import type { MissedMessageSenders } from './senders.js';

/** How often each node looks for undecided messages and due notifications without being nudged. */
const POLL_MS = 1000;
/**
 * While messages are being sent, the share of time the decider may take: the rest is left
 * to the sends, which share the store's writer with it. Under a burst the decisions lag and
 * catch up after it; the sends keep their pace (bench `send` with every subscriber notified).
 * Once no message has been heard for a second (send-pressure.ts), it runs flat out.
 */
const DUTY = 0.05;
/** The longest rest between two decider batches, however long the last one took. */
const MAX_REST_MS = 1000;

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
      await nextTurn();
    }
  });
  // A background look under way may hold leases on what is due and not have started its
  // sends yet: it finishes first, so that what was due has gone when this answers.
  const runDue = async (now = nowSeconds()): Promise<number> => {
    await looker.settled();
    return worker.runDue(now);
  };

  // Two loops, each nudged by the bus and the timer: the decider's, and the worker's looks
  // for due notifications (which wait for free send slots, so they must not hold the decider).
  let wake: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  const rest = (ms: number): Promise<void> => new Promise<void>((resolve) => (wake = { timer: setTimeout(resolve, ms), resolve }));
  const decider = backgroundLoop(ctx, 'deciding', async () => {
    const started = performance.now();
    const r = await exclusive(() => decideBatch(ctx, node, nowSeconds()));
    if (r && r.stored > 0) looker.nudge();
    if (!r?.more) return false;
    if (sendsUnderWay(ctx)) {
      // Sends under way: rest in proportion to the batch, so that deciding takes at most DUTY of the time.
      await rest(Math.min(MAX_REST_MS, (performance.now() - started) * (1 / DUTY - 1)));
      wake = undefined;
    }
    return true;
  });
  let pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  const looker = backgroundLoop(ctx, 'sending', async () => {
    const { more } = await worker.look(nowSeconds());
    // While messages are being sent, at most one look a second: what is due waits for a pause.
    if (more && sendsUnderWay(ctx)) {
      await new Promise<void>((resolve) => (pause = { timer: setTimeout(resolve, MAX_REST_MS), resolve }));
      pause = undefined;
    }
    return more;
  });
  const nudge = (): void => {
    if (stopped) return;
    decider.nudge();
    looker.nudge();
  };
  // A message wakes the decider only: the sender's looks (statements that write) follow what
  // the decider stored, and the timer, rather than every send.
  const unsubscribe = ctx.bus.subscribe((env) => {
    if (env.event.type !== 'message' || stopped) return;
    noteSend(ctx);
    decider.nudge();
  });
  const timer = setInterval(nudge, POLL_MS);
  timer.unref();
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    clearInterval(timer);
    for (const w of [wake, pause]) {
      if (!w) continue;
      clearTimeout(w.timer);
      w.resolve();
    }
    unsubscribe();
    await Promise.all([decider.idle(), looker.idle()]);
    await deciding;
    await worker.stop();
    await notificationCursor.release(ctx.store.db, node).catch(() => undefined);
  });
  const service = { decideNow, runDue };
  ctx.notifications = service;
  return service;
}

/**
 * A loop that runs `step` while it answers that more may be waiting, and again whenever
 * nudged meanwhile: a nudge during a step is never lost, and two steps never overlap.
 */
function backgroundLoop(ctx: AppContext, what: string, step: () => Promise<boolean>): { nudge(): void; idle(): Promise<void>; settled(): Promise<void> } {
  let wanted = false;
  let running: Promise<void> | undefined;
  const loop = async (): Promise<void> => {
    try {
      while (wanted) {
        wanted = false;
        if (await step()) wanted = true;
        // A turn of the event loop between steps. On SQLite a step's reads and its write
        // can all complete without one (better-sqlite3, the writer's synchronous calls), so
        // a backlog worked through back to back held every request: after an hour of sends at
        // 500 a second (bench retention), the decider's catch-up held the server 161 s.
        await nextTurn();
      }
    } catch (err) {
      ctx.log.error({ err }, `missed-message notifications: ${what} failed`);
    } finally {
      running = undefined;
    }
  };
  return {
    nudge: () => {
      wanted = true;
      running ??= new Promise<void>((resolve) => setImmediate(resolve)).then(loop);
    },
    idle: async () => {
      wanted = false;
      await running;
    },
    // The step under way, if any, has ended; unlike idle(), a nudge still waiting is kept.
    settled: async () => {
      await running;
    },
  };
}
