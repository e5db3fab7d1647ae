import type { RealmEmojiRow, Q } from '../rows.js';

export type { RealmEmojiRow };

export const realmEmoji = {
  /** Every custom emoji of the organization, deactivated ones too, by id. */
  listByRealm: (q: Q, realmId: number): Promise<RealmEmojiRow[]> =>
    q.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  findActiveByName: (q: Q, realmId: number, name: string): Promise<RealmEmojiRow | undefined> =>
    q.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).where('name', '=', name).where('deactivated', '=', 0).executeTakeFirst(),

  insert: async (q: Q, row: { realm_id: number; name: string; author_id: number }): Promise<number> =>
    (await q.insertInto('realm_emoji').values(row).returning('id').executeTakeFirstOrThrow()).id,

  update: async (q: Q, id: number, patch: { file_name?: string; is_animated?: number; deactivated?: number }): Promise<void> => {
    await q.updateTable('realm_emoji').set(patch).where('id', '=', id).execute();
  },
};
