import { isUrl } from './url.js';
import { badRequest, fieldLabelBlank, invalidFieldType } from '../errors.js';
import { capList } from './lists.js';
import { LIST_LIMITS } from './limits.js';

/**
 * Custom profile fields' rules, as Zulip 5's validators word them: field types, the
 * field_data of list-of-options (3) and external-account (7) fields, and users' values
 * of each type (person picker ids are checked against the store by the action).
 */
export const FieldType = { SHORT_TEXT: 1, LONG_TEXT: 2, SELECT: 3, DATE: 4, URL: 5, USER: 6, EXTERNAL_ACCOUNT: 7, PRONOUNS: 8 } as const;
export const FIELD_TYPES: readonly number[] = Object.values(FieldType);
/** Zulip renders the text fields' values as markdown (CustomProfileField.is_renderable). */
export const isRenderable = (type: number): boolean => type === FieldType.SHORT_TEXT || type === FieldType.LONG_TEXT;
export const hasFieldData = (type: number): boolean => type === FieldType.SELECT || type === FieldType.EXTERNAL_ACCOUNT;

const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;

/** Zulip's DEFAULT_EXTERNAL_ACCOUNTS: a field of such a subtype takes its name and hint from here. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { text: string; url_pattern: string; name: string; hint: string }> = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter', hint: 'Enter your Twitter username' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub', hint: 'Enter your GitHub username' },
};

export type FieldData = Record<string, unknown>;
const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function checkString(name: string, v: unknown): string {
  if (typeof v !== 'string') throw badRequest(`${name} is not a string`);
  return v;
}
function checkCapped(name: string, v: unknown, limit: number): string {
  const s = checkString(name, v);
  if ([...s].length > limit) throw badRequest(`${name} is too long (limit: ${limit} characters)`);
  return s;
}
function checkRequired(name: string, v: unknown): string {
  const s = checkString(name, v);
  if (!s.trim()) throw badRequest(`${name} cannot be blank.`);
  return s;
}

/** Zulip's check_dict_only: required keys, then optional ones; any other key is refused. */
function checkDictOnly(name: string, v: unknown, required: Record<string, (n: string, x: unknown) => unknown>,
  optional: Record<string, (n: string, x: unknown) => unknown> = {}): Record<string, unknown> {
  if (!isDict(v)) throw badRequest(`${name} is not a dict`);
  for (const [k, check] of Object.entries(required)) {
    if (!own(v, k)) throw badRequest(`${k} key is missing from ${name}`);
    check(`${name}["${k}"]`, v[k]);
  }
  for (const [k, check] of Object.entries(optional)) if (own(v, k)) check(`${name}["${k}"]`, v[k]);
  const extra = Object.keys(v).filter((k) => !own(required, k) && !own(optional, k));
  if (extra.length > 0) throw badRequest(`Unexpected arguments: ${extra.join(', ')}`);
  return v;
}

function checkUrlPattern(name: string, v: unknown): void {
  const s = checkString(name, v);
  if (s.split('%(username)s').length !== 2) throw badRequest("URL pattern must contain '%(username)s'.");
  if (!isUrl(s.replace('%(username)s', 'username'))) throw badRequest(`${name} is not a URL`);
}

/** Zulip's validate_custom_field_data: only list-of-options and external-account fields have any. */
export function checkFieldData(type: number, data: FieldData): void {
  if (type === FieldType.SELECT) {
    if (Object.keys(data).length < 1) throw badRequest('Field must have at least one choice.');
    const texts = new Set<string>();
    for (const [key, option] of Object.entries(data)) {
      if (!key.trim()) throw badRequest("'value' cannot be blank.");
      const o = checkDictOnly('field_data', option, { text: checkRequired, order: checkRequired });
      texts.add(o.text as string);
    }
    if (texts.size !== Object.keys(data).length) throw badRequest('Field must not have duplicate choices.');
  } else if (type === FieldType.EXTERNAL_ACCOUNT) {
    checkDictOnly('field_data', data, { subtype: checkRequired }, { url_pattern: checkUrlPattern });
    if (!own(DEFAULT_EXTERNAL_ACCOUNTS, data.subtype as string)) {
      if (data.subtype !== 'custom') throw badRequest('Invalid external account type');
      if (!own(data, 'url_pattern')) throw badRequest('Custom external account must define URL pattern');
    }
  }
}

/** A default external account (GitHub, Twitter) rather than a custom one. */
export const isDefaultExternalField = (type: number, data: FieldData): boolean =>
  type === FieldType.EXTERNAL_ACCOUNT && data.subtype !== 'custom';

/** Zulip's MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS (feature level 146). */
export const MAX_SUMMARY_FIELDS = 2;

/**
 * Zulip's validate_display_in_profile_summary_field: long texts do not fit a summary and
 * person pickers need client support there.
 */
function checkSummaryType(type: number, displayInSummary: boolean): void {
  if (displayInSummary && (type === FieldType.LONG_TEXT || type === FieldType.USER)) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
}

/** Zulip's validate_custom_profile_field: field_data, then label and hint, then the type, then the summary flag. */
export function checkProfileField(name: string, hint: string, type: number, data: FieldData, displayInSummary = false): void {
  if (hasFieldData(type)) checkFieldData(type, data);
  if (!isDefaultExternalField(type, data)) {
    if (!name.trim()) throw fieldLabelBlank();
    checkCapped('hint', hint, HINT_MAX_LENGTH);
    checkCapped('name', name, NAME_MAX_LENGTH);
  }
  if (!FIELD_TYPES.includes(type)) throw invalidFieldType();
  checkSummaryType(type, displayInSummary);
}

/** The stored field_data of a new or edited field: JSON text for types 3 and 7, '' otherwise. */
export const storedFieldData = (type: number, data: FieldData): string => (hasFieldData(type) ? JSON.stringify(data) : '');

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return y >= 1 && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/**
 * A user's value for a field of any type but the person picker, as Zulip 5 checks it
 * (messages name the field by its label); answers the text to store.
 */
export function checkProfileValue(field: { name: string; field_type: number; field_data: string }, value: unknown): string {
  const name = field.name;
  switch (field.field_type) {
    case FieldType.SHORT_TEXT:
    case FieldType.EXTERNAL_ACCOUNT:
    case FieldType.PRONOUNS:
      return checkCapped(name, value, 50);
    case FieldType.LONG_TEXT:
      return checkCapped(name, value, 500);
    case FieldType.DATE:
      if (!isDate(checkString(name, value))) throw badRequest(`${name} is not a date`);
      return value as string;
    case FieldType.URL:
      if (!isUrl(checkString(name, value))) throw badRequest(`${name} is not a URL`);
      return value as string;
    case FieldType.SELECT: {
      const choices = JSON.parse(field.field_data || '{}') as Record<string, unknown>;
      if (typeof value !== 'string' || !own(choices, value)) throw badRequest(`'${typeof value === 'string' ? value : JSON.stringify(value)}' is not a valid choice for '${name}'.`);
      return value;
    }
    default:
      throw new Error(`not a plain field type: ${field.field_type}`);
  }
}

/** The person picker's value before its ids are looked up: Zulip's check_list(check_int)("User IDs", ...). */
export function checkUserIdsValue(value: unknown): number[] {
  if (!Array.isArray(value)) throw badRequest('User IDs is not a list');
  capList('User IDs', value, LIST_LIMITS.other);
  value.forEach((v, i) => { if (!Number.isSafeInteger(v)) throw badRequest(`User IDs[${i}] is not an integer`); });
  return value as number[];
}

/**
 * The `data` of PATCH /users/me/profile_data (and an administrator's `profile_data`, where
 * a value may be null): a list of {id, value} with value a string or a list of user ids.
 */
export function checkProfileDataItems(name: string, v: unknown, allowNull: boolean): Array<{ id: number; value: unknown }> {
  if (!Array.isArray(v)) throw badRequest(`${name} is not a list`);
  return v.map((item, i) => {
    const at = `${name}[${i}]`;
    if (!isDict(item)) throw badRequest(`${at} is not a dict`);
    for (const k of ['id', 'value']) if (!own(item, k)) throw badRequest(`${k} key is missing from ${at}`);
    if (!Number.isSafeInteger(item.id)) throw badRequest(`${at}["id"] is not an integer`);
    const value = item.value;
    const ok = typeof value === 'string' || (Array.isArray(value) && value.every((x) => Number.isSafeInteger(x))) || (allowNull && value === null);
    if (!ok) throw badRequest(`${at}["value"] is not an allowed_type`);
    return { id: item.id as number, value };
  });
}

/** A request's field_data: a JSON object, {} when absent. */
export function checkFieldDataParam(v: unknown): FieldData {
  if (v === undefined) return {};
  if (!isDict(v)) throw badRequest('field_data is not a dict');
  return v;
}
