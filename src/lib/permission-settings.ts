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

/** Zulip's default_group_name for settings whose default is the group's creator alone. */
export const GROUP_CREATOR = 'group_creator';

const setting = (s: Partial<GroupPermissionSetting> & Pick<GroupPermissionSetting, 'default_group_name' | 'id_field_name'>): GroupPermissionSetting => ({
  require_system_group: false, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: false,
  default_for_system_groups: null, allowed_system_groups: [], ...s,
});

/**
 * Stream.stream_permission_group_settings as Zulip 10 declares them (levels 320-357): any
 * group-setting value; can_administer_channel_group defaults to the stream's creator.
 * Before level 320 can_remove_subscribers_group took a system group only
 * (LEGACY_REMOVE_SUBSCRIBERS_SETTING).
 */
export const STREAM_PERMISSION_SETTINGS = {
  can_add_subscribers_group: setting({ allow_nobody_group: true, allow_everyone_group: false, default_group_name: SystemGroup.NOBODY, id_field_name: 'can_add_subscribers_group_id' }),
  can_administer_channel_group: setting({ allow_nobody_group: true, allow_everyone_group: false, default_group_name: 'stream_creator_or_nobody', id_field_name: 'can_administer_channel_group_id' }),
  can_remove_subscribers_group: setting({ allow_nobody_group: true, allow_everyone_group: true, default_group_name: SystemGroup.ADMINISTRATORS, id_field_name: 'can_remove_subscribers_group_id' }),
  can_send_message_group: setting({ allow_nobody_group: true, allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE, id_field_name: 'can_send_message_group_id' }),
  can_subscribe_group: setting({ allow_nobody_group: true, allow_everyone_group: false, default_group_name: SystemGroup.NOBODY, id_field_name: 'can_subscribe_group_id' }),
} as const;

/** can_remove_subscribers_group as Zulip 9 declared it (feature levels 161-319): a system group, not role:nobody. */
export const LEGACY_REMOVE_SUBSCRIBERS_SETTING = setting({
  require_system_group: true, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: false, allow_everyone_group: true,
  default_group_name: SystemGroup.ADMINISTRATORS, id_field_name: 'can_remove_subscribers_group_id',
});

/** The feature level that added each stream group setting to register's server_supported_permission_settings. */
export const STREAM_PERMISSION_SETTING_LEVELS: Record<string, number> = {
  can_add_subscribers_group: 342, can_administer_channel_group: 325, can_remove_subscribers_group: 0, can_send_message_group: 333, can_subscribe_group: 357,
};

/** A stream setting's config at a level (can_remove_subscribers_group took system groups only before 320). */
export function streamSettingConfig(name: keyof typeof STREAM_PERMISSION_SETTINGS, featureLevel: number): GroupPermissionSetting {
  if (name === 'can_remove_subscribers_group' && featureLevel < 320) return LEGACY_REMOVE_SUBSCRIBERS_SETTING;
  return STREAM_PERMISSION_SETTINGS[name];
}

/** NamedUserGroup.GROUP_PERMISSION_SETTINGS. */
export const GROUP_PERMISSION_SETTINGS = {
  can_mention_group: setting({
    require_system_group: false, allow_internet_group: false, allow_owners_group: false, allow_nobody_group: true, allow_everyone_group: true,
    default_group_name: SystemGroup.EVERYONE, id_field_name: 'can_mention_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
  // Zulip 10's settings (levels 283-324). "group_creator": an anonymous group of the creator alone.
  can_add_members_group: setting({
    allow_owners_group: true, allow_nobody_group: true, allow_everyone_group: false,
    default_group_name: GROUP_CREATOR, id_field_name: 'can_add_members_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
  can_join_group: setting({
    allow_owners_group: true, allow_nobody_group: true, allow_everyone_group: false,
    default_group_name: SystemGroup.NOBODY, id_field_name: 'can_join_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
  can_leave_group: setting({
    allow_owners_group: true, allow_nobody_group: true, allow_everyone_group: true,
    default_group_name: SystemGroup.EVERYONE, id_field_name: 'can_leave_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
  can_manage_group: setting({
    allow_owners_group: true, allow_nobody_group: true, allow_everyone_group: false,
    default_group_name: GROUP_CREATOR, id_field_name: 'can_manage_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
  can_remove_members_group: setting({
    allow_owners_group: true, allow_nobody_group: true, allow_everyone_group: false,
    default_group_name: SystemGroup.NOBODY, id_field_name: 'can_remove_members_group_id', default_for_system_groups: SystemGroup.NOBODY,
  }),
} as const;
export type GroupPermissionSettingName = keyof typeof GROUP_PERMISSION_SETTINGS;

/** The feature level that added each user-group setting. */
export const GROUP_PERMISSION_SETTING_LEVELS: Record<GroupPermissionSettingName, number> = {
  can_mention_group: 191,
  can_manage_group: 283,
  can_join_group: 301,
  can_add_members_group: 305,
  can_leave_group: 308,
  can_remove_members_group: 324,
};

export type PermissionSettingName = keyof typeof STREAM_PERMISSION_SETTINGS | keyof typeof GROUP_PERMISSION_SETTINGS | keyof typeof REALM_PERMISSION_SETTINGS;

/**
 * Realm.REALM_PERMISSION_GROUP_SETTINGS as Zulip 10 declares them (from feature level 309,
 * 314 for create_multiuse_invite_group: anonymous groups and named user groups allowed
 * where no system group is required). Zulip 10 dropped allow_owners_group (level 326): every
 * setting takes role:owners. Zulip also allows role:members for can_access_all_users_group,
 * which limits what guests see of other users; Parley shows every user to everyone, so it
 * allows only role:everyone (and says so in allowed_system_groups).
 */
const realm = (s: Partial<GroupPermissionSetting> & Pick<GroupPermissionSetting, 'default_group_name'>, idField: string): GroupPermissionSetting =>
  setting({ allow_owners_group: true, id_field_name: idField, ...s });
export const REALM_PERMISSION_SETTINGS = {
  create_multiuse_invite_group: realm({ allow_nobody_group: true, default_group_name: SystemGroup.ADMINISTRATORS }, 'create_multiuse_invite_group_id'),
  can_access_all_users_group: realm({
    require_system_group: true, allow_nobody_group: false, allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE,
    allowed_system_groups: [SystemGroup.EVERYONE],
  }, 'can_access_all_users_group_id'),
  can_create_public_channel_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_create_public_channel_group_id'),
  can_create_private_channel_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_create_private_channel_group_id'),
  direct_message_initiator_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE }, 'direct_message_initiator_group_id'),
  direct_message_permission_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE }, 'direct_message_permission_group_id'),
  can_create_web_public_channel_group: realm({
    require_system_group: true, default_group_name: SystemGroup.OWNERS,
    allowed_system_groups: [SystemGroup.MODERATORS, SystemGroup.ADMINISTRATORS, SystemGroup.OWNERS, SystemGroup.NOBODY],
  }, 'can_create_web_public_channel_group_id'),
  can_delete_any_message_group: realm({ default_group_name: SystemGroup.ADMINISTRATORS }, 'can_delete_any_message_group_id'),
  can_delete_own_message_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE }, 'can_delete_own_message_group_id'),
  can_move_messages_between_channels_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_move_messages_between_channels_group_id'),
  can_move_messages_between_topics_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE }, 'can_move_messages_between_topics_group_id'),
  can_resolve_topics_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE }, 'can_resolve_topics_group_id'),
  // Levels 299-363 (realmB): can_create_groups before can_manage_all_groups, which decides the
  // deprecated user_group_edit_policy (src/lib/realm-group-settings.ts).
  can_create_groups: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_create_groups_id'),
  can_manage_all_groups: realm({ allow_nobody_group: false, default_group_name: SystemGroup.OWNERS }, 'can_manage_all_groups_id'),
  can_add_custom_emoji_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_add_custom_emoji_group_id'),
  can_invite_users_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_invite_users_group_id'),
  can_add_subscribers_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_add_subscribers_group_id'),
  can_create_bots_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_create_bots_group_id'),
  can_create_write_only_bots_group: realm({ default_group_name: SystemGroup.MEMBERS }, 'can_create_write_only_bots_group_id'),
  can_summarize_topics_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.EVERYONE }, 'can_summarize_topics_group_id'),
  can_mention_many_users_group: realm({ allow_everyone_group: true, default_group_name: SystemGroup.ADMINISTRATORS }, 'can_mention_many_users_group_id'),
  can_manage_billing_group: realm({ allow_nobody_group: false, default_group_name: SystemGroup.ADMINISTRATORS }, 'can_manage_billing_group_id'),
} as const satisfies Record<string, GroupPermissionSetting>;
export type RealmPermissionSettingName = keyof typeof REALM_PERMISSION_SETTINGS;
export const REALM_PERMISSION_SETTING_NAMES = Object.keys(REALM_PERMISSION_SETTINGS) as RealmPermissionSettingName[];

/** The feature level that added each realm group setting (register shows `realm_<name>` from it). */
export const REALM_PERMISSION_SETTING_LEVELS: Record<RealmPermissionSettingName, number> = {
  create_multiuse_invite_group: 209,
  can_access_all_users_group: 225,
  can_create_public_channel_group: 264,
  can_create_private_channel_group: 266,
  direct_message_initiator_group: 270,
  direct_message_permission_group: 270,
  can_create_web_public_channel_group: 280,
  can_delete_any_message_group: 281,
  can_delete_own_message_group: 291,
  can_create_groups: 299,
  can_manage_all_groups: 299,
  can_move_messages_between_channels_group: 310,
  can_move_messages_between_topics_group: 316,
  can_resolve_topics_group: 367,
  can_add_custom_emoji_group: 307,
  can_invite_users_group: 321,
  can_add_subscribers_group: 341,
  can_create_bots_group: 344,
  can_create_write_only_bots_group: 344,
  can_summarize_topics_group: 350,
  can_mention_many_users_group: 352,
  can_manage_billing_group: 363,
};

/** Feature level 309: group-setting values (any named group, anonymous groups) where no system group is required. */
export const REALM_ANY_GROUP_LEVEL = 309;
/** Feature level 314: create_multiuse_invite_group becomes a group-setting value. */
const ANY_GROUP_LEVEL: Partial<Record<RealmPermissionSettingName, number>> = { create_multiuse_invite_group: 314 };

/**
 * Zulip 9's configs (below level 309), where they differ: Parley took system groups only,
 * as Zulip 9 did in production; the stream creation settings refused role:nobody,
 * role:everyone was refused for the invitation links, and role:owners for the channel ones.
 */
const ZULIP9: Partial<Record<RealmPermissionSettingName, Partial<GroupPermissionSetting>>> = {
  create_multiuse_invite_group: { allow_owners_group: false },
  can_access_all_users_group: { allow_owners_group: false },
  can_create_public_channel_group: { allow_nobody_group: false, allow_owners_group: false },
  can_create_private_channel_group: { allow_nobody_group: false, allow_owners_group: false },
};

/** A realm setting's config as a client of this level knows it. */
export function realmPermissionConfig(name: RealmPermissionSettingName, featureLevel: number): GroupPermissionSetting {
  const config: GroupPermissionSetting = REALM_PERMISSION_SETTINGS[name];
  if (featureLevel >= (ANY_GROUP_LEVEL[name] ?? REALM_ANY_GROUP_LEVEL)) return config;
  return { ...config, ...ZULIP9[name], require_system_group: true };
}

/**
 * Register's `server_supported_permission_settings` (feature level 221; Zulip's
 * get_server_supported_permission_settings) for the settings Parley has, as Zulip 9
 * states them: `allowed_system_groups` from level 225, where it was added.
 */
export function serverSupportedPermissionSettings(featureLevel: number): Record<'realm' | 'stream' | 'group', Record<string, Partial<GroupPermissionSetting>>> {
  const shown = (all: Record<string, GroupPermissionSetting>) => Object.fromEntries(Object.entries(all)
    .filter(([name]) => featureLevel >= (REALM_PERMISSION_SETTING_LEVELS[name as RealmPermissionSettingName] ?? GROUP_PERMISSION_SETTING_LEVELS[name as GroupPermissionSettingName] ?? 0)).map(([name, s]) => {
    const { allowed_system_groups: allowed, allow_owners_group: owners, id_field_name: idField, ...rest } = s;
    // Level 326 dropped allow_owners_group and id_field_name.
    const old = featureLevel >= 326 ? {} : { allow_owners_group: owners, id_field_name: idField };
    return [name, { ...rest, ...old, ...(featureLevel >= 225 ? { allowed_system_groups: allowed } : {}) }];
  }));
  const realmConfigs = Object.fromEntries(REALM_PERMISSION_SETTING_NAMES.map((n) => [n, realmPermissionConfig(n, featureLevel)]));
  const streamShown = Object.fromEntries(Object.entries(STREAM_PERMISSION_SETTINGS)
    .filter(([name]) => featureLevel >= (STREAM_PERMISSION_SETTING_LEVELS[name] ?? 0))
    .map(([name]) => [name, streamSettingConfig(name as keyof typeof STREAM_PERMISSION_SETTINGS, featureLevel)]));
  return { realm: shown(realmConfigs), stream: shown(streamShown), group: shown(GROUP_PERMISSION_SETTINGS) };
}
