/**
 * How PATCH /realm reads each organization setting: Zulip 5's update_realm validators.
 * The settings with their own parsing (name, description, the "unlimited" limits (the
 * content edit limit among them), the
 * notification streams, string_id) are handled by name in the action.
 */
export type RealmSettingRule =
  | { kind: 'bool' }
  | { kind: 'intIn'; values: readonly number[] }
  | { kind: 'int' }
  /** Zulip's to_non_negative_int converter ("Bad value for '<name>': <value>"). */
  | { kind: 'nonNegativeInt' }
  | { kind: 'str' }
  /** Zulip's parse_message_time_limit_setting: a positive integer, or `unlimited` (null). */
  | { kind: 'timeLimit' };

const bool = { kind: 'bool' } as const;
// Zulip's policy value sets (Realm.*_POLICY_TYPES at feature level 122).
const COMMON = { kind: 'intIn', values: [1, 2, 3, 4] } as const;
const COMMON_MESSAGE = { kind: 'intIn', values: [1, 2, 3, 4, 5] } as const;

export const REALM_SETTING_RULES = {
  emails_restricted_to_domains: bool,
  disallow_disposable_email_addresses: bool,
  invite_required: bool,
  invite_to_realm_policy: { kind: 'intIn', values: [1, 2, 3, 4, 6] },
  name_changes_disabled: bool,
  email_changes_disabled: bool,
  avatar_changes_disabled: bool,
  inline_image_preview: bool,
  inline_url_embed_preview: bool,
  add_custom_emoji_policy: COMMON,
  delete_own_message_policy: COMMON_MESSAGE,
  allow_message_editing: bool,
  // Feature level 159 added Nobody (6), accepted at every level.
  edit_topic_policy: { kind: 'intIn', values: [1, 2, 3, 4, 5, 6] },
  mandatory_topics: bool,
  allow_edit_history: bool,
  // Level 358: "all", "moves" or "none" (checked by name in the action).
  message_edit_history_visibility_policy: { kind: 'str' },
  default_language: { kind: 'str' },
  waiting_period_threshold: { kind: 'nonNegativeInt' },
  send_welcome_emails: bool,
  digest_emails_enabled: bool,
  message_content_allowed_in_email_notifications: bool,
  bot_creation_policy: { kind: 'intIn', values: [1, 2, 3] },
  create_public_stream_policy: COMMON,
  create_private_stream_policy: COMMON,
  create_web_public_stream_policy: { kind: 'intIn', values: [2, 4, 6, 7] },
  invite_to_stream_policy: COMMON,
  move_messages_between_streams_policy: { kind: 'intIn', values: [1, 2, 3, 4, 6] },
  user_group_edit_policy: COMMON,
  private_message_policy: { kind: 'intIn', values: [1, 2] },
  wildcard_mention_policy: { kind: 'intIn', values: [1, 2, 3, 4, 5, 6, 7] },
  email_address_visibility: { kind: 'intIn', values: [1, 2, 3, 4, 5] },
  video_chat_provider: { kind: 'int' },
  giphy_rating: { kind: 'int' },
  default_code_block_language: { kind: 'str' },
  digest_weekday: { kind: 'intIn', values: [0, 1, 2, 3, 4, 5, 6] },
  org_type: { kind: 'intIn', values: [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000] },
  enable_spectator_access: bool,
  enable_read_receipts: bool,
  want_advertise_in_communities_directory: bool,
  // Feature level 162 (moving messages' time limits).
  move_messages_within_stream_limit_seconds: { kind: 'timeLimit' },
  move_messages_between_streams_limit_seconds: { kind: 'timeLimit' },
  // Levels 216 and 246; jitsi_server_url and the announcement streams are parsed by name.
  enable_guest_user_indicator: bool,
  require_unique_names: bool,
  enable_guest_user_dm_warning: bool,
} as const satisfies Record<string, RealmSettingRule>;

/** wildcard_mention_policy's stream administrators option, accepted only below feature level 133. */
export const WILDCARD_STREAM_ADMINS = 4;

export type RealmSettingName = keyof typeof REALM_SETTING_RULES;

/** Settings only an owner may change (Zulip's OrganizationOwnerRequiredError cases). */
export const OWNER_ONLY_SETTINGS: ReadonlySet<string> = new Set([
  'invite_to_realm_policy', 'invite_required', 'emails_restricted_to_domains', 'disallow_disposable_email_addresses',
  'waiting_period_threshold', 'message_retention_days', 'string_id',
]);

/** Zulip 5 answered all three when one changed (until level 150, which answers and announces each on its own). */
export const MESSAGE_EDITING_SETTINGS = ['allow_message_editing', 'message_content_edit_limit_seconds', 'edit_topic_policy'] as const;

/** Zulip's Realm.VIDEO_CHAT_PROVIDERS ids that Parley offers (register's realm_available_video_chat_providers). */
export const VIDEO_CHAT_PROVIDER_IDS: readonly number[] = [0, 1];
/** Zulip's Realm.GIPHY_RATING_OPTIONS ids. */
export const GIPHY_RATING_IDS: readonly number[] = [0, 1, 2, 3, 4];

// Zulip's Realm.MAX_REALM_NAME_LENGTH and MAX_REALM_DESCRIPTION_LENGTH.
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
