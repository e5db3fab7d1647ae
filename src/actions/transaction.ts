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
  /** The server's reported feature level (ctx.config.featureLevel), for what an action's events carry by level. */
  readonly featureLevel: number;
}

type Later = (ctx: AppContext) => Promise<void>;

/** An action's Tx over a store one: events go out through publish() when the store's commit hooks run. */
function actionTx(ctx: AppContext, storeTx: StoreTx, afterwards: Later[]): Tx {
  return {
    ...storeTx,
    notify: (event, userIds, realmId) => {
      const users = [...userIds];
      if (users.length > 0) storeTx.onCommit(() => publish(ctx.bus, realmId, event, users));
    },
    later: (f) => afterwards.push(f),
    featureLevel: ctx.config.featureLevel,
  };
}

/** Runs `fn` in one transaction; its events leave through publish() after COMMIT. */
export async function transact<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const afterwards: Later[] = [];
  const result = await storeTransact(ctx.store.db, (storeTx) => fn(actionTx(ctx, storeTx, afterwards)),
    (err) => ctx.log.error({ err }, 'after-commit hook failed'));
  await runLater(ctx, afterwards);
  return result;
}

/**
 * What follows an action's commit: its later work, then, in a cluster, the wait until the
 * bus has its events and this node has heard them, so that whoever called the action
 * (a request, the CLI, a test) sees its events here as in one process.
 */
async function runLater(ctx: AppContext, afterwards: Later[]): Promise<void> {
  await runLaterWork(ctx, afterwards);
  if (ctx.bus.unsettled) await ctx.bus.settled();
}

async function runLaterWork(ctx: AppContext, afterwards: Later[]): Promise<void> {
  for (const f of afterwards) {
    try {
      await f(ctx);
    } catch (err) {
      ctx.log.error({ err }, 'work after commit failed');
    }
  }
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
  const afterwards: Later[] = [];
  const result = await fn(actionTx(ctx, { db: ctx.store.db, onCommit: (f) => after.push(f) }, afterwards));
  for (const f of after) {
    try {
      f();
    } catch (err) {
      ctx.log.error({ err }, 'after-commit hook failed');
    }
  }
  await runLater(ctx, afterwards);
  return result;
}
