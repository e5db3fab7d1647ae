import type { Q, RealmRow, UserGroupRow, UserRow } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { users } from '../store/repos/users.js';
import { Role } from '../lib/roles.js';
import { fitsIdColumn } from '../lib/ids.js';
import { hasPolicyPermission } from './realm-policy.js';
import { botRequestsRefused, insufficientPermission, invalidUserGroup, invalidUserGroupId, invalidUserIdColon, notForGuests } from '../errors.js';

/** Zulip's require_member_or_admin: guests, then bots, are refused. */
export function requireMemberOrAdmin(user: UserRow): void {
  if (user.role === Role.GUEST) throw notForGuests();
  if (user.is_bot === 1) throw botRequestsRefused();
}

/** Zulip 5's require_user_group_edit_permission: the organization's user_group_edit_policy. */
export function checkCanEditUserGroups(user: UserRow, realm: RealmRow): void {
  requireMemberOrAdmin(user);
  if (!hasPolicyPermission(user, realm, 'user_group_edit_policy')) throw insufficientPermission();
}

/** A group of the user's organization; system groups are never edited through the API. */
export async function accessUserGroupById(q: Q, user: UserRow, id: number, forRead = false): Promise<UserGroupRow> {
  const group = fitsIdColumn(id) ? await userGroups.findInRealm(q, user.realm_id, id) : undefined;
  if (!group) throw invalidUserGroup();
  if (!forRead && group.is_system_group === 1) throw insufficientPermission();
  return group;
}

/**
 * Zulip's access_user_groups_as_potential_subgroups: every id must name a group of the
 * organization, the first that does not is named; duplicates count once, by id.
 */
export async function accessUserGroupsAsPotentialSubgroups(q: Q, realmId: number, ids: number[]): Promise<UserGroupRow[]> {
  const found = await userGroups.listInRealmByIds(q, realmId, [...new Set(ids)].filter(fitsIdColumn));
  const valid = new Set(found.map((g) => g.id));
  const missing = ids.find((id) => !valid.has(id));
  if (missing !== undefined) throw invalidUserGroupId(missing);
  return found;
}

/**
 * Zulip's user_ids_to_users: every id must name a user of the organization (deactivated
 * users and bots included); the first that does not is named. Duplicates count once.
 */
export async function usersOfIds(q: Q, realmId: number, ids: number[], activeOnly = false): Promise<UserRow[]> {
  const wanted = [...new Set(ids)];
  const rows = await users.listByIds(q, wanted.filter(fitsIdColumn));
  // activeOnly: Zulip's allow_deactivated=False (groups and group settings from level 303).
  const found = new Map(rows.filter((u) => u.realm_id === realmId && u.is_system_bot !== 1 && (!activeOnly || u.is_active === 1)).map((u) => [u.id, u]));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) throw invalidUserIdColon(missing);
  return wanted.map((id) => found.get(id)!);
}
