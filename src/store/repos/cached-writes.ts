import type { Insertable, Kysely, Updateable, UpdateResult } from 'kysely';
import type { DB } from '../schema.js';
import type { Q } from '../rows.js';
import { rowsWritten, type RowKind } from '../changes.js';

/** The tables with an id whose rows the caches hold, by the kind their writes are told as. */
const KINDS = { realm: 'realms', stream: 'streams', users: 'users' } as const satisfies Record<string, RowKind>;
type CachedTable = keyof typeof KINDS;
/** The cached tables as update() sees them: an id and columns. */
type UpdatableById = { [K in CachedTable]: { id: number; [column: string]: unknown } };

/**
 * Insert and update by id of a table the caches hold rows of: every write is told as its
 * kind (../changes.ts), so that the caches retire what they hold once it has committed.
 */
export function cachedWrites<T extends CachedTable>(table: T) {
  const kind = KINDS[table];
  return {
    /** Answers the new row's id. */
    insert: async (q: Q, row: Insertable<DB[T]>): Promise<number> => {
      const r = await q.insertInto(table).values(row).returning('id').executeTakeFirstOrThrow();
      rowsWritten(q, kind);
      return r.id;
    },
    update: async (q: Q, id: number, patch: Updateable<DB[T]>): Promise<UpdateResult[]> => {
      // Kysely cannot resolve set()'s overloads on a table named by a type parameter; the
      // patch was checked against the table's own type (Updateable<DB[T]>) at the call.
      const r = await (q as unknown as Kysely<UpdatableById>).updateTable(table as CachedTable).set(patch).where('id', '=', id).execute();
      rowsWritten(q, kind);
      return r;
    },
  };
}
