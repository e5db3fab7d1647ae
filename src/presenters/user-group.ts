import type { UserGroupRow } from '../rows.js';
import type { WireUserGroup } from '../schemas/wire.js';
import { canMentionValue, type AnonymousGroup, type GroupSettingValue } from '../lib/group-setting-value.js';
import { groupSettingsAt, userGroupSettingValue, type SystemGroupIds } from '../lib/user-group-settings.js';

/**
 * A user group as Zulip serialises it (user_groups_in_realm_serialized): members and
 * direct subgroups ascending. `direct_subgroup_ids` arrived with subgroups (feature level
 * 127, named so from 131); it is sent at every level because newer clients (the Flutter
 * app) require it, and at 122 it is always empty unless subgroups were made.
 * `can_mention_group_id` (191) became `can_mention_group` (198): each from its level on
 * (`featureLevel` undefined: neither, for Parley's own reads).
 */
export type { WireUserGroup };

export const CAN_MENTION_GROUP_ID_LEVEL = 191;
export const CAN_MENTION_GROUP_LEVEL = 198;
/** Level 290: groups may be deactivated (`deactivated`); 292: `creator_id`, `date_created`. */
export const GROUP_DEACTIVATION_LEVEL = 290;
export const GROUP_CREATOR_LEVEL = 292;

/** `system`: the organization's system group ids, for the settings of levels 283-324 left at their default. */
/** Level 303: an anonymous group's direct members leave out deactivated users (`inactive`, empty below it). */
export function withoutInactive<T extends GroupSettingValue | null>(v: T, inactive: ReadonlySet<number>): T {
  if (v === null || typeof v === 'number' || inactive.size === 0) return v;
  const anon = v as AnonymousGroup;
  return { direct_members: anon.direct_members.filter((id) => !inactive.has(id)), direct_subgroups: anon.direct_subgroups } as T;
}

export function presentUserGroup(g: UserGroupRow, memberIds: readonly number[], subgroupIds: readonly number[] = [], featureLevel?: number,
  system: SystemGroupIds = new Map(), inactive: ReadonlySet<number> = new Set()): WireUserGroup {
  const out: WireUserGroup = {
    id: g.id, name: g.name, description: g.description, members: [...memberIds].sort((a, b) => a - b),
    direct_subgroup_ids: [...subgroupIds].sort((a, b) => a - b), is_system_group: g.is_system_group === 1,
  };
  // An anonymous group (level 258) shows as {direct_members, direct_subgroups}: only a client that sent one can meet it.
  const value = withoutInactive(canMentionValue(g), inactive);
  if (featureLevel !== undefined && value !== null) {
    if (featureLevel >= CAN_MENTION_GROUP_LEVEL) out.can_mention_group = value;
    else if (featureLevel >= CAN_MENTION_GROUP_ID_LEVEL) out.can_mention_group_id = value;
  }
  if (featureLevel === undefined) return out;
  // Zulip 10's settings, each from its level (can_manage_group 283 ... can_remove_members_group 324).
  for (const name of groupSettingsAt(featureLevel)) if (name !== 'can_mention_group') out[name] = withoutInactive(userGroupSettingValue(g, name, system), inactive)!;
  if (featureLevel >= GROUP_CREATOR_LEVEL) {
    out.creator_id = g.creator_id;
    out.date_created = g.date_created === null ? null : Number(g.date_created);
  }
  if (featureLevel >= GROUP_DEACTIVATION_LEVEL) out.deactivated = g.deactivated === 1;
  return out;
}
