/**
 * Organization settings with Zulip's defaults. Stored as JSON on the realm row so
 * that later issues can add settings without a migration; read through
 * realmSettings() so every reader sees the defaults filled in.
 */
export const REALM_SETTING_DEFAULTS = {
  invite_required: true,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  waiting_period_threshold: 0,
  /** Zulip policy integers: 1 members, 2 admins, 3 full members, 4 moderators. */
  create_public_stream_policy: 1,
  create_private_stream_policy: 1,
  create_web_public_stream_policy: 7,
  invite_to_stream_policy: 1,
  invite_to_realm_policy: 1,
  user_group_edit_policy: 1,
  private_message_policy: 1,
  wildcard_mention_policy: 5,
  edit_topic_policy: 5,
  move_messages_between_streams_policy: 2,
  delete_own_message_policy: 1,
  add_custom_emoji_policy: 1,
  email_address_visibility: 1,
  message_retention_days: -1 as number,
  mandatory_topics: false,
  allow_message_editing: true,
  /** null: no limit (level 138; 0 before it, which is still read as no limit). */
  message_content_edit_limit_seconds: 600 as number | null,
  message_content_delete_limit_seconds: null as number | null,
  allow_edit_history: true,
  // Level 358 (src/lib/realm-policy-groups.ts): replaces allow_edit_history, kept equal to it (false: "none").
  message_edit_history_visibility_policy: 'all' as 'all' | 'moves' | 'none',
  enable_spectator_access: false,
  name_changes_disabled: false,
  email_changes_disabled: false,
  avatar_changes_disabled: false,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  digest_emails_enabled: false,
  digest_weekday: 1,
  send_welcome_emails: true,
  message_content_allowed_in_email_notifications: true,
  default_language: 'en',
  default_code_block_language: null as string | null,
  video_chat_provider: 1,
  giphy_rating: 2,
  notifications_stream_id: -1,
  signup_notifications_stream_id: -1,
  org_type: 0,
  plan_type: 1,
  presence_disabled: false,
  icon_source: 'G',
  logo_source: 'D',
  night_logo_source: 'D',
  default_twenty_four_hour_time: false,
  bot_creation_policy: 1,
  upload_quota_mib: null as number | null,
  // Zulip turns read receipts on for new organizations.
  enable_read_receipts: true,
  want_advertise_in_communities_directory: false,
  // Feature level 162: how long non-moderators may move messages to another topic or
  // stream (null: no limit); Zulip's DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS, a week, for both.
  move_messages_within_stream_limit_seconds: 604_800 as number | null,
  move_messages_between_streams_limit_seconds: 604_800 as number | null,
  // Levels 212-246. jitsi_server_url null: the server's Jitsi (server_jitsi_server_url).
  jitsi_server_url: null as string | null,
  enable_guest_user_indicator: true,
  require_unique_names: false,
  zulip_update_announcements_stream_id: -1,
  // Level 331: the private channel moderation requests go to (-1: none).
  moderation_request_channel_id: -1,
  // Level 348: whether clients warn when composing to a guest.
  enable_guest_user_dm_warning: true,
};

/** The feature level that added each later setting: register shows `realm_<name>` only from it (PATCH /realm takes it at any). */
export const REALM_SETTING_LEVELS: Readonly<Partial<Record<keyof typeof REALM_SETTING_DEFAULTS, number>>> = {
  want_advertise_in_communities_directory: 129,
  enable_read_receipts: 137,
  move_messages_within_stream_limit_seconds: 162,
  move_messages_between_streams_limit_seconds: 162,
  jitsi_server_url: 212, enable_guest_user_indicator: 216, zulip_update_announcements_stream_id: 242, require_unique_names: 246,
  moderation_request_channel_id: 331, enable_guest_user_dm_warning: 348,
  message_edit_history_visibility_policy: 358,
};

export type RealmSettings = typeof REALM_SETTING_DEFAULTS;

/** The content edit limit as a client of this level knows it: no limit is null from level 138, 0 before. */
export function presentEditLimit(seconds: number | null, featureLevel: number): number | null {
  return featureLevel >= 138 ? (seconds || null) : (seconds ?? 0);
}

// Parsed per request on hot paths; the handful of distinct blobs (one per realm and
// version) is worth keeping. Callers treat the result as read-only.
const parsed = new Map<string, RealmSettings>();

export function realmSettings(json: string): Readonly<RealmSettings> {
  const hit = parsed.get(json);
  if (hit) return hit;
  if (parsed.size >= 256) parsed.clear();
  const value = parseSettings(json);
  parsed.set(json, value);
  return value;
}

function parseSettings(json: string): RealmSettings {
  let stored: Partial<RealmSettings> = {};
  try {
    stored = JSON.parse(json) as Partial<RealmSettings>;
  } catch {
    /* a corrupt settings blob falls back to defaults rather than failing every request */
  }
  return { ...REALM_SETTING_DEFAULTS, ...stored };
}
