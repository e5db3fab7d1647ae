import { SystemGroup, type SystemGroupName } from './system-groups.js';
import type { RealmPermissionSettingName } from './permission-settings.js';

/**
 * Levels 299-352: organization policies that Zulip 10 replaced by realm group settings
 * (REALM_PERMISSION_SETTINGS, stored by value in the realm's settings JSON). The group
 * settings decide; the policy each replaced stays stored beside them, kept equal to Zulip's
 * get_corresponding_policy_value_for_group_setting of the groups, for the clients below the
 * level that removed it (register's `realm_<policy>`, realm/update events) and for the
 * deprecated register fields Zulip keeps. A client that still sends the policy sets the
 * groups the way Zulip's migrations mapped it.
 */
export interface ReplacedPolicy {
  policy: 'user_group_edit_policy' | 'add_custom_emoji_policy' | 'invite_to_realm_policy' | 'invite_to_stream_policy'
    | 'bot_creation_policy' | 'wildcard_mention_policy';
  /** The feature level whose group settings replaced it. */
  level: number;
  /** From this level register no longer has `realm_<policy>`; null: kept, deprecated (299 and 352). */
  registerUntil: number | null;
  /** The group settings a policy value sets (a system group each). */
  groupsOf: (policy: number) => Partial<Record<RealmPermissionSettingName, SystemGroupName>>;
  /** The policy the groups amount to: each setting's system group name, or null for another group. */
  policyOf: (names: Partial<Record<RealmPermissionSettingName, string | null>>) => number;
}

/** Zulip's Realm.SYSTEM_GROUPS_ENUM_MAP. */
const ENUM_OF_GROUP: Readonly<Record<string, number>> = {
  [SystemGroup.OWNERS]: 7, [SystemGroup.ADMINISTRATORS]: 2, [SystemGroup.MODERATORS]: 4, [SystemGroup.FULL_MEMBERS]: 3,
  [SystemGroup.MEMBERS]: 1, [SystemGroup.EVERYONE]: 5, [SystemGroup.NOBODY]: 6,
};
const GROUP_OF_ENUM: Readonly<Record<number, SystemGroupName>> = {
  1: SystemGroup.MEMBERS, 2: SystemGroup.ADMINISTRATORS, 3: SystemGroup.FULL_MEMBERS, 4: SystemGroup.MODERATORS, 6: SystemGroup.NOBODY,
};
/** Zulip's Realm.SYSTEM_GROUPS_TO_WILDCARD_MENTION_POLICY_MAP (its own numbering). */
const WILDCARD_OF_GROUP: Readonly<Record<string, number>> = {
  [SystemGroup.EVERYONE]: 1, [SystemGroup.MEMBERS]: 2, [SystemGroup.FULL_MEMBERS]: 3, [SystemGroup.MODERATORS]: 7,
  [SystemGroup.ADMINISTRATORS]: 5, [SystemGroup.NOBODY]: 6,
};
// The stream administrators option (4, before level 133) became administrators, as Zulip migrated it.
const GROUP_OF_WILDCARD: Readonly<Record<number, SystemGroupName>> = {
  1: SystemGroup.EVERYONE, 2: SystemGroup.MEMBERS, 3: SystemGroup.FULL_MEMBERS, 4: SystemGroup.ADMINISTRATORS,
  5: SystemGroup.ADMINISTRATORS, 6: SystemGroup.NOBODY, 7: SystemGroup.MODERATORS,
};

/**
 * Zulip's get_corresponding_policy_value_for_group_setting: the policy of the system group
 * when the policy has one, else the value of the largest group (members).
 */
function enumPolicy(name: string | null | undefined, valid: readonly number[]): number {
  const value = name == null ? undefined : ENUM_OF_GROUP[name];
  return value !== undefined && valid.includes(value) ? value : 1;
}
const COMMON = [1, 2, 3, 4] as const;

export const REPLACED_POLICIES: readonly ReplacedPolicy[] = [
  {
    // Zulip's migration gave both settings the policy's group.
    policy: 'user_group_edit_policy', level: 299, registerUntil: null,
    groupsOf: (p) => ({ can_create_groups: GROUP_OF_ENUM[p]!, can_manage_all_groups: GROUP_OF_ENUM[p]! }),
    policyOf: (n) => enumPolicy(n.can_manage_all_groups, COMMON),
  },
  {
    policy: 'add_custom_emoji_policy', level: 307, registerUntil: 307,
    groupsOf: (p) => ({ can_add_custom_emoji_group: GROUP_OF_ENUM[p]! }),
    policyOf: (n) => enumPolicy(n.can_add_custom_emoji_group, COMMON),
  },
  {
    policy: 'invite_to_realm_policy', level: 321, registerUntil: 321,
    groupsOf: (p) => ({ can_invite_users_group: GROUP_OF_ENUM[p]! }),
    policyOf: (n) => enumPolicy(n.can_invite_users_group, [1, 2, 3, 4, 6]),
  },
  {
    policy: 'invite_to_stream_policy', level: 341, registerUntil: 341,
    groupsOf: (p) => ({ can_add_subscribers_group: GROUP_OF_ENUM[p]! }),
    policyOf: (n) => enumPolicy(n.can_add_subscribers_group, COMMON),
  },
  {
    // Zulip's BotCreationPolicyEnum: 1 everyone, 2 generic bots by administrators only, 3 administrators only.
    policy: 'bot_creation_policy', level: 344, registerUntil: 344,
    groupsOf: (p) => ({
      can_create_bots_group: p === 1 ? SystemGroup.MEMBERS : SystemGroup.ADMINISTRATORS,
      can_create_write_only_bots_group: p === 3 ? SystemGroup.ADMINISTRATORS : SystemGroup.MEMBERS,
    }),
    policyOf: (n) => {
      // Another group than a role's: the policy that allows the most, as Zulip's approximations do.
      const broad = (g: string | null | undefined) => g == null || g === SystemGroup.MEMBERS || g === SystemGroup.EVERYONE;
      if (broad(n.can_create_bots_group)) return 1;
      return broad(n.can_create_write_only_bots_group) ? 2 : 3;
    },
  },
  {
    policy: 'wildcard_mention_policy', level: 352, registerUntil: null,
    groupsOf: (p) => ({ can_mention_many_users_group: GROUP_OF_WILDCARD[p]! }),
    policyOf: (n) => (n.can_mention_many_users_group == null ? 1 : WILDCARD_OF_GROUP[n.can_mention_many_users_group] ?? 1),
  },
];

/** The replaced policy of each group setting. */
export const POLICY_OF_GROUP_SETTING: ReadonlyMap<RealmPermissionSettingName, ReplacedPolicy> = new Map(
  REPLACED_POLICIES.flatMap((r) => Object.keys(r.groupsOf(1)).map((g) => [g as RealmPermissionSettingName, r] as const)),
);

/** The realm group settings only an owner may change (Zulip's update_realm, Zulip 10). */
export const OWNER_ONLY_GROUP_SETTINGS: ReadonlySet<RealmPermissionSettingName> = new Set([
  'create_multiuse_invite_group', 'can_create_groups', 'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group',
]);

/** Level 358: who sees messages' edit history (Zulip's MessageEditHistoryVisibilityPolicyEnum, by name in the API). */
export const EDIT_HISTORY_POLICIES = ['all', 'moves', 'none'] as const;
export type EditHistoryPolicy = (typeof EDIT_HISTORY_POLICIES)[number];
export const EDIT_HISTORY_POLICY_LEVEL = 358;

/** Whether PATCH /realm's answer names a changed stored setting at this level. */
export function answeredAtLevel(name: string, featureLevel: number): boolean {
  const replaced = REPLACED_POLICIES.find((r) => r.policy === name);
  if (replaced) return featureLevel < replaced.level;
  if (name === 'allow_edit_history') return featureLevel < EDIT_HISTORY_POLICY_LEVEL;
  if (name === 'message_edit_history_visibility_policy') return featureLevel >= EDIT_HISTORY_POLICY_LEVEL;
  return true;
}

/**
 * Whether a change of the stored setting is announced (realm/update) at this level: while
 * register has it. The deprecated fields register keeps (user_group_edit_policy,
 * wildcard_mention_policy, allow_edit_history) stay announced so that a client's state
 * stays what a fresh register would give.
 */
export function announcedAtLevel(name: string, featureLevel: number): boolean {
  const replaced = REPLACED_POLICIES.find((r) => r.policy === name);
  if (replaced) return replaced.registerUntil === null || featureLevel < replaced.registerUntil;
  if (name === 'message_edit_history_visibility_policy') return featureLevel >= EDIT_HISTORY_POLICY_LEVEL;
  return true;
}
