import type { AppContext } from '../context.js';
import type { ParleyEvent } from '../events/types.js';
import { publish } from '../events/publish.js';
import { transact as storeTransact, type Tx as StoreTx } from '../store/tx.js';

/** An action's unit of work: the store's transaction, plus the events it will publish. */
export interface Tx extends StoreTx {
  /** Queues an event for `userIds`; it is published once the transaction has committed, never on rollback. */
  notify(event: ParleyEvent, userIds: Iterable<number>, realmId: number): void;
}

/** Runs `fn` in one transaction; its events leave through publish() after COMMIT. */
export function transact<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return storeTransact(ctx.store.db, (storeTx) => fn({
    ...storeTx,
    notify: (event, userIds, realmId) => {
      const users = [...userIds];
      if (users.length > 0) storeTx.onCommit(() => publish(ctx.bus, realmId, event, users));
    },
  }), (err) => ctx.log.error({ err }, 'after-commit hook failed'));
}

/**
 * For an action whose whole write is ONE statement (reads may surround it): that statement
 * commits as it returns, so it needs no BEGIN and COMMIT of its own, and its events leave
 * after it as they would after a COMMIT (never if it throws). On SQLite this is one round
 * trip to the writer thread instead of three, and the writer is held for that one only.
 * A second write in `fn` would commit separately: use transact() for that.
 */
export async function writeAlone<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const after: Array<() => void> = [];
  const result = await fn({
    db: ctx.store.db,
    onCommit: (f) => after.push(f),
    notify: (event, userIds, realmId) => {
      const users = [...userIds];
      if (users.length > 0) after.push(() => publish(ctx.bus, realmId, event, users));
    },
  });
  for (const f of after) {
    try {
      f();
    } catch (err) {
      ctx.log.error({ err }, 'after-commit hook failed');
    }
  }
  return result;
}
