import type { AppContext } from '../context.js';
import { missedMessages, type LeasedMissedMessage } from '../store/repos/missed-messages.js';
import { users } from '../store/repos/users.js';
import { isTrigger, type MissedMessage } from './triggers.js';
import type { MissedMessageSenders } from './senders.js';
import { sendsUnderWay } from './send-pressure.js';

/** A node that took notifications and died frees them after this. */
const LEASE_SECS = 300;
/** Users taken per look (one statement leases all their rows). */
const USERS_PER_LOOK = 100;
/** While messages are being sent: few users a look (and a look a second, start.ts), so that the sends keep their pace. */
const USERS_PER_LOOK_UNDER_SENDS = 10;
/**
 * Users sent to at once, per kind: one slow user holds one of these, never the others, and
 * slow mail never holds up pushes.
 */
const IN_FLIGHT = 16;
/** How long shutdown waits for sends under way. */
const STOP_WAIT_MS = 10_000;
/** A notification still failing this long after it was first due is given up. */
const GIVE_UP_SECS = 24 * 3600;

/** Seconds before the next try after `attempts` failures: 10 s doubling, at most an hour. */
export const backoffSecs = (attempts: number): number => Math.min(10 * 2 ** attempts, 3600);

type Kind = 'email' | 'push';

/**
 * Sends the due notifications (Zulip's MissedMessageWorker and its push worker): every node
 * runs it, and one statement leases the rows of a look's users, so that each is sent by
 * exactly one node and a look costs a few statements whatever its size. An email batch is
 * all of a user's pending email notifications, once the earliest is due. A send that throws
 * is tried again with backoff, by any node.
 */
export class NotificationWorker {
  private inFlight: Record<Kind, Set<Promise<void>>> = { email: new Set(), push: new Set() };
  private stopped = false;
  /** Rows sent (or dropped) not yet deleted: deleted together, one statement for many sends. */
  private doneIds: number[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private ctx: AppContext, private senders: MissedMessageSenders) {}

  /**
   * One look per kind at what is due at `now`: starts the sends (at most IN_FLIGHT at once)
   * without waiting for them, so that a slow user holds one slot and nothing else. Answers
   * the sends started and whether more may be due.
   */
  async look(now: number): Promise<{ tasks: Array<Promise<void>>; more: boolean }> {
    const looks = await Promise.all((['push', 'email'] as const).map((kind) => this.lookAt(kind, now)));
    return { tasks: looks.flatMap((l) => l.tasks), more: looks.some((l) => l.more) };
  }

  private async lookAt(kind: Kind, now: number): Promise<{ tasks: Array<Promise<void>>; more: boolean }> {
    const db = this.ctx.store.db;
    const tasks: Array<Promise<void>> = [];
    if (this.stopped || !(await missedMessages.anyDue(db, kind, now))) return { tasks, more: false };
    const userCount = sendsUnderWay(this.ctx) ? USERS_PER_LOOK_UNDER_SENDS : USERS_PER_LOOK;
    const rows = await missedMessages.leaseDue(db, kind, now, now + LEASE_SECS, userCount);
    if (rows.length === 0) return { tasks, more: false };
    const byUser = new Map<number, LeasedMissedMessage[]>();
    for (const r of rows) {
      const list = byUser.get(r.user_id);
      if (list) list.push(r);
      else byUser.set(r.user_id, [r]);
    }
    const [present, people] = await Promise.all([
      missedMessages.existing(db, [...new Set(rows.map((r) => r.message_id))]),
      users.listByIds(db, [...byUser.keys()]),
    ]);
    const active = new Map(people.filter((u) => u.is_active === 1).map((u) => [u.id, u]));
    // Deactivated users hear of nothing, and a deleted message is not told.
    const done: number[] = [];
    const slots = this.inFlight[kind];
    for (const [userId, list] of byUser) {
      const user = active.get(userId);
      const live = list.filter((r) => present.has(r.message_id)).sort((a, b) => a.message_id - b.message_id);
      for (const r of list) if (!user || !present.has(r.message_id)) done.push(r.id);
      if (!user || live.length === 0) continue;
      while (slots.size >= IN_FLIGHT) await Promise.race(slots);
      const task = this.send(kind, user, live, now).finally(() => slots.delete(task));
      slots.add(task);
      tasks.push(task);
    }
    this.markDone(done);
    return { tasks, more: byUser.size >= userCount };
  }

  private markDone(ids: number[]): void {
    if (ids.length === 0) return;
    this.doneIds.push(...ids);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const ids = this.doneIds;
      this.doneIds = [];
      this.flushing = undefined;
      await missedMessages.deleteIds(this.ctx.store.db, ids);
    }).catch((err: unknown) => this.ctx.log.error({ err }, 'could not delete sent missed-message notifications; they may be sent again'));
  }

  /** Until what was sent so far is deleted. */
  async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Everything due at `now`, look after look. */
  async runDue(now: number): Promise<number> {
    const all: Array<Promise<void>> = [];
    for (;;) {
      const r = await this.look(now);
      all.push(...r.tasks);
      if (!r.more || this.stopped) break;
    }
    await Promise.all(all);
    // A background look may have leased some of what is due before this one did: its sends
    // count too, or a caller would take "nothing sent" for an answer while a send is on its way.
    await Promise.all([...this.inFlight.email, ...this.inFlight.push]);
    await this.flushed();
    return all.length;
  }

  private async send(kind: Kind, user: Parameters<MissedMessageSenders['email']>[1], live: LeasedMissedMessage[], now: number): Promise<void> {
    const items: MissedMessage[] = live.map((r) => ({
      messageId: r.message_id, trigger: isTrigger(r.trigger) ? r.trigger : 'private_message', mentionedUserGroupId: r.mentioned_user_group_id,
    }));
    const ids = live.map((r) => r.id);
    try {
      await this.senders[kind](this.ctx, user, items);
      this.markDone(ids);
    } catch (err) {
      const firstDue = Math.min(...live.map((r) => r.first_due));
      try {
        if (now - firstDue >= GIVE_UP_SECS) {
          this.ctx.log.error({ err, userId: user.id, kind, count: ids.length }, 'missed-message notifications given up after failing for a day');
          this.markDone(ids);
        } else {
          const attempts = Math.max(...live.map((r) => r.attempts));
          this.ctx.log.warn({ err, userId: user.id, kind, count: ids.length, attempts: attempts + 1 }, 'missed-message notifications failed; retrying with backoff');
          await missedMessages.retryAt(this.ctx.store.db, ids, now + backoffSecs(attempts));
        }
      } catch (storeErr) {
        // The lease runs out and a later look takes them again.
        this.ctx.log.error({ err: storeErr, userId: user.id, kind }, 'missed-message notification bookkeeping failed');
      }
    }
  }

  /** Waits for the sends under way, but not for ever: one that hangs is left to its lease (another node, or the next start, sends it). */
  async stop(): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.inFlight.email, ...this.inFlight.push]), new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(timer);
    await this.flushed();
  }
}
