/** Personal settings with Zulip's defaults; users.settings holds only what a user changed. */
export const USER_SETTING_DEFAULTS = {
  twenty_four_hour_time: false,
  dense_mode: true,
  starred_message_counts: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  color_scheme: 1,
  translate_emoticons: false,
  default_language: 'en',
  // Level 219 renamed default_view and escape_navigates_to_default_view (RENAMED_SETTINGS).
  web_home_view: 'recent_topics',
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: 'google-blob',
  demote_inactive_streams: 1,
  timezone: '',
  enter_sends: false,
  enable_drafts_synchronization: true,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  wildcard_mentions_notify: true,
  enable_desktop_notifications: true,
  pm_content_in_desktop_notifications: true,
  enable_sounds: true,
  enable_offline_email_notifications: true,
  message_content_in_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_digest_emails: true,
  enable_marketing_emails: true,
  enable_login_emails: true,
  // Level 168: replaces the boolean realm_name_in_notifications (1 automatic, 2 always, 3 never).
  realm_name_in_email_notifications_policy: 1,
  presence_enabled: true,
  // Level 227's numbering (1 all unreads, 2 DMs, mentions and followed topics, 3 DMs and
  // mentions, 4 none); clients of earlier levels see and send the old one (DESKTOP_ICON_*).
  desktop_icon_count_display: 1,
  email_notifications_batching_period_seconds: 120,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  display_emoji_reaction_users: true,
  user_list_style: 2,
  web_mark_read_on_scroll_policy: 1,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  web_stream_unreads_count_display_policy: 2,
  // Zulip's AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_*: 1 on participation, 2 on send, 3 on initiation, 4 never.
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  web_font_size_px: 14,
  web_line_height_percent: 122,
  receives_typing_notifications: true,
  web_navigate_to_sent_message: true,
  // Level 350: hide the AI features, of which Parley has none.
  hide_ai_features: false,
  web_channel_default_view: 1,
  web_animate_image_previews: 'on_hover',
  /** Who may see the user's real address (feature level 163; 1 everyone … 4 nobody, 5 moderators), Zulip's default. */
  email_address_visibility: 1,
  // Level 293: whether administrators may export the user's private data (Zulip's default: no).
  allow_private_data_export: false,
  // Level 329: offer to update the profile's time zone when the device's differs.
  web_suggest_update_timezone: true,
};

/**
 * The feature level that added each later setting: register shows it only from that level
 * (PATCH takes it at any), and the legacy top-level copy never has it (Zulip froze the legacy
 * dicts at level 89).
 */
export const USER_SETTING_LEVELS: Readonly<Partial<Record<keyof typeof USER_SETTING_DEFAULTS, number>>> = {
  display_emoji_reaction_users: 125,
  user_list_style: 141,
  web_mark_read_on_scroll_policy: 175,
  enable_followed_topic_desktop_notifications: 189,
  enable_followed_topic_email_notifications: 189,
  enable_followed_topic_push_notifications: 189,
  enable_followed_topic_audible_notifications: 189,
  enable_followed_topic_wildcard_mentions_notify: 189,
  web_stream_unreads_count_display_policy: 210,
  automatically_follow_topics_policy: 214,
  automatically_unmute_topics_in_muted_streams_policy: 214,
  automatically_follow_topics_where_mentioned: 235,
  web_font_size_px: 245,
  web_line_height_percent: 245,
  receives_typing_notifications: 253,
  web_navigate_to_sent_message: 268,
  hide_ai_features: 350,
  web_channel_default_view: 269,
  web_animate_image_previews: 275,
  email_address_visibility: 163,
  allow_private_data_export: 293,
  web_suggest_update_timezone: 329,
};

/** Settings a level removed: clients of that level and later neither see them nor hear of changes (PATCH still takes them). */
export const USER_SETTING_REMOVED_LEVELS: Readonly<Partial<Record<keyof typeof USER_SETTING_DEFAULTS, number>>> = {
  // Level 364: information density is web_font_size_px and web_line_height_percent alone.
  dense_mode: 364,
};

/** True when a client of this level no longer knows the setting. */
export function settingRemovedAt(name: string, featureLevel: number): boolean {
  const removed = (USER_SETTING_REMOVED_LEVELS as Record<string, number | undefined>)[name];
  return removed !== undefined && featureLevel >= removed;
}

/**
 * From level 364 (dense_mode gone) Zulip's defaults for new users are 16 px and 140%
 * (WEB_FONT_SIZE_PX_DEFAULT, WEB_LINE_HEIGHT_PERCENT_DEFAULT); 14 and 122 were the dense
 * mode's, and users who have them keep them.
 */
export const DENSITY_DEFAULTS_LEVEL = 364;
const NEW_DENSITY_DEFAULTS = { web_font_size_px: 16, web_line_height_percent: 140 };

/**
 * Settings a level renamed or reshaped: before `level` clients see and send `old`, with the
 * value converted (stored under the new name; migration 043 moved what was stored).
 */
export const RENAMED_SETTINGS: Readonly<Record<string, { old: string; level: number; toOld: (v: unknown) => unknown; fromOld: (v: unknown) => unknown }>> = {
  // Zulip's migration 0420: true became "always", false "automatic".
  realm_name_in_email_notifications_policy: { old: 'realm_name_in_notifications', level: 168, toOld: (v) => v === 2, fromOld: (v) => (v ? 2 : 1) },
  web_home_view: { old: 'default_view', level: 219, toOld: (v) => v, fromOld: (v) => v },
  web_escape_navigates_to_home_view: { old: 'escape_navigates_to_default_view', level: 219, toOld: (v) => v, fromOld: (v) => v },
};

/** Level 227 inserted "DMs, mentions and followed topics" as 2: the old 2 and 3 became 3 and 4. */
export const DESKTOP_ICON_RENUMBER_LEVEL = 227;
const DESKTOP_ICON_TO_OLD: Readonly<Record<number, number>> = { 1: 1, 2: 2, 3: 2, 4: 3 };
const DESKTOP_ICON_FROM_OLD: Readonly<Record<number, number>> = { 1: 1, 2: 3, 3: 4 };

/** A setting as a client of this level names and values it: [name, value], or null if it does not know it. */
export function wireSetting(name: string, value: unknown, featureLevel: number): [string, unknown] | null {
  const since = (USER_SETTING_LEVELS as Record<string, number | undefined>)[name];
  if (since !== undefined && featureLevel < since) return null;
  if (settingRemovedAt(name, featureLevel)) return null;
  const renamed = RENAMED_SETTINGS[name];
  if (renamed && featureLevel < renamed.level) return [renamed.old, renamed.toOld(value)];
  if (name === 'desktop_icon_count_display' && featureLevel < DESKTOP_ICON_RENUMBER_LEVEL) return [name, DESKTOP_ICON_TO_OLD[value as number] ?? value];
  return [name, value];
}

/** A setting as sent by a client of this level ([name, value] under today's name), the reverse of wireSetting. */
export function canonicalSetting(name: string, value: unknown, featureLevel: number): [string, unknown] {
  for (const [current, renamed] of Object.entries(RENAMED_SETTINGS)) if (renamed.old === name) return [current, renamed.fromOld(value)];
  if (name === 'desktop_icon_count_display' && featureLevel < DESKTOP_ICON_RENUMBER_LEVEL) return [name, DESKTOP_ICON_FROM_OLD[value as number] ?? value];
  return [name, value];
}

/** From this level a status's `away` is the presence_enabled setting turned off (Zulip 6). */
export const AWAY_IS_PRESENCE_LEVEL = 148;

/** The settings as a client of this feature level knows them: those added later left out, renamed ones under its names. */
export function settingsAtLevel(settings: Record<string, unknown>, featureLevel: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(settings)) {
    const wire = wireSetting(name, value, featureLevel);
    if (wire) out[wire[0]] = wire[1];
  }
  return out;
}

/**
 * The legacy top-level copy of the settings: only those Zulip had when it froze it (Zulip
 * renamed the legacy keys with the settings, and put web_escape_navigates_to_home_view among
 * the modern ones).
 */
export function legacySettings(settings: Record<string, unknown>, featureLevel: number): Record<string, unknown> {
  const out = settingsAtLevel(settings, featureLevel);
  for (const name of Object.keys(USER_SETTING_LEVELS)) delete out[name];
  delete out.web_escape_navigates_to_home_view;
  return out;
}

export type UserSettings = Readonly<typeof USER_SETTING_DEFAULTS & Record<string, unknown>>;

/** Most users share a few settings texts ('{}' above all): each is read once. */
const parsed = new Map<string, UserSettings>();

/** A user's settings with the defaults filled in; shared and frozen, so never to be changed. */
export function userSettings(json: string): UserSettings {
  let settings = parsed.get(json);
  if (settings) return settings;
  let stored: Record<string, unknown> = {};
  try {
    stored = JSON.parse(json) as Record<string, unknown>;
  } catch {
    /* corrupt: defaults */
  }
  settings = Object.freeze({ ...USER_SETTING_DEFAULTS, ...(stored && typeof stored === 'object' ? stored : {}) });
  if (parsed.size >= 1000) parsed.clear();
  parsed.set(json, settings);
  return settings;
}

/** What the settings UI offers, sent beside the settings as Zulip sends it. */
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google modern' },
  { key: 'google-blob', text: 'Google classic' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];
export const AVAILABLE_NOTIFICATION_SOUNDS = ['chime', 'ding', 'zulip'];

/**
 * The organization's defaults for new users' settings (Zulip's RealmUserDefault, feature
 * level 95): the built-in defaults with what PATCH /realm/user_settings_defaults changed,
 * kept in the realm's settings JSON under `user_settings_defaults`.
 */
export function realmUserSettingsDefaults(realmSettingsJson = '{}', featureLevel = Infinity, densityLevel = featureLevel): Record<string, unknown> {
  const { timezone: _perUser, ...defaults } = USER_SETTING_DEFAULTS;
  const all = { ...defaults, ...storedRealmUserDefaults(realmSettingsJson, densityLevel) };
  return { ...settingsAtLevel(all, featureLevel), emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS };
}

/**
 * What the organization changed (and, from level 364, the new density defaults where it did
 * not): a new user's own settings start as these.
 */
export function storedRealmUserDefaults(realmSettingsJson: string, featureLevel = 0): Record<string, unknown> {
  const base = featureLevel >= DENSITY_DEFAULTS_LEVEL ? NEW_DENSITY_DEFAULTS : {};
  try {
    const stored = (JSON.parse(realmSettingsJson) as { user_settings_defaults?: Record<string, unknown> }).user_settings_defaults;
    return { ...base, ...(stored && typeof stored === 'object' ? stored : {}) };
  } catch {
    return { ...base };
  }
}
