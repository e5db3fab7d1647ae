import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import { nowSeconds } from '../lib/time.js';
import { serialRounds } from '../lib/serial-rounds.js';
import { notificationCursor } from '../store/repos/missed-messages.js';
import { decideBatch } from './decide.js';
import { NotificationWorker } from './worker.js';
import type { MissedMessageSenders } from './senders.js';

/** How often each node looks for undecided messages and due notifications without being nudged. */
const POLL_MS = 1000;

export interface Notifications {
  /** Decides every message after the cursor now (if this node holds it); answers how many notifications it stored. */
  decideNow(): Promise<number>;
  /** Sends what is due at `now` (tests pass a later clock); answers how many batches this node sent or tried. */
  runDue(now?: number): Promise<number>;
}

/**
 * Notifications for people who are away, off the send's path: a message event heard on the
 * bus (every node hears every one) nudges the decider, and a timer looks anyway, so that
 * messages committed while this node was down or before a nudge are decided too. The
 * decisions and what is due are in the database (migration 062): they outlive a restart.
 */
export function startNotifications(ctx: AppContext, senders: MissedMessageSenders): Notifications {
  const node = `${ctx.bus.nodeId}:${crypto.randomBytes(4).toString('hex')}`;
  const worker = new NotificationWorker(ctx, senders);
  let stopped = false;
  const decideRounds = serialRounds(async (now: number) => {
    let stored = 0;
    for (;;) {
      if (stopped) return stored;
      const r = await decideBatch(ctx, node, now);
      if (!r) return stored;
      stored += r.stored;
      if (!r.more) return stored;
    }
  });
  const decideNow = (): Promise<number> => decideRounds.run(nowSeconds());
  const runDue = (now = nowSeconds()): Promise<number> => worker.runDue(now);
  const fail = (what: string) => (err: unknown): void => ctx.log.error({ err }, what);

  // One look for however many sends land meanwhile; another after it if more came.
  let wanted = false;
  let looping = false;
  const loop = async (): Promise<void> => {
    while (wanted && !stopped) {
      wanted = false;
      await decideNow();
      await runDue();
    }
  };
  const unsubscribe = ctx.bus.subscribe((env) => {
    if (env.event.type !== 'message' || stopped) return;
    wanted = true;
    if (looping) return;
    looping = true;
    setImmediate(() => void loop().catch(fail('deciding missed-message notifications failed')).finally(() => (looping = false)));
  });
  let sending = false;
  const timer = setInterval(() => {
    if (stopped) return;
    if (!decideRounds.busy()) decideNow().catch(fail('deciding missed-message notifications failed'));
    if (sending || worker.busy()) return;
    sending = true;
    runDue().catch(fail('sending missed-message notifications failed')).finally(() => (sending = false));
  }, POLL_MS);
  timer.unref();
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
    await decideRounds.settled();
    await worker.stop();
    await notificationCursor.release(ctx.store.db, node).catch(() => undefined);
  });
  const service = { decideNow, runDue };
  ctx.notifications = service;
  return service;
}
