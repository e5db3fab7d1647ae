import { Role } from './roles.js';

/**
 * Zulip's role-based system groups (zerver/models/groups.py SystemGroups), in the order of
 * create_system_user_groups_for_realm: every group from owners on is a direct subgroup of
 * the next (owners ⊂ administrators ⊂ … ⊂ everyone ⊂ internet); nobody stands alone.
 */
export const SystemGroup = {
  NOBODY: 'role:nobody',
  OWNERS: 'role:owners',
  ADMINISTRATORS: 'role:administrators',
  MODERATORS: 'role:moderators',
  FULL_MEMBERS: 'role:fullmembers',
  MEMBERS: 'role:members',
  EVERYONE: 'role:everyone',
  EVERYONE_ON_INTERNET: 'role:internet',
} as const;
export type SystemGroupName = typeof SystemGroup[keyof typeof SystemGroup];

/** Name and description of each, in creation order (their ids ascend in it). */
export const SYSTEM_GROUPS: ReadonlyArray<{ name: SystemGroupName; description: string }> = [
  { name: SystemGroup.NOBODY, description: 'Nobody' },
  { name: SystemGroup.OWNERS, description: 'Owners of this organization' },
  { name: SystemGroup.ADMINISTRATORS, description: 'Administrators of this organization, including owners' },
  { name: SystemGroup.MODERATORS, description: 'Moderators of this organization, including administrators' },
  { name: SystemGroup.FULL_MEMBERS, description: 'Members of this organization, not including new accounts and guests' },
  { name: SystemGroup.MEMBERS, description: 'Members of this organization, not including guests' },
  { name: SystemGroup.EVERYONE, description: 'Everyone in this organization, including guests' },
  { name: SystemGroup.EVERYONE_ON_INTERNET, description: 'Everyone on the Internet' },
];

/**
 * The feature level from which Parley shows system groups to clients. Zulip has had them
 * since 5.0, but Parley's contract at 122 (the interface spec) shows no group of that kind,
 * and the first API entry that names one is 142 (`can_remove_subscribers_group_id`, whose
 * default is role:administrators). Below it they exist (permissions use them) but are left
 * out of `GET /user_groups`, register's `realm_user_groups` and `user_group` events.
 */
export const SYSTEM_GROUPS_SHOWN_FROM = 142;

/** Zulip's SYSTEM_USER_GROUP_ROLE_MAP: the one role group a user is a direct member of. */
export function systemGroupForRole(role: number): SystemGroupName {
  switch (role) {
    case Role.OWNER: return SystemGroup.OWNERS;
    case Role.ADMINISTRATOR: return SystemGroup.ADMINISTRATORS;
    case Role.MODERATOR: return SystemGroup.MODERATORS;
    case Role.MEMBER: return SystemGroup.MEMBERS;
    default: return SystemGroup.EVERYONE;
  }
}

/**
 * The system groups a user is a direct member of: the role's, and role:fullmembers for a
 * member past the organization's waiting period (Zulip's is_provisional_member), judged when
 * the user is created or changes role. Parley runs no daily promote_new_full_members, so a
 * member whose period ends later joins role:fullmembers only then; the policy checks of
 * src/access/realm-policy.ts compute the period live and are not affected.
 */
export function directSystemGroupsOf(user: { role: number; date_joined: number }, waitingPeriodDays: number,
  now = Math.floor(Date.now() / 1000)): SystemGroupName[] {
  const groups: SystemGroupName[] = [systemGroupForRole(user.role)];
  if (user.role === Role.MEMBER && (now - user.date_joined) / 86400 >= waitingPeriodDays) groups.push(SystemGroup.FULL_MEMBERS);
  return groups;
}
