import type { Q } from '../rows.js';

export interface RealmPlaygroundRow { id: number; realm_id: number; name: string; pygments_language: string; url_template: string }

export const realmPlaygrounds = {
  /** In the order they were added, as Zulip lists them. */
  listByRealm: (q: Q, realmId: number): Promise<RealmPlaygroundRow[]> =>
    q.selectFrom('realm_playground').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  findById: (q: Q, realmId: number, id: number): Promise<RealmPlaygroundRow | undefined> =>
    q.selectFrom('realm_playground').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst(),

  findByLanguageAndName: (q: Q, realmId: number, language: string, name: string): Promise<RealmPlaygroundRow | undefined> =>
    q.selectFrom('realm_playground').selectAll().where('realm_id', '=', realmId)
      .where('pygments_language', '=', language).where('name', '=', name).executeTakeFirst(),

  insert: async (q: Q, row: Omit<RealmPlaygroundRow, 'id'>): Promise<number> =>
    (await q.insertInto('realm_playground').values(row).returning('id').executeTakeFirstOrThrow()).id,

  delete: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('realm_playground').where('id', '=', id).execute();
  },
};
