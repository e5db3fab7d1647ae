import type { UserGroupRow } from '../rows.js';
import type { WireUserGroup } from '../schemas/wire.js';
import { canMentionValue } from '../lib/group-setting-value.js';

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

export function presentUserGroup(g: UserGroupRow, memberIds: readonly number[], subgroupIds: readonly number[] = [], featureLevel?: number): WireUserGroup {
  const out: WireUserGroup = {
    id: g.id, name: g.name, description: g.description, members: [...memberIds].sort((a, b) => a - b),
    direct_subgroup_ids: [...subgroupIds].sort((a, b) => a - b), is_system_group: g.is_system_group === 1,
  };
  // An anonymous group (level 258) shows as {direct_members, direct_subgroups}: only a client that sent one can meet it.
  const value = canMentionValue(g);
  if (featureLevel !== undefined && value !== null) {
    if (featureLevel >= CAN_MENTION_GROUP_LEVEL) out.can_mention_group = value;
    else if (featureLevel >= CAN_MENTION_GROUP_ID_LEVEL) out.can_mention_group_id = value;
  }
  return out;
}
