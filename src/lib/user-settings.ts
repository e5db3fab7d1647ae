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
  default_view: 'recent_topics',
  escape_navigates_to_default_view: true,
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
  realm_name_in_notifications: false,
  presence_enabled: true,
  desktop_icon_count_display: 1,
  email_notifications_batching_period_seconds: 120,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  display_emoji_reaction_users: true,
  user_list_style: 2,
  /** Who may see the user's real address (feature level 163; 1 everyone … 4 nobody, 5 moderators), Zulip's default. */
  email_address_visibility: 1,
};

/**
 * The feature level that added each later setting: register shows it only from that level
 * (PATCH takes it at any), and the legacy top-level copy never has it (Zulip froze the legacy
 * dicts at level 89).
 */
export const USER_SETTING_LEVELS: Readonly<Partial<Record<keyof typeof USER_SETTING_DEFAULTS, number>>> = {
  display_emoji_reaction_users: 125,
  user_list_style: 141,
  email_address_visibility: 163,
};

/** The settings a client of this feature level knows: those added later left out. */
export function settingsAtLevel<T extends Record<string, unknown>>(settings: T, featureLevel: number): T {
  const out: Record<string, unknown> = { ...settings };
  for (const [name, level] of Object.entries(USER_SETTING_LEVELS)) if (featureLevel < level) delete out[name];
  return out as T;
}

/** The legacy top-level copy of the settings: only those Zulip had when it froze it. */
export function legacySettings<T extends Record<string, unknown>>(settings: T): T {
  const out: Record<string, unknown> = { ...settings };
  for (const name of Object.keys(USER_SETTING_LEVELS)) delete out[name];
  return out as T;
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
export function realmUserSettingsDefaults(realmSettingsJson = '{}', featureLevel = Infinity): Record<string, unknown> {
  const { timezone: _perUser, ...defaults } = USER_SETTING_DEFAULTS;
  const all = { ...defaults, ...storedRealmUserDefaults(realmSettingsJson), emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS };
  return settingsAtLevel(all, featureLevel);
}

/** Only what the organization changed: a new user's own settings start as these. */
export function storedRealmUserDefaults(realmSettingsJson: string): Record<string, unknown> {
  try {
    const stored = (JSON.parse(realmSettingsJson) as { user_settings_defaults?: Record<string, unknown> }).user_settings_defaults;
    return stored && typeof stored === 'object' ? stored : {};
  } catch {
    return {};
  }
}
