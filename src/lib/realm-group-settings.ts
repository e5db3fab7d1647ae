import { Role } from './roles.js';
import { SystemGroup, type SystemGroupName } from './system-groups.js';
import type { RealmSettings } from './realm-settings.js';

/**
 * Levels 264, 266 and 270: organization permissions that Zulip 9 turned from policy
 * integers into group-setting values. Parley takes system groups only (Zulip 9 had no
 * anonymous groups for them; named user groups are refused, see REALM_PERMISSION_SETTINGS).
 *
 * The stream creation settings are stored as the policy they replace: Zulip 9's
 * allowed groups for them (members, full members, moderators, administrators) are
 * exactly the policy's four values, so the policy, its checks and register's deprecated
 * `realm_create_*_stream_policy` (Zulip's get_corresponding_policy_value_for_group_setting)
 * stay what they were. The direct message settings are stored by group name; changing
 * private_message_policy (level 122) sets direct_message_permission_group the way Zulip's
 * migration did (disabled: role:nobody, else role:everyone), and the reverse keeps the
 * policy in step for clients below level 270.
 */
export const REALM_GROUP_SETTING_LEVELS = {
  can_create_public_channel_group: 264,
  can_create_private_channel_group: 266,
  direct_message_initiator_group: 270,
  direct_message_permission_group: 270,
} as const;
export type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTING_LEVELS;
export const REALM_GROUP_SETTING_NAMES = Object.keys(REALM_GROUP_SETTING_LEVELS) as RealmGroupSettingName[];

/** The policy each stream creation setting replaced. */
export const POLICY_OF = {
  can_create_public_channel_group: 'create_public_stream_policy',
  can_create_private_channel_group: 'create_private_stream_policy',
} as const;

/** Zulip's Realm.SYSTEM_GROUPS_ENUM_MAP for the common policy values (1 to 4). */
const GROUP_OF_POLICY: Readonly<Record<number, SystemGroupName>> = {
  1: SystemGroup.MEMBERS, 2: SystemGroup.ADMINISTRATORS, 3: SystemGroup.FULL_MEMBERS, 4: SystemGroup.MODERATORS,
};
export function policyOfGroup(name: string): number | undefined {
  const hit = Object.entries(GROUP_OF_POLICY).find(([, g]) => g === name);
  return hit === undefined ? undefined : Number(hit[0]);
}

/** Zulip's PRIVATE_MESSAGE_POLICY_DISABLED. */
export const PRIVATE_MESSAGES_DISABLED = 2;

/** The system group each setting names now. */
export function realmGroupSetting(settings: Readonly<RealmSettings>, name: RealmGroupSettingName): SystemGroupName {
  const stored = settings as Readonly<Record<string, unknown>>;
  switch (name) {
    case 'can_create_public_channel_group':
    case 'can_create_private_channel_group':
      // Zulip's fallback for a value outside the map is members; Parley stores only 1 to 4.
      return GROUP_OF_POLICY[settings[POLICY_OF[name]]] ?? SystemGroup.MEMBERS;
    case 'direct_message_initiator_group':
      return (stored[name] as SystemGroupName | undefined) ?? SystemGroup.EVERYONE;
    case 'direct_message_permission_group':
      return (stored[name] as SystemGroupName | undefined)
        ?? (settings.private_message_policy === PRIVATE_MESSAGES_DISABLED ? SystemGroup.NOBODY : SystemGroup.EVERYONE);
  }
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
