import type { AppContext } from '../context.js';
import { missedMessages, type LeasedMissedMessage } from '../store/repos/missed-messages.js';
import { users } from '../store/repos/users.js';
import { isTrigger, type MissedMessage } from './triggers.js';
import type { MissedMessageSenders } from './senders.js';

/** A node that took a user's notifications and died frees them after this. */
const LEASE_SECS = 300;
const USERS_PER_LOOK = 100;
/** Users sent to at once: one slow user holds one of these, never the others. */
const IN_FLIGHT = 16;
/** A notification still failing this long after it was first due is given up. */
const GIVE_UP_SECS = 24 * 3600;

/** Seconds before the next try after `attempts` failures: 10 s doubling, at most an hour. */
export const backoffSecs = (attempts: number): number => Math.min(10 * 2 ** attempts, 3600);

type Kind = 'email' | 'push';

/**
 * Sends the due notifications (Zulip's MissedMessageWorker and its push worker): every node
 * runs it; a node leases a user's rows of one kind before sending, so that each is sent by
 * exactly one node. An email batch is all of a user's pending email notifications, once the
 * earliest is due. A send that throws is tried again with backoff, by any node.
 */
export class NotificationWorker {
  private inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private ctx: AppContext, private senders: MissedMessageSenders) {}

  /** Sends what is due at `now`; answers how many users' batches this node took. */
  async runDue(now: number): Promise<number> {
    const mine: Array<Promise<void>> = [];
    for (const kind of ['push', 'email'] as const) {
      for (;;) {
        if (this.stopped) break;
        const due = await missedMessages.dueUsers(this.ctx.store.db, kind, now, USERS_PER_LOOK, []);
        let leased = 0;
        for (const userId of due) {
          if (this.stopped) break;
          while (this.inFlight.size >= IN_FLIGHT) await Promise.race(this.inFlight);
          const rows = await missedMessages.leaseUser(this.ctx.store.db, userId, kind, now, now + LEASE_SECS);
          if (rows.length === 0) continue;
          leased++;
          const task = this.send(userId, kind, rows, now).finally(() => this.inFlight.delete(task));
          this.inFlight.add(task);
          mine.push(task);
        }
        if (due.length < USERS_PER_LOOK || leased === 0) break;
      }
    }
    await Promise.all(mine);
    return mine.length;
  }

  private async send(userId: number, kind: Kind, rows: LeasedMissedMessage[], now: number): Promise<void> {
    const db = this.ctx.store.db;
    const gone = rows.filter((r) => r.present === null).map((r) => r.id);
    const live = rows.filter((r) => r.present !== null);
    try {
      await missedMessages.deleteIds(db, gone);
      const user = await users.findById(db, userId);
      // Deactivated users hear of nothing; a deleted message is not told.
      if (!user || user.is_active !== 1 || live.length === 0) {
        await missedMessages.deleteIds(db, live.map((r) => r.id));
        return;
      }
      const items: MissedMessage[] = live.map((r) => ({
        messageId: r.message_id, trigger: isTrigger(r.trigger) ? r.trigger : 'private_message', mentionedUserGroupId: r.mentioned_user_group_id,
      }));
      try {
        await this.senders[kind](this.ctx, user, items);
      } catch (err) {
        const ids = live.map((r) => r.id);
        const firstDue = Math.min(...live.map((r) => r.first_due));
        if (now - firstDue >= GIVE_UP_SECS) {
          this.ctx.log.error({ err, userId, kind, count: ids.length }, 'missed-message notifications given up after failing for a day');
          await missedMessages.deleteIds(db, ids);
        } else {
          const attempts = Math.max(...live.map((r) => r.attempts));
          this.ctx.log.warn({ err, userId, kind, count: ids.length, attempts: attempts + 1 }, 'missed-message notifications failed; retrying with backoff');
          await missedMessages.retryAt(db, ids, now + backoffSecs(attempts));
        }
        return;
      }
      await missedMessages.deleteIds(db, live.map((r) => r.id));
    } catch (err) {
      // The store failed: the lease runs out and another look takes them again.
      this.ctx.log.error({ err, userId, kind }, 'missed-message notification bookkeeping failed');
    }
  }

  busy(): boolean {
    return this.inFlight.size >= IN_FLIGHT;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.inFlight);
  }
}
