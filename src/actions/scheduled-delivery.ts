import type { AppContext } from '../context.js';
import { scheduledMessages } from '../store/repos/scheduled-messages.js';
import { deliverScheduledMessage } from './scheduled-messages.js';
import { nowSeconds } from '../lib/time.js';
import { serialRounds } from '../lib/serial-rounds.js';

/** How often each node looks for due scheduled messages. */
const POLL_MS = 1000;
/** A node that took a message and died frees it after this; a live one sends long before. */
const LEASE_SECS = 60;
const BATCH = 100;

export interface ScheduledDelivery {
  /**
   * Sends every message due at `now` (the clock by default; tests pass a later time rather
   * than wait) that no other node holds, and answers how many this node tried.
   */
  deliverDue(now?: number): Promise<number>;
}

/**
 * The delivery worker (Zulip's deliver_scheduled_messages), run by every node. Due
 * messages are in the database, so they outlive a restart or a crash and are sent by the
 * next look. A node takes a lease on a message before preparing its send so that nodes do
 * not duplicate the work; the send itself stores only while the lease holds, in the same
 * transaction as the message (store/message-batch.ts), so each is sent exactly once.
 */
export function startScheduledDelivery(ctx: AppContext): ScheduledDelivery {
  let stopped = false;
  const round = async (now: number): Promise<number> => {
    let tried = 0;
    for (;;) {
      const due = await scheduledMessages.listDue(ctx.store.db, now, BATCH);
      let leased = 0;
      for (const id of due) {
        if (stopped) return tried;
        const lease = now + LEASE_SECS;
        if (!(await scheduledMessages.lease(ctx.store.db, id, now, lease))) continue;
        leased++;
        tried++;
        await deliverScheduledMessage(ctx, id, now, lease);
      }
      if (due.length < BATCH || leased === 0) return tried;
    }
  };
  const rounds = serialRounds(round);
  const deliverDue = (now = nowSeconds()): Promise<number> => rounds.run(now);
  const timer = setInterval(() => {
    if (rounds.busy() || stopped) return;
    deliverDue().catch((err: unknown) => ctx.log.error({ err }, 'scheduled message delivery round failed'));
  }, POLL_MS);
  timer.unref();
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    clearInterval(timer);
    await rounds.settled();
  });
  return { deliverDue };
}
