import type { Q } from '../rows.js';
import { rowsWritten } from '../changes.js';

export interface LinkifierRow { id: number; realm_id: number; pattern: string; url_format_string: string }

// Linkifiers change how every message of the realm presents (content rendered after the
// change, topic_links always): their writes retire the realm scope, which empties the
// message JSON cache too.
export const linkifiers = {
  /** In id order: Zulip applies them in the order they were added. */
  listByRealm: (q: Q, realmId: number): Promise<LinkifierRow[]> =>
    q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  findById: (q: Q, realmId: number, id: number): Promise<LinkifierRow | undefined> =>
    q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst(),

  findByPattern: (q: Q, realmId: number, pattern: string): Promise<LinkifierRow | undefined> =>
    q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).where('pattern', '=', pattern).executeTakeFirst(),

  insert: async (q: Q, row: { realm_id: number; pattern: string; url_format_string: string }): Promise<number> => {
    const r = await q.insertInto('realm_filter').values(row).returning('id').executeTakeFirstOrThrow();
    rowsWritten(q, 'realms');
    return r.id;
  },

  update: async (q: Q, id: number, values: { pattern: string; url_format_string: string }): Promise<void> => {
    await q.updateTable('realm_filter').set(values).where('id', '=', id).execute();
    rowsWritten(q, 'realms');
  },

  delete: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('realm_filter').where('id', '=', id).execute();
    rowsWritten(q, 'realms');
  },
};
