import type { UserGroupRow } from '../rows.js';
import type { WireUserGroup } from '../schemas/wire.js';

/**
 * A user group as Zulip serialises it (user_groups_in_realm_serialized): members and
 * direct subgroups ascending. `direct_subgroup_ids` arrived with subgroups (feature level
 * 127, named so from 131); it is sent at every level because newer clients (the Flutter
 * app) require it, and at 122 it is always empty unless subgroups were made.
 */
export type { WireUserGroup };

export function presentUserGroup(g: UserGroupRow, memberIds: readonly number[], subgroupIds: readonly number[] = []): WireUserGroup {
  return {
    id: g.id, name: g.name, description: g.description, members: [...memberIds].sort((a, b) => a - b),
    direct_subgroup_ids: [...subgroupIds].sort((a, b) => a - b), is_system_group: g.is_system_group === 1,
  };
}
