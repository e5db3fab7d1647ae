import type { Insertable, Updateable } from 'kysely';
import type { RealmTable } from '../schema.js';
import { rowsWritten } from '../changes.js';
import type { Q, RealmRow } from '../rows.js';

export const realms = {
  findById: (q: Q, id: number): Promise<RealmRow | undefined> =>
    q.selectFrom('realm').selectAll().where('id', '=', id).executeTakeFirst(),

  findByStringId: (q: Q, stringId: string): Promise<RealmRow | undefined> =>
    q.selectFrom('realm').selectAll().where('string_id', '=', stringId).executeTakeFirst(),

  list: (q: Q): Promise<RealmRow[]> => q.selectFrom('realm').selectAll().orderBy('id').execute(),

  insert: async (q: Q, row: Insertable<RealmTable>): Promise<number> => {
    const r = await q.insertInto('realm').values(row).returning('id').executeTakeFirstOrThrow();
    rowsWritten(q, 'realms');
    return r.id;
  },

  update: async (q: Q, id: number, patch: Updateable<RealmTable>) => {
    const r = await q.updateTable('realm').set(patch).where('id', '=', id).execute();
    rowsWritten(q, 'realms');
    return r;
  },
};
