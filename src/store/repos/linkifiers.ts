import type { Q } from '../rows.js';
import { rowsWritten } from '../changes.js';

export interface LinkifierRow { id: number; realm_id: number; pattern: string; url_format_string: string; url_template: string | null; position: number }

// Linkifiers change how every message of the realm presents (content rendered after the
// change, topic_links always): their writes retire the realm scope, which empties the
// message JSON cache too.
export const linkifiers = {
  /** In the order they apply: their position (level 202), made in the order they were added. */
  listByRealm: (q: Q, realmId: number): Promise<LinkifierRow[]> =>
    q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).orderBy('position').orderBy('id').execute(),

  findById: (q: Q, realmId: number, id: number): Promise<LinkifierRow | undefined> =>
    q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst(),

  findByPattern: (q: Q, realmId: number, pattern: string): Promise<LinkifierRow | undefined> =>
    q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).where('pattern', '=', pattern).executeTakeFirst(),

  /** Added last: after the highest position of the organization's linkifiers. */
  insert: async (q: Q, row: { realm_id: number; pattern: string; url_format_string: string; url_template: string | null }): Promise<number> => {
    const last = await q.selectFrom('realm_filter').select((eb) => eb.fn.max('position').as('p')).where('realm_id', '=', row.realm_id).executeTakeFirst();
    const r = await q.insertInto('realm_filter').values({ ...row, position: Number(last?.p ?? 0) + 1 }).returning('id').executeTakeFirstOrThrow();
    rowsWritten(q, 'realms');
    return r.id;
  },

  update: async (q: Q, id: number, values: { pattern: string; url_format_string: string; url_template: string | null }): Promise<void> => {
    await q.updateTable('realm_filter').set(values).where('id', '=', id).execute();
    rowsWritten(q, 'realms');
  },

  setPosition: async (q: Q, id: number, position: number): Promise<void> => {
    await q.updateTable('realm_filter').set({ position }).where('id', '=', id).execute();
    rowsWritten(q, 'realms');
  },

  delete: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('realm_filter').where('id', '=', id).execute();
    rowsWritten(q, 'realms');
  },
};
