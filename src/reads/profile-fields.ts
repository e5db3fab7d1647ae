import type { Q } from '../store/rows.js';
import { profileFields } from '../store/repos/profile-fields.js';
import { presentProfileField, presentProfileValue, type WireProfileField, type WireProfileValue } from '../presenters/profile-field.js';

export type ProfileData = Record<string, WireProfileValue>;

/** GET /realm/profile_fields, register's custom_profile_fields and their event: by order, as the server's feature level presents them. */
export const realmProfileFields = async (q: Q, realmId: number, featureLevel: number): Promise<WireProfileField[]> =>
  (await profileFields.listByRealm(q, realmId)).map((f) => presentProfileField(f, featureLevel));

/** Every user's `profile_data` in the realm, by user id (users without values are absent). */
export async function profileDataOfRealm(q: Q, realmId: number): Promise<Map<number, ProfileData>> {
  const out = new Map<number, ProfileData>();
  for (const v of await profileFields.listValuesByRealm(q, realmId)) {
    let data = out.get(v.user_id);
    if (!data) out.set(v.user_id, (data = {}));
    data[String(v.field_id)] = presentProfileValue(v.value, v.rendered_value);
  }
  return out;
}

export async function profileDataOfUser(q: Q, userId: number): Promise<ProfileData> {
  const data: ProfileData = {};
  for (const v of await profileFields.listValuesOfUser(q, userId)) data[String(v.field_id)] = presentProfileValue(v.value, v.rendered_value);
  return data;
}
