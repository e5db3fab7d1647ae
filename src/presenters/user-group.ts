import type { UserGroupRow } from '../rows.js';
import type { WireUserGroup } from '../schemas/wire.js';

/**
 * A user group as Zulip 5 serialises it (user_groups_in_realm_serialized): members
 * ascending. `direct_subgroup_ids` arrived with subgroups (feature level 127/131); Parley
 * has none, and sends the empty list because newer clients (the Flutter app) require it.
 */
export type { WireUserGroup };

export function presentUserGroup(g: UserGroupRow, memberIds: readonly number[]): WireUserGroup {
  return {
    id: g.id, name: g.name, description: g.description, members: [...memberIds].sort((a, b) => a - b),
    direct_subgroup_ids: [], is_system_group: g.is_system_group === 1,
  };
}
