import type { WireProfileField, WireProfileValue } from '../schemas/wire.js';

/** A custom profile field as Zulip 5's CustomProfileField.as_dict: `field_data` stays JSON text ('' for most types). */
export type { WireProfileField, WireProfileValue };

export interface ProfileFieldRowLike { id: number; name: string; hint: string; field_type: number; field_data: string; order: number }

export const presentProfileField = (f: ProfileFieldRowLike): WireProfileField =>
  ({ id: f.id, name: f.name, type: f.field_type, hint: f.hint, field_data: f.field_data, order: f.order });

/** A user's value as `profile_data` carries it: rendered_value only for the fields Zulip renders. */
export const presentProfileValue = (value: string, renderedValue: string | null): WireProfileValue =>
  (renderedValue === null ? { value } : { value, rendered_value: renderedValue });
