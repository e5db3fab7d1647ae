import { realmAuthenticationMethods } from '../../presenters/auth-methods.js';
import type { Q, RealmRow, UserRow } from '../../store/rows.js';
import { hasRealmGroupPermission } from '../../access/realm-group-setting.js';
import { serverSupportedPermissionSettings } from '../../lib/permission-settings.js';
import type { Config } from '../../config.js';
import { realmSettings, REALM_SETTING_DEFAULTS, REALM_SETTING_LEVELS } from '../../lib/realm-settings.js';
import { realmUri } from '../../lib/realm-host.js';
import { WILDCARD_STREAM_ADMINS } from '../../lib/realm-setting-rules.js';
import { Role, isAdminRole } from '../../lib/roles.js';
import { SERVER_GENERATION } from '../../lib/version.js';
import { DEFAULT_EXTERNAL_ACCOUNTS } from '../../lib/profile-field-rules.js';
import { avatarUrl } from '../../presenters/user.js';
import { realmIconUrl } from '../../presenters/realm.js';
import { OFFLINE_THRESHOLD_SECS } from '../../presenters/presence.js';
import { MAX_MESSAGE_BYTES, MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH, MAX_TOPIC_LENGTH } from '../../lib/limits.js';
import { LONGPOLL_TIMEOUT_SECS } from '../../events/manager.js';
import { hasPolicyPermission, webPublicStreamsEnabled } from '../../access/realm-policy.js';
import { namesAtLevel, presentRealmSetting } from '../../lib/realm-setting-names.js';
import { laterRealmState } from './realm-later.js';
import { REPLACED_POLICY } from '../../lib/realm-group-settings.js';
import { pushNotificationsEnabled } from '../../lib/push-status.js';
import { SERVER_EMOJI_DATA_DIR, serverEmojiData } from '../../emoji/server-data.js';
import { MAX_AVATAR_FILE_SIZE_MIB } from '../../uploads/avatar-image.js';
import { MAX_ICON_FILE_SIZE_MIB } from '../../lib/realm-icon.js';

/** register's `realm` state: the organization's settings and the server's limits. */
export function realmState(config: Config, realm: RealmRow, user: UserRow): Record<string, unknown> {
  const s = realmSettings(realm.settings);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(REALM_SETTING_DEFAULTS) as Array<keyof typeof s>) {
    if (config.featureLevel < (REALM_SETTING_LEVELS[key] ?? 0)) continue;
    for (const name of namesAtLevel(key, config.featureLevel)) out[`realm_${name}`] = presentRealmSetting(key, s[key], config.featureLevel);
  }
  // Feature level 163 made it each user's setting (user_settings.email_address_visibility).
  if (config.featureLevel >= 163) delete out.realm_email_address_visibility;
  // From feature level 133 there is no stream administrators option (4): Zulip migrated it to
  // administrators (5), which is how Parley has always applied it.
  if (config.featureLevel >= 133 && out.realm_wildcard_mention_policy === WILDCARD_STREAM_ADMINS) out.realm_wildcard_mention_policy = 5;
  // The realm permission settings and the policies they replaced: realmGroupSettingsState
  // (src/access/realm-group-setting.ts). private_message_policy is gone from 270, as in Zulip 9.
  for (const replaced of Object.values(REPLACED_POLICY)) delete out[`realm_${replaced.policy}`];
  if (config.featureLevel >= 270) delete out.realm_private_message_policy;
  // Level 358: an organization that hid edit history before the policy existed hides all of it.
  if (config.featureLevel >= 358 && !s.allow_edit_history) out.realm_message_edit_history_visibility_policy = 'none';
  Object.assign(out, {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_uri: realmUri(config, realm),
    realm_icon_url: realmIconUrl(realm),
    realm_date_created: realm.date_created,
    realm_authentication_methods: realmAuthenticationMethods(config.sso),
    realm_available_video_chat_providers: { disabled: { name: 'None', id: 0 }, jitsi_meet: { name: 'Jitsi Meet', id: 1 } },
    realm_is_zephyr_mirror_realm: false,
    // The service's answer for this organization may turn it off: register/realm-push.ts.
    realm_push_notifications_enabled: pushNotificationsEnabled(config),
    realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_message_retention_days: s.message_retention_days,
    realm_allow_message_editing: s.allow_message_editing,
    max_stream_name_length: MAX_STREAM_NAME_LENGTH,
    max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_message_length: MAX_MESSAGE_BYTES,
    server_generation: SERVER_GENERATION,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_web_public_streams_enabled: true,
    // Zulip's SEND_DIGEST_EMAILS: the weekly digest is sent (src/notifications/digest.ts).
    settings_send_digest_emails: true,
    event_queue_longpoll_timeout_seconds: LONGPOLL_TIMEOUT_SECS,
    // The timing protocol of the spec's Limits table. Zulip names them in the state from
    // later feature levels; clients that read them (the Flutter app) get the true values.
    server_typing_started_wait_period_milliseconds: 10_000,
    server_typing_stopped_wait_period_milliseconds: 5_000,
    server_typing_started_expiry_period_milliseconds: 15_000,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
    password_min_length: 6,
    password_min_guesses: 10000,
    upgrade_text_for_wide_organization_logo: '',
    zulip_plan_is_not_limited: true,
    giphy_api_key: '',
    development_environment: false,
    // The server's limit on POST /user_uploads (Zulip's MAX_FILE_UPLOAD_SIZE).
    max_file_upload_size_mib: config.maxFileUploadSizeMib,
    max_avatar_file_size_mib: MAX_AVATAR_FILE_SIZE_MIB,
    max_icon_file_size_mib: MAX_ICON_FILE_SIZE_MIB,
    max_logo_file_size_mib: 0,
    realm_logo_source: 'D',
    realm_logo_url: '',
    realm_night_logo_source: 'D',
    realm_night_logo_url: '',
    realm_bot_domain: new URL(realmUri(config, realm)).hostname,
    jitsi_server_url: 'https://meet.jit.si',
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    ...ownUserState(user, realm),
    avatar_version: user.avatar_version,
  });
  Object.assign(out, laterRealmState(config, realm, realmAuthenticationMethods(config.sso)));
  // Level 140: an absolute URL, fetched by clients without credentials.
  if (config.featureLevel >= 140) out.server_emoji_data_url = new URL(SERVER_EMOJI_DATA_DIR + serverEmojiData().name, realmUri(config, realm)).href;
  if (config.featureLevel >= 221) out.server_supported_permission_settings = serverSupportedPermissionSettings(config.featureLevel);
  // Level 273: the formats the server makes thumbnails in; none, until Parley makes thumbnails.
  if (config.featureLevel >= 273) out.server_thumbnail_formats = [];
  // Level 341: can_add_subscribers_group (realm_can_add_subscribers_group) says it instead.
  if (config.featureLevel >= 341) delete out.can_subscribe_other_users;
  // Level 363: can_manage_billing_group says it instead.
  if (config.featureLevel >= 363) delete out.is_billing_admin;
  // Level 350: Parley has no AI summaries.
  if (config.featureLevel >= 350) out.server_can_summarize_topics = false;
  return out;
}


const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  pg13: { name: 'Allow GIFs rated PG13 (Parental guidance - under 13)', id: 4 },
};

/** Zulip's custom profile field types at this feature level. */
export const CUSTOM_PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: 'Short text' },
  LONG_TEXT: { id: 2, name: 'Long text' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Person picker' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
};

/** register's custom_profile_field_types: Zulip added pronouns (8) at feature level 151. */
export function profileFieldTypes(featureLevel: number): Record<string, { id: number; name: string }> {
  return featureLevel >= 151 ? { ...CUSTOM_PROFILE_FIELD_TYPES, PRONOUNS: { id: 8, name: 'Pronouns' } } : CUSTOM_PROFILE_FIELD_TYPES;
}

/** What the stream creation settings (group-setting values, levels 264-280) let the registering user do. */
export async function ownStreamCreationState(q: Q, user: UserRow, realm: RealmRow): Promise<Record<string, boolean>> {
  const canCreatePublic = await hasRealmGroupPermission(q, realm, user, 'can_create_public_channel_group');
  const canCreatePrivate = await hasRealmGroupPermission(q, realm, user, 'can_create_private_channel_group');
  const canCreateWebPublic = webPublicStreamsEnabled(realm) && await hasRealmGroupPermission(q, realm, user, 'can_create_web_public_channel_group');
  return {
    can_create_streams: canCreatePublic || canCreatePrivate || canCreateWebPublic,
    can_create_public_streams: canCreatePublic,
    can_create_private_streams: canCreatePrivate,
    can_create_web_public_streams: canCreateWebPublic,
  };
}

/** Who the registering user is: sent with both `realm` and `realm_user`, as Zulip does. */
export function ownUserState(user: UserRow, realm: RealmRow): Record<string, unknown> {
  // What the organization's policies let this user do, as Zulip's has_permission answers.
  const may = (policy: Parameters<typeof hasPolicyPermission>[2]) => hasPolicyPermission(user, realm, policy);
  return {
    is_admin: isAdminRole(user.role),
    is_owner: user.role === Role.OWNER,
    is_moderator: user.role === Role.MODERATOR,
    is_guest: user.role === Role.GUEST,
    is_billing_admin: user.is_billing_admin === 1,
    can_subscribe_other_users: may('invite_to_stream_policy'),
    can_invite_others_to_realm: user.role <= Role.MEMBER,
    user_id: user.id,
    email: user.email,
    delivery_email: user.delivery_email,
    full_name: user.full_name,
    avatar_source: user.avatar_source,
    avatar_url: avatarUrl(user, false),
    avatar_url_medium: avatarUrl(user, false, true),
  };
}
