import type { Tx } from './transaction.js';
import type { ProfileFieldRow, RealmRow, UserRow } from '../store/rows.js';
import { profileFields } from '../store/repos/profile-fields.js';
import { users } from '../store/repos/users.js';
import { realmProfileFields } from '../reads/profile-fields.js';
import { renderStreamDescription } from '../markdown/stream-description.js';
import { fitsIdColumn } from '../lib/ids.js';
import {
  DEFAULT_EXTERNAL_ACCOUNTS, FieldType, MAX_SUMMARY_FIELDS, checkProfileField, checkProfileValue, checkUserIdsValue, isDefaultExternalField, isRenderable,
  storedFieldData, type FieldData,
} from '../lib/profile-field-rules.js';
import { badRequest, defaultFieldNotUpdatable, fieldLabelExists, fieldNotFound, invalidOrderMapping, invalidUserIdColon } from '../errors.js';

/**
 * Custom profile fields, as Zulip 5's actions: any change of the fields sends the whole
 * list (`custom_profile_fields`) to every active user; a user's value change is a
 * `realm_user` update carrying `custom_profile_field`.
 */
async function notifyFields(tx: Tx, realmId: number, featureLevel: number): Promise<void> {
  const fields = await realmProfileFields(tx.db, realmId, featureLevel);
  tx.notify({ type: 'custom_profile_fields', fields }, await users.listActiveIdsInRealm(tx.db, realmId), realmId);
}

/** Zulip's display_in_profile_summary_limit_reached: the other fields already shown in summaries. */
async function checkSummaryRoom(tx: Tx, realmId: number, exceptId?: number): Promise<void> {
  const shown = (await profileFields.listByRealm(tx.db, realmId)).filter((f) => f.display_in_profile_summary === 1 && f.id !== exceptId);
  if (shown.length >= MAX_SUMMARY_FIELDS) throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
}

export async function accessProfileField(tx: Tx, realmId: number, id: number): Promise<ProfileFieldRow> {
  const field = fitsIdColumn(id) ? await profileFields.findInRealm(tx.db, realmId, id) : undefined;
  if (!field) throw fieldNotFound(id);
  return field;
}

async function checkLabelFree(tx: Tx, realmId: number, name: string, exceptId?: number): Promise<void> {
  const same = await profileFields.findByName(tx.db, realmId, name);
  if (same && same.id !== exceptId) throw fieldLabelExists();
}

export interface NewProfileField {
  name: string; hint: string; type: number; data: FieldData;
  /** Feature levels 146 and 244; false when not given. */
  displayInSummary: boolean; required: boolean;
  /** Feature level 296; true when not given. */
  editableByUser: boolean;
}

/** POST /realm/profile_fields. A default external account takes its label and hint from Zulip's defaults. */
export async function doCreateProfileField(tx: Tx, realm: RealmRow, req: NewProfileField, featureLevel: number): Promise<number> {
  if (req.displayInSummary) await checkSummaryRoom(tx, realm.id);
  checkProfileField(req.name, req.hint, req.type, req.data, req.displayInSummary);
  const preset = isDefaultExternalField(req.type, req.data) ? DEFAULT_EXTERNAL_ACCOUNTS[req.data.subtype as string]! : undefined;
  const name = preset?.name ?? req.name;
  await checkLabelFree(tx, realm.id, name);
  const field = await profileFields.insert(tx.db, {
    realm_id: realm.id, name, hint: preset?.hint ?? req.hint, field_type: req.type,
    field_data: preset ? JSON.stringify({ subtype: req.data.subtype }) : storedFieldData(req.type, req.data),
    display_in_profile_summary: req.displayInSummary ? 1 : 0, required: req.required ? 1 : 0, editable_by_user: req.editableByUser ? 1 : 0,
  });
  // As Zulip: a new field comes last, its order being its id.
  await profileFields.update(tx.db, field.id, { order: field.id });
  await notifyFields(tx, realm.id, featureLevel);
  return field.id;
}

/** A PATCH's parameters: each may be left out (feature level 252), keeping the field's value. */
export interface ProfileFieldChange {
  name?: string | undefined; hint?: string | undefined; data?: FieldData | undefined;
  displayInSummary?: boolean | undefined; required?: boolean | undefined; editableByUser?: boolean | undefined;
}

const sameData = (a: FieldData, stored: string): boolean => JSON.stringify(a) === JSON.stringify(JSON.parse(stored || '{}'));

/**
 * PATCH /realm/profile_fields/{id}, as Zulip's update_realm_custom_profile_field: the summary
 * limit, then (a default external account only lets its summary flag change) the whole field
 * checked as for a new one with the given values over the stored ones.
 */
export async function doUpdateProfileField(tx: Tx, realm: RealmRow, field: ProfileFieldRow, req: ProfileFieldChange, featureLevel: number): Promise<void> {
  if (req.displayInSummary === true) await checkSummaryRoom(tx, realm.id, field.id);
  const storedData = JSON.parse(field.field_data || '{}') as FieldData;
  const onlySummary = (req.name === undefined || req.name === field.name) && (req.hint === undefined || req.hint === field.hint)
    && (req.data === undefined || sameData(req.data, field.field_data));
  if (field.field_type === FieldType.EXTERNAL_ACCOUNT && isDefaultExternalField(field.field_type, storedData) && !onlySummary) {
    throw defaultFieldNotUpdatable();
  }
  const name = req.name ?? field.name;
  const hint = req.hint ?? field.hint;
  const data = req.data ?? storedData;
  const displayInSummary = req.displayInSummary ?? field.display_in_profile_summary === 1;
  checkProfileField(name, hint, field.field_type, data, displayInSummary);
  await checkLabelFree(tx, realm.id, name, field.id);
  const stored = req.data !== undefined ? storedFieldData(field.field_type, req.data) : '';
  await profileFields.update(tx.db, field.id, {
    name, hint, ...(stored ? { field_data: stored } : {}),
    display_in_profile_summary: displayInSummary ? 1 : 0,
    ...(req.required !== undefined ? { required: req.required ? 1 : 0 } : {}),
    ...(req.editableByUser !== undefined ? { editable_by_user: req.editableByUser ? 1 : 0 } : {}),
  });
  await notifyFields(tx, realm.id, featureLevel);
}

export async function doDeleteProfileField(tx: Tx, realm: RealmRow, field: ProfileFieldRow, featureLevel: number): Promise<void> {
  await profileFields.delete(tx.db, field.id);
  await notifyFields(tx, realm.id, featureLevel);
}

/** PATCH /realm/profile_fields: every field of the organization must be listed; each takes its position. */
export async function doReorderProfileFields(tx: Tx, realm: RealmRow, order: number[], featureLevel: number): Promise<void> {
  const position = new Map<number, number>();
  order.forEach((id, i) => position.set(id, i));
  const fields = await profileFields.listByRealm(tx.db, realm.id);
  if (fields.some((f) => !position.has(f.id))) throw invalidOrderMapping();
  for (const f of fields) await profileFields.update(tx.db, f.id, { order: position.get(f.id)! });
  await notifyFields(tx, realm.id, featureLevel);
}

/** Zulip's check_valid_user_ids for the person picker: users of the organization, active, not bots. */
async function checkPickedUsers(tx: Tx, realmId: number, value: unknown): Promise<string> {
  const ids = checkUserIdsValue(value);
  for (const id of ids) {
    const u = fitsIdColumn(id) ? await users.findInRealm(tx.db, realmId, id) : undefined;
    if (!u || u.is_system_bot === 1) throw invalidUserIdColon(id);
    if (u.is_active !== 1) throw badRequest(`User with ID ${id} is deactivated`);
    if (u.is_bot === 1) throw badRequest(`User with ID ${id} is a bot`);
  }
  return JSON.stringify(ids);
}

/**
 * PATCH /users/me/profile_data and an administrator's profile_data: every item is checked
 * before any is stored; unchanged values send nothing.
 */
export async function doUpdateProfileData(tx: Tx, user: UserRow, items: Array<{ id: number; value: unknown }>, onlyEditable = false): Promise<void> {
  const checked: Array<{ field: ProfileFieldRow; value: string }> = [];
  for (const item of items) {
    const field = await accessProfileField(tx, user.realm_id, item.id);
    if (onlyEditable) checkEditableByUser(field);
    const value = field.field_type === FieldType.USER ? await checkPickedUsers(tx, user.realm_id, item.value) : checkProfileValue(field, item.value);
    checked.push({ field, value });
  }
  const current = new Map((await profileFields.listValuesOfUser(tx.db, user.id)).map((v) => [v.field_id, v.value]));
  for (const { field, value } of checked) {
    if (current.get(field.id) === value) continue;
    current.set(field.id, value);
    const rendered = isRenderable(field.field_type) ? renderStreamDescription(value) : null;
    await profileFields.upsertValue(tx.db, { user_id: user.id, field_id: field.id, value, rendered_value: rendered });
    await notifyValue(tx, user, { id: field.id, value, ...(rendered ? { rendered_value: rendered } : {}) });
  }
}

/** DELETE /users/me/profile_data (and empty values of an administrator's edit): unknown ids refuse, absent values are fine. */
export async function doRemoveProfileData(tx: Tx, user: UserRow, ids: number[], onlyEditable = false): Promise<void> {
  for (const id of ids) {
    const field = await accessProfileField(tx, user.realm_id, id);
    if (onlyEditable) checkEditableByUser(field);
    if (await profileFields.deleteValue(tx.db, user.id, field.id)) await notifyValue(tx, user, { id: field.id, value: null });
  }
}

/** Level 296: a non-administrator's own edit of a field the organization keeps (Zulip's validate_user_custom_profile_data). */
function checkEditableByUser(field: ProfileFieldRow): void {
  if (field.editable_by_user !== 1) throw badRequest('You are not allowed to change this field. Contact an administrator to update it.');
}

async function notifyValue(tx: Tx, user: UserRow, field: { id: number; value: string | null; rendered_value?: string }): Promise<void> {
  tx.notify({ type: 'realm_user', op: 'update', person: { user_id: user.id, custom_profile_field: field } },
    await users.listActiveIdsInRealm(tx.db, user.realm_id), user.realm_id);
}
