import type { ProfileFieldRow, Q } from '../rows.js';
import { rowsWritten } from '../changes.js';

export interface ProfileValueRow { user_id: number; field_id: number; value: string; rendered_value: string | null }

/**
 * Custom profile fields and users' values. Values are part of the users the realm's
 * cached lists present, so writing one retires those as a change of users does.
 */
export const profileFields = {
  listByRealm: (q: Q, realmId: number): Promise<ProfileFieldRow[]> =>
    q.selectFrom('custom_profile_field').selectAll().where('realm_id', '=', realmId).orderBy('order').orderBy('id').execute(),

  findInRealm: (q: Q, realmId: number, id: number): Promise<ProfileFieldRow | undefined> =>
    q.selectFrom('custom_profile_field').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst(),

  findByName: (q: Q, realmId: number, name: string): Promise<ProfileFieldRow | undefined> =>
    q.selectFrom('custom_profile_field').selectAll().where('realm_id', '=', realmId).where('name', '=', name).executeTakeFirst(),

  insert: (q: Q, row: { realm_id: number; name: string; hint: string; field_type: number; field_data: string; display_in_profile_summary: number; required: number; editable_by_user: number }): Promise<ProfileFieldRow> =>
    q.insertInto('custom_profile_field').values(row).returningAll().executeTakeFirstOrThrow(),

  update: async (q: Q, id: number, change: Partial<Pick<ProfileFieldRow, 'name' | 'hint' | 'field_data' | 'order' | 'display_in_profile_summary' | 'required' | 'editable_by_user'>>): Promise<void> => {
    await q.updateTable('custom_profile_field').set(change).where('id', '=', id).execute();
  },

  /** The field and every user's value of it. */
  delete: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('custom_profile_field_value').where('field_id', '=', id).execute();
    await q.deleteFrom('custom_profile_field').where('id', '=', id).execute();
    rowsWritten(q, 'users');
  },

  /** Every value of the realm's users. */
  listValuesByRealm: (q: Q, realmId: number): Promise<ProfileValueRow[]> =>
    q.selectFrom('custom_profile_field_value').innerJoin('custom_profile_field', 'custom_profile_field.id', 'custom_profile_field_value.field_id')
      .selectAll('custom_profile_field_value').where('custom_profile_field.realm_id', '=', realmId).execute(),

  listValuesOfUser: (q: Q, userId: number): Promise<ProfileValueRow[]> =>
    q.selectFrom('custom_profile_field_value').selectAll().where('user_id', '=', userId).execute(),

  upsertValue: async (q: Q, row: ProfileValueRow): Promise<void> => {
    await q.insertInto('custom_profile_field_value').values(row)
      .onConflict((oc) => oc.columns(['user_id', 'field_id']).doUpdateSet({ value: row.value, rendered_value: row.rendered_value })).execute();
    rowsWritten(q, 'users');
  },

  /** False when the user had no value for the field. */
  deleteValue: async (q: Q, userId: number, fieldId: number): Promise<boolean> => {
    const r = await q.deleteFrom('custom_profile_field_value').where('user_id', '=', userId).where('field_id', '=', fieldId).executeTakeFirst();
    const deleted = Number(r.numDeletedRows) > 0;
    if (deleted) rowsWritten(q, 'users');
    return deleted;
  },
};
