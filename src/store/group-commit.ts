import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { EventEnvelope } from '../events/bus.js';
import type { Tx, UserMessageInsert } from './tx.js';
import { messages } from './repos/messages.js';
import { committed } from './versions.js';

interface Item<T> {
  fn: (tx: Tx) => Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

const MAX_BATCH = 64;

/**
 * Group commit: units of work submitted while a transaction is running wait for it, then
 * all run in the next transaction, each inside its own SAVEPOINT so that one failing unit
 * rolls back alone. One COMMIT (and one WAL write or fsync) serves the whole batch; each
 * unit's events are still published only after that COMMIT, and only if its savepoint
 * was released. This is the send path's answer to per-message commit cost.
 */
export class GroupCommitter {
  private pending: Array<Item<unknown>> = [];
  private running = false;

  constructor(private ctx: AppContext) {}

  submit<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve, reject } as Item<unknown>);
      if (!this.running) {
        this.running = true;
        // better-sqlite3 answers synchronously, so a transaction started right away would
        // finish before the event loop reads the next request; waiting one turn of the loop
        // lets every request that already arrived join the batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.runBatch(this.pending.splice(0, MAX_BATCH));
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Array<Item<unknown>>): Promise<void> {
    const outcomes: Array<{ ok: boolean; value?: unknown; error?: unknown; after: Array<() => void> }> = [];
    let handle: object | undefined;
    try {
      await this.ctx.store.db.transaction().execute(async (trx) => {
        handle = trx;
        const recipientRows: UserMessageInsert[] = [];
        for (const item of batch) {
          const after: Array<() => void> = [];
          const staged: UserMessageInsert[][] = [];
          const tx: Tx = {
            db: trx,
            notify: (event, userIds, realmId) => {
              const users = [...userIds];
              if (users.length > 0) after.push(() => this.ctx.bus.publish({ realmId, event, userIds: users } satisfies EventEnvelope));
            },
            onCommit: (f) => after.push(f),
            stageUserMessages: (rows) => staged.push(rows),
          };
          await sql`SAVEPOINT parley_unit`.execute(trx);
          try {
            const value = await item.fn(tx);
            await sql`RELEASE SAVEPOINT parley_unit`.execute(trx);
            for (const rows of staged) recipientRows.push(...rows);
            outcomes.push({ ok: true, value, after });
          } catch (error) {
            await sql`ROLLBACK TO SAVEPOINT parley_unit`.execute(trx);
            await sql`RELEASE SAVEPOINT parley_unit`.execute(trx);
            outcomes.push({ ok: false, error, after: [] });
          }
        }
        // Should this fail, the whole batch rolls back and every unit is told (below).
        recipientRows.sort((a, b) => a.user_id - b.user_id || a.message_id - b.message_id);
        await messages.insertUserMessages(trx, recipientRows);
      });
    } catch (error) {
      // The COMMIT itself failed: nothing of this batch was stored.
      for (const [i, item] of batch.entries()) item.reject(outcomes[i]?.ok === false ? outcomes[i]!.error : error);
      return;
    }
    if (handle) committed(handle);
    for (const [i, item] of batch.entries()) {
      const o = outcomes[i]!;
      if (!o.ok) {
        item.reject(o.error);
        continue;
      }
      for (const f of o.after) {
        try {
          f();
        } catch (err) {
          this.ctx.log.error({ err }, 'after-commit hook failed');
        }
      }
      item.resolve(o.value);
    }
  }
}

const committers = new WeakMap<AppContext, GroupCommitter>();

export function groupCommit<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let c = committers.get(ctx);
  if (!c) committers.set(ctx, (c = new GroupCommitter(ctx)));
  return c.submit(fn);
}
