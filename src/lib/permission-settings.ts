import { SystemGroup } from './system-groups.js';

/**
 * Zulip's GroupPermissionSetting: what a group-valued permission setting accepts and its
 * default, as Zulip 9 (feature level 277) declares it for the settings Parley has. Register
 * sends these as `server_supported_permission_settings` (feature level 221).
 */
export interface GroupPermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_owners_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  id_field_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

const setting = (s: Partial<GroupPermissionSetting> & Pick<GroupPermissionSetting, 'default_group_name' | 'id_field_name'>): GroupPermissionSetting => ({
  require_system_group: false, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: false,
  default_for_system_groups: null, allowed_system_groups: [], ...s,
});

/** Stream.stream_permission_group_settings (a system group only until level 320). */
export const STREAM_PERMISSION_SETTINGS = {
  can_remove_subscribers_group: setting({
    require_system_group: true, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: false, allow_everyone_group: true,
    default_group_name: SystemGroup.ADMINISTRATORS, id_field_name: 'can_remove_subscribers_group_id',
  }),
} as const;

/** NamedUserGroup.GROUP_PERMISSION_SETTINGS. */
export const GROUP_PERMISSION_SETTINGS = {
  can_mention_group: setting({
    require_system_group: false, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: true,
    default_group_name: SystemGroup.EVERYONE, id_field_name: 'can_mention_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
} as const;

export type PermissionSettingName = keyof typeof STREAM_PERMISSION_SETTINGS | keyof typeof GROUP_PERMISSION_SETTINGS | keyof typeof REALM_PERMISSION_SETTINGS;

/**
 * Realm.REALM_PERMISSION_GROUP_SETTINGS: create_multiuse_invite_group (feature level 209),
 * can_access_all_users_group (225), and the settings of levels 264-270 that replaced policies
 * (src/lib/realm-group-settings.ts). Parley takes system groups only for these, hence
 * require_system_group. Zulip also allows role:members for can_access_all_users_group, which
 * limits what guests see of other users; Parley shows every user to everyone, so it allows
 * only role:everyone (and says so in allowed_system_groups).
 */
export const REALM_PERMISSION_SETTINGS = {
  create_multiuse_invite_group: setting({
    require_system_group: true, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: false,
    default_group_name: SystemGroup.ADMINISTRATORS, id_field_name: 'create_multiuse_invite_group_id',
  }),
  can_access_all_users_group: setting({
    require_system_group: true, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: false, allow_everyone_group: true,
    default_group_name: SystemGroup.EVERYONE, id_field_name: 'can_access_all_users_group_id', allowed_system_groups: [SystemGroup.EVERYONE],
  }),
  can_create_public_channel_group: setting({ require_system_group: true, allow_nobody_group: false, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_create_public_channel_group_id' }),
  can_create_private_channel_group: setting({ require_system_group: true, allow_nobody_group: false, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_create_private_channel_group_id' }),
  direct_message_initiator_group: setting({ require_system_group: true, allow_owners_group: true, allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE, id_field_name: 'direct_message_initiator_group_id' }),
  direct_message_permission_group: setting({ require_system_group: true, allow_owners_group: true, allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE, id_field_name: 'direct_message_permission_group_id' }),
  // Levels 299-363 (src/lib/realm-policy-groups.ts): Zulip 10's configs. Zulip had dropped the
  // owners restriction by then (level 326), so each allows role:owners.
  can_create_groups: setting({ allow_owners_group: true, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_create_groups_id' }),
  can_manage_all_groups: setting({ allow_owners_group: true, allow_nobody_group: false, default_group_name: SystemGroup.OWNERS, id_field_name: 'can_manage_all_groups_id' }),
  can_add_custom_emoji_group: setting({ allow_owners_group: true, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_add_custom_emoji_group_id' }),
  can_invite_users_group: setting({ allow_owners_group: true, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_invite_users_group_id' }),
  can_add_subscribers_group: setting({ allow_owners_group: true, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_add_subscribers_group_id' }),
  can_create_bots_group: setting({ allow_owners_group: true, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_create_bots_group_id' }),
  can_create_write_only_bots_group: setting({ allow_owners_group: true, default_group_name: SystemGroup.MEMBERS, id_field_name: 'can_create_write_only_bots_group_id' }),
  can_summarize_topics_group: setting({ allow_owners_group: true, allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE, id_field_name: 'can_summarize_topics_group_id' }),
  can_mention_many_users_group: setting({ allow_owners_group: true, allow_everyone_group: true, default_group_name: SystemGroup.ADMINISTRATORS, id_field_name: 'can_mention_many_users_group_id' }),
  can_manage_billing_group: setting({ allow_owners_group: true, allow_nobody_group: false, default_group_name: SystemGroup.ADMINISTRATORS, id_field_name: 'can_manage_billing_group_id' }),
} as const;
export type RealmPermissionSettingName = keyof typeof REALM_PERMISSION_SETTINGS;

/**
 * The realm group settings stored by group id (src/access/realm-group-setting.ts); those of
 * levels 264-270 are stored as the policies they replaced (src/lib/realm-group-settings.ts).
 */
export const ID_STORED_REALM_GROUP_SETTINGS = ['create_multiuse_invite_group', 'can_access_all_users_group',
  'can_create_groups', 'can_manage_all_groups', 'can_add_custom_emoji_group', 'can_invite_users_group', 'can_add_subscribers_group',
  'can_create_bots_group', 'can_create_write_only_bots_group', 'can_summarize_topics_group', 'can_mention_many_users_group',
  'can_manage_billing_group'] as const satisfies readonly RealmPermissionSettingName[];

/** The feature level that added each realm group setting. */
export const REALM_PERMISSION_SETTING_LEVELS: Record<RealmPermissionSettingName, number> = {
  create_multiuse_invite_group: 209,
  can_access_all_users_group: 225,
  can_create_public_channel_group: 264,
  can_create_private_channel_group: 266,
  direct_message_initiator_group: 270,
  direct_message_permission_group: 270,
  can_create_groups: 299,
  can_manage_all_groups: 299,
  can_add_custom_emoji_group: 307,
  can_invite_users_group: 321,
  can_add_subscribers_group: 341,
  can_create_bots_group: 344,
  can_create_write_only_bots_group: 344,
  can_summarize_topics_group: 350,
  can_mention_many_users_group: 352,
  can_manage_billing_group: 363,
};

/**
 * Register's `server_supported_permission_settings` (feature level 221; Zulip's
 * get_server_supported_permission_settings) for the settings Parley has, as Zulip 9
 * states them: `allowed_system_groups` from level 225, where it was added.
 */
export function serverSupportedPermissionSettings(featureLevel: number): Record<'realm' | 'stream' | 'group', Record<string, Partial<GroupPermissionSetting>>> {
  const shown = (all: Record<string, GroupPermissionSetting>) => Object.fromEntries(Object.entries(all)
    .filter(([name]) => featureLevel >= (REALM_PERMISSION_SETTING_LEVELS[name as RealmPermissionSettingName] ?? 0)).map(([name, s]) => {
    const { allowed_system_groups: allowed, ...rest } = s;
    return [name, featureLevel >= 225 ? { ...rest, allowed_system_groups: allowed } : rest];
  }));
  return { realm: shown(REALM_PERMISSION_SETTINGS), stream: shown(STREAM_PERMISSION_SETTINGS), group: shown(GROUP_PERMISSION_SETTINGS) };
}
