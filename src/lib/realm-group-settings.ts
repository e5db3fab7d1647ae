import { Role } from './roles.js';
import { SystemGroup, type SystemGroupName } from './system-groups.js';
import type { RealmSettings } from './realm-settings.js';
import type { RealmPermissionSettingName } from './permission-settings.js';
import type { AnonymousGroup, GroupSettingValue } from './group-setting-value.js';

/**
 * Realm permission settings (levels 209-367) are group-setting values kept in the realm's
 * settings JSON under the setting's name: a named group's id, or `{direct_members,
 * direct_subgroups}`. A realm that never set one reads it from the policy it replaced (what
 * Parley stored before these levels, and what an old client's PATCH still names), else from
 * the setting's default system group. The replaced policy is kept in step on every change
 * (Zulip's get_corresponding_policy_value_for_group_setting), so the deprecated
 * `realm_<policy>` fields, the realm/update events of old levels and the checks of level 122
 * clients all read the stored policy as before.
 */

/** Zulip's policy values and Realm.SYSTEM_GROUPS_ENUM_MAP. */
const GROUP_OF_POLICY: Readonly<Record<number, SystemGroupName>> = {
  1: SystemGroup.MEMBERS, 2: SystemGroup.ADMINISTRATORS, 3: SystemGroup.FULL_MEMBERS, 4: SystemGroup.MODERATORS,
  5: SystemGroup.EVERYONE, 6: SystemGroup.NOBODY, 7: SystemGroup.OWNERS,
};
export function groupOfPolicy(policy: number): SystemGroupName | undefined {
  return GROUP_OF_POLICY[policy];
}
export function policyOfGroup(name: string): number | undefined {
  const hit = Object.entries(GROUP_OF_POLICY).find(([, g]) => g === name);
  return hit === undefined ? undefined : Number(hit[0]);
}

/** A policy a group setting replaced. */
export interface ReplacedPolicy {
  policy: 'create_public_stream_policy' | 'create_private_stream_policy' | 'create_web_public_stream_policy' | 'delete_own_message_policy'
    | 'move_messages_between_streams_policy' | 'edit_topic_policy' | 'user_group_edit_policy' | 'add_custom_emoji_policy'
    | 'invite_to_realm_policy' | 'invite_to_stream_policy' | 'bot_creation_policy' | 'wildcard_mention_policy';
  /** The policy values Zulip had for it. */
  values: readonly number[];
  /** Zulip's value for a group the policy cannot express: the largest policy that approximates it. */
  superset: number;
  /** From this level PATCH /realm's answer and realm/update events no longer name the policy. */
  eventsUntil: number;
  /** From this level register no longer has `realm_<policy>` (Infinity: kept, deprecated). */
  registerUntil: number;
  /** The group a policy value names, where it is not Zulip's SYSTEM_GROUPS_ENUM_MAP's (wildcard mentions, bots). */
  groupOf?: (policy: number) => SystemGroupName | undefined;
  /** The policy a system group amounts to, where not the enum map's (wildcard mentions: their own numbering). */
  policyOf?: (group: string) => number | undefined;
  /**
   * false: the stored policy does not follow this setting alone (can_create_groups, whose
   * policy follows can_manage_all_groups; the two bot settings, which decide it together).
   */
  follows?: false;
}
const COMMON = [1, 2, 3, 4];
export const REPLACED_POLICY: Partial<Record<RealmPermissionSettingName, ReplacedPolicy>> = {
  // Zulip 9 kept these in events too (Parley always did); register keeps them, deprecated.
  can_create_public_channel_group: { policy: 'create_public_stream_policy', values: COMMON, superset: 1, eventsUntil: Infinity, registerUntil: Infinity },
  can_create_private_channel_group: { policy: 'create_private_stream_policy', values: COMMON, superset: 1, eventsUntil: Infinity, registerUntil: Infinity },
  // Level 280: register keeps realm_create_web_public_stream_policy, deprecated.
  can_create_web_public_channel_group: { policy: 'create_web_public_stream_policy', values: [2, 4, 6, 7], superset: 4, eventsUntil: 280, registerUntil: Infinity },
  can_delete_own_message_group: { policy: 'delete_own_message_policy', values: [1, 2, 3, 4, 5], superset: 5, eventsUntil: 291, registerUntil: 291 },
  can_move_messages_between_channels_group: { policy: 'move_messages_between_streams_policy', values: [1, 2, 3, 4, 6], superset: 1, eventsUntil: 310, registerUntil: 310 },
  can_move_messages_between_topics_group: { policy: 'edit_topic_policy', values: [1, 2, 3, 4, 5, 6], superset: 5, eventsUntil: 316, registerUntil: 316 },
  // Levels 299-352 (realmB). Register keeps user_group_edit_policy (299) and
  // wildcard_mention_policy (352) deprecated (the phone app requires the latter, a strict
  // enum); both stay announced so that a client's state stays a fresh register's.
  can_create_groups: { policy: 'user_group_edit_policy', values: COMMON, superset: 1, eventsUntil: Infinity, registerUntil: Infinity, follows: false },
  can_manage_all_groups: { policy: 'user_group_edit_policy', values: COMMON, superset: 1, eventsUntil: Infinity, registerUntil: Infinity },
  can_add_custom_emoji_group: { policy: 'add_custom_emoji_policy', values: COMMON, superset: 1, eventsUntil: 307, registerUntil: 307 },
  can_invite_users_group: { policy: 'invite_to_realm_policy', values: [1, 2, 3, 4, 6], superset: 1, eventsUntil: 321, registerUntil: 321 },
  can_add_subscribers_group: { policy: 'invite_to_stream_policy', values: COMMON, superset: 1, eventsUntil: 341, registerUntil: 341 },
  // Zulip's BotCreationPolicyEnum: 1 everyone, 2 generic bots by administrators only, 3 administrators only.
  can_create_bots_group: {
    policy: 'bot_creation_policy', values: [1, 2, 3], superset: 1, eventsUntil: 344, registerUntil: 344, follows: false,
    groupOf: (p) => (p === 1 ? SystemGroup.MEMBERS : [2, 3].includes(p) ? SystemGroup.ADMINISTRATORS : undefined),
  },
  can_create_write_only_bots_group: {
    policy: 'bot_creation_policy', values: [1, 2, 3], superset: 1, eventsUntil: 344, registerUntil: 344, follows: false,
    groupOf: (p) => (p === 3 ? SystemGroup.ADMINISTRATORS : [1, 2].includes(p) ? SystemGroup.MEMBERS : undefined),
  },
  can_mention_many_users_group: {
    policy: 'wildcard_mention_policy', values: [1, 2, 3, 5, 6, 7], superset: 1, eventsUntil: Infinity, registerUntil: Infinity,
    groupOf: (p) => GROUP_OF_WILDCARD[p], policyOf: (g) => WILDCARD_OF_GROUP[g],
  },
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

/** A policy value's group for a setting (Zulip's migration mapping). */
export function groupOfReplacedPolicy(replaced: ReplacedPolicy, policy: number): SystemGroupName | undefined {
  return replaced.groupOf ? replaced.groupOf(policy) : GROUP_OF_POLICY[policy];
}

/** bot_creation_policy from the two bot settings' system groups (a named or anonymous group: the one allowing the most). */
export function botCreationPolicy(bots: string | undefined, writeOnly: string | undefined): number {
  const broad = (g: string | undefined) => g === undefined || g === SystemGroup.MEMBERS || g === SystemGroup.EVERYONE;
  if (broad(bots)) return 1;
  return broad(writeOnly) ? 2 : 3;
}

/** Zulip's PRIVATE_MESSAGE_POLICY_DISABLED. */
export const PRIVATE_MESSAGES_DISABLED = 2;

/** What the settings JSON says of a setting: a system group by name (not set, or set the old way), or a stored value. */
export type StoredGroupSetting = { group: string } | { value: GroupSettingValue };

const isAnonymous = (v: unknown): v is AnonymousGroup => typeof v === 'object' && v !== null
  && Array.isArray((v as AnonymousGroup).direct_members) && Array.isArray((v as AnonymousGroup).direct_subgroups);

/** The stored setting, read from the raw settings JSON (what the realm set) merged with the defaults. */
export function storedGroupSetting(own: Readonly<Record<string, unknown>>, settings: Readonly<RealmSettings>, name: RealmPermissionSettingName,
  defaultGroup: string): StoredGroupSetting {
  const v = own[name];
  if (typeof v === 'number' || isAnonymous(v)) return { value: v };
  // Levels 270-277 stored the direct message settings by system group name.
  if (typeof v === 'string') return { group: v };
  const replaced = REPLACED_POLICY[name];
  if (replaced) return { group: groupOfReplacedPolicy(replaced, settings[replaced.policy]) ?? defaultGroup };
  if (name === 'direct_message_permission_group' && settings.private_message_policy === PRIVATE_MESSAGES_DISABLED) return { group: SystemGroup.NOBODY };
  return { group: defaultGroup };
}

/** Zulip's get_corresponding_policy_value_for_group_setting: the policy of a system group, else the superset. */
export function correspondingPolicy(replaced: ReplacedPolicy, systemGroupName: string | undefined): number {
  const policy = systemGroupName === undefined ? undefined : (replaced.policyOf ?? policyOfGroup)(systemGroupName);
  return policy !== undefined && replaced.values.includes(policy) ? policy : replaced.superset;
}

/**
 * Whether a user is in a system group, by role (Zulip's check_any_user_has_permission_by_role):
 * full members are the members past the waiting period, as the policy checks compute it.
 */
export function inSystemGroup(user: { role: number; date_joined: number }, group: string, waitingPeriodDays: number,
  now = Math.floor(Date.now() / 1000)): boolean {
  switch (group) {
    case SystemGroup.EVERYONE_ON_INTERNET:
    case SystemGroup.EVERYONE: return true;
    case SystemGroup.MEMBERS: return user.role <= Role.MEMBER;
    case SystemGroup.FULL_MEMBERS:
      return user.role < Role.MEMBER || (user.role === Role.MEMBER && (now - user.date_joined) / 86400 >= waitingPeriodDays);
    case SystemGroup.MODERATORS: return user.role <= Role.MODERATOR;
    case SystemGroup.ADMINISTRATORS: return user.role <= Role.ADMINISTRATOR;
    case SystemGroup.OWNERS: return user.role === Role.OWNER;
    default: return false;
  }
}
