import type { WireProfileField, WireProfileValue } from '../schemas/wire.js';

/** A custom profile field as Zulip's CustomProfileField.as_dict: `field_data` stays JSON text ('' for most types). */
export type { WireProfileField, WireProfileValue };

export interface ProfileFieldRowLike {
  id: number; name: string; hint: string; field_type: number; field_data: string; order: number; display_in_profile_summary: number; required: number; editable_by_user: number;
}

/** Feature levels of the fields' later keys. */
export const SUMMARY_FLAG_LEVEL = 146;
export const REQUIRED_FLAG_LEVEL = 244;
export const EDITABLE_FLAG_LEVEL = 296;

/**
 * As Zulip's as_dict of the level: `display_in_profile_summary` only when true (146),
 * `required` (244) and `editable_by_user` (296) always.
 */
export function presentProfileField(f: ProfileFieldRowLike, featureLevel: number): WireProfileField {
  const out: WireProfileField = { id: f.id, name: f.name, type: f.field_type, hint: f.hint, field_data: f.field_data, order: f.order };
  if (featureLevel >= REQUIRED_FLAG_LEVEL) out.required = f.required === 1;
  if (featureLevel >= EDITABLE_FLAG_LEVEL) out.editable_by_user = f.editable_by_user === 1;
  if (featureLevel >= SUMMARY_FLAG_LEVEL && f.display_in_profile_summary === 1) out.display_in_profile_summary = true;
  return out;
}

/** A user's value as `profile_data` carries it: rendered_value only for the fields Zulip renders. */
export const presentProfileValue = (value: string, renderedValue: string | null): WireProfileValue =>
  (renderedValue === null ? { value } : { value, rendered_value: renderedValue });
