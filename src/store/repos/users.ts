import type { Insertable, Updateable } from 'kysely';
import type { UserTable } from '../schema.js';
import { identityChanged } from '../versions.js';
import type { Q, UserRow } from '../rows.js';

export const users = {
  findById: (q: Q, id: number): Promise<UserRow | undefined> =>
    q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),

  findInRealm: (q: Q, realmId: number, id: number): Promise<UserRow | undefined> =>
    q.selectFrom('users').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst(),

  // No stored address holds a NUL, and PostgreSQL refuses one even in a comparison.
  findByEmail: (q: Q, realmId: number, email: string): Promise<UserRow | undefined> =>
    email.includes('\u0000') ? Promise.resolve(undefined) : q.selectFrom('users').selectAll()
      .where('realm_id', '=', realmId).where('email_lower', '=', email.toLowerCase()).executeTakeFirst(),

  listByRealm: (q: Q, realmId: number): Promise<UserRow[]> =>
    q.selectFrom('users').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  listByIds: (q: Q, ids: number[]): Promise<UserRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('users').selectAll().where('id', 'in', ids).execute(),

  listActiveIdsInRealm: async (q: Q, realmId: number): Promise<number[]> =>
    (await q.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).execute()).map((r) => r.id),

  listAdminIds: async (q: Q, realmId: number): Promise<number[]> =>
    (await q.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1)
      .where('role', '<=', 200).execute()).map((r) => r.id),

  insert: async (q: Q, row: Insertable<UserTable>): Promise<number> => {
    identityChanged(q);
    const r = await q.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow();
    return r.id;
  },

  update: (q: Q, id: number, patch: Updateable<UserTable>) => {
    identityChanged(q);
    return q.updateTable('users').set(patch).where('id', '=', id).execute();
  },
};
