import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';
import type { AppContext } from '../context.js';
import type { ParleyEvent } from '../events/bus.js';
import { committed } from './versions.js';

/**
 * A unit of work. Actions write through `db` and queue events with `notify`;
 * the events are published only after COMMIT and dropped on rollback.
 */
export interface Tx {
  db: Transaction<DB> | Kysely<DB>;
  notify(event: ParleyEvent, userIds: Iterable<number>, realmId: number): void;
  onCommit(fn: () => void): void;
}

export async function transact<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const after: Array<() => void> = [];
  let handle: object | undefined;
  const result = await ctx.store.db.transaction().execute((trx) => {
    handle = trx;
    return fn({
      db: trx,
      notify: (event, userIds, realmId) => {
        const users = [...userIds];
        if (users.length > 0) after.push(() => ctx.bus.publish({ realmId, event, userIds: users }));
      },
      onCommit: (f) => after.push(f),
    });
  });
  if (handle) committed(handle);
  for (const f of after) {
    try {
      f();
    } catch (err) {
      ctx.log.error({ err }, 'after-commit hook failed');
    }
  }
  return result;
}
