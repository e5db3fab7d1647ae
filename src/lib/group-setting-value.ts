import type { UserGroupRow } from '../rows.js';
import { badRequest } from '../errors.js';

/**
 * Zulip's "group-setting value" (feature level 258, for can_mention_group): a named group's
 * id, or an anonymous group given by its direct members and direct subgroups.
 */
export interface AnonymousGroup { direct_members: number[]; direct_subgroups: number[] }
export type GroupSettingValue = number | AnonymousGroup;
/** Zulip's GroupSettingChangeRequest (level 260): the new value and, to refuse a stale edit, the value the client saw. */
export interface GroupSettingChange { new: GroupSettingValue; old?: GroupSettingValue | undefined }

/** The feature level from which a group setting may be an anonymous group. */
export const ANONYMOUS_GROUP_SETTING_LEVEL = 258;

const isIntList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x));

/** A value as the request gave it (a JSON integer or `{direct_members, direct_subgroups}`). */
function decodeValue(name: string, v: unknown): GroupSettingValue {
  if (Number.isSafeInteger(v)) return v as number;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (isIntList(o.direct_members) && isIntList(o.direct_subgroups) && Object.keys(o).every((k) => k === 'direct_members' || k === 'direct_subgroups')) {
      return { direct_members: o.direct_members, direct_subgroups: o.direct_subgroups };
    }
  }
  throw badRequest(`Invalid ${name}`);
}

/**
 * Zulip's parse_group_setting_value: an anonymous group of no members and one subgroup is
 * that subgroup (a named group).
 */
export function normalizeGroupSettingValue(v: GroupSettingValue): GroupSettingValue {
  if (typeof v === 'number') return v;
  if (v.direct_members.length === 0 && v.direct_subgroups.length === 1) return v.direct_subgroups[0]!;
  return v;
}

/** The parameter at any level: a bare value (as before level 260) or `{new, old}` (260). */
export function decodeGroupSettingChange(name: string, raw: unknown): GroupSettingChange {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'new' in raw) {
    const o = raw as Record<string, unknown>;
    if (!Object.keys(o).every((k) => k === 'new' || k === 'old')) throw badRequest(`Invalid ${name}`);
    return {
      new: normalizeGroupSettingValue(decodeValue(name, o.new)),
      old: o.old === undefined || o.old === null ? undefined : normalizeGroupSettingValue(decodeValue(name, o.old)),
    };
  }
  return { new: normalizeGroupSettingValue(decodeValue(name, raw)) };
}

/** Zulip's are_both_group_setting_values_equal: ids equal, or the same members and subgroups in any order. */
export function sameGroupSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const same = (x: number[], y: number[]) => { const sx = new Set(x); const sy = new Set(y); return sx.size === sy.size && [...sx].every((i) => sy.has(i)); };
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}

/** A group's can_mention_group as the API shows it (Zulip's get_group_setting_value_for_api); null: unset. */
export function canMentionValue(g: Pick<UserGroupRow, 'can_mention_group_id' | 'can_mention_group_anon'>): GroupSettingValue | null {
  if (g.can_mention_group_anon !== null) return JSON.parse(g.can_mention_group_anon) as AnonymousGroup;
  return g.can_mention_group_id;
}
