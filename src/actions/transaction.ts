import type { AppContext } from '../context.js';
import type { ParleyEvent } from '../events/types.js';
import { publish } from '../events/publish.js';
import { transact as storeTransact, type Tx as StoreTx } from '../store/tx.js';

/** An action's unit of work: the store's transaction, plus the events it will publish. */
export interface Tx extends StoreTx {
  /** Queues an event for `userIds`; it is published once the transaction has committed, never on rollback. */
  notify(event: ParleyEvent, userIds: Iterable<number>, realmId: number): void;
  /**
   * Work that must follow the commit and may itself write (Notification Bot's messages,
   * which go through the send path): run after the events, before transact() returns.
   * A failure is logged; it cannot undo what committed.
   */
  later(fn: (ctx: AppContext) => Promise<void>): void;
}

/** Runs `fn` in one transaction; its events leave through publish() after COMMIT. */
export async function transact<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const afterwards: Array<(ctx: AppContext) => Promise<void>> = [];
  const result = await storeTransact(ctx.store.db, (storeTx) => fn({
    ...storeTx,
    notify: (event, userIds, realmId) => {
      const users = [...userIds];
      if (users.length > 0) storeTx.onCommit(() => publish(ctx.bus, realmId, event, users));
    },
    later: (f) => afterwards.push(f),
  }), (err) => ctx.log.error({ err }, 'after-commit hook failed'));
  for (const f of afterwards) {
    try {
      await f(ctx);
    } catch (err) {
      ctx.log.error({ err }, 'work after commit failed');
    }
  }
  return result;
}
