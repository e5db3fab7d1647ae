import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';
import { committed } from './changes.js';

/**
 * A unit of work. Actions write through `db` and queue what must happen once it has
 * committed (publishing its events) with `onCommit`; those run only after COMMIT and are
 * dropped on rollback.
 */
export interface Tx {
  db: Transaction<DB> | Kysely<DB>;
  onCommit(fn: () => void): void;
}

export async function transact<T>(
  db: Kysely<DB>, fn: (tx: Tx) => Promise<T>, onHookError: (err: unknown) => void,
): Promise<T> {
  const after: Array<() => void> = [];
  let handle: object | undefined;
  const result = await db.transaction().execute((trx) => {
    handle = trx;
    return fn({ db: trx, onCommit: (f) => after.push(f) });
  });
  if (handle) committed(handle);
  for (const f of after) {
    try {
      f();
    } catch (err) {
      onHookError(err);
    }
  }
  return result;
}
