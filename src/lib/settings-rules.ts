import { AVAILABLE_NOTIFICATION_SOUNDS, DESKTOP_ICON_RENUMBER_LEVEL, EMOJISET_CHOICES, USER_SETTING_DEFAULTS, canonicalSetting } from './user-settings.js';
import { LANGUAGE_NAMES } from './languages.js';
import { isTimezone } from './timezones.js';

/** A setting's name today, as stored. */
export type CanonicalSettingName = keyof typeof USER_SETTING_DEFAULTS;
/** Every name PATCH takes: today's, and the names earlier levels gave renamed settings (RENAMED_SETTINGS). */
export type SettingName = CanonicalSettingName | 'default_view' | 'escape_navigates_to_default_view' | 'realm_name_in_notifications';

/** How PATCH /settings reads and checks each personal setting (Zulip's REQ validators for json_change_settings). */
export type SettingRule =
  | { kind: 'bool' }
  | { kind: 'int' }
  | { kind: 'intIn'; values: readonly number[] }
  | { kind: 'strIn'; values: readonly string[] }
  | { kind: 'str' };

const bool = { kind: 'bool' } as const;

export const SETTING_RULES: Record<SettingName, SettingRule> = {
  twenty_four_hour_time: bool,
  dense_mode: bool,
  starred_message_counts: bool,
  fluid_layout_width: bool,
  high_contrast_mode: bool,
  color_scheme: { kind: 'intIn', values: [1, 2, 3] },
  translate_emoticons: bool,
  default_language: { kind: 'str' },
  // Zulip's web_home_view choices; "inbox" is Zulip 8's.
  web_home_view: { kind: 'strIn', values: ['recent_topics', 'inbox', 'all_messages'] },
  web_escape_navigates_to_home_view: bool,
  default_view: { kind: 'strIn', values: ['recent_topics', 'inbox', 'all_messages'] },
  escape_navigates_to_default_view: bool,
  left_side_userlist: bool,
  emojiset: { kind: 'strIn', values: EMOJISET_CHOICES.map((e) => e.key) },
  demote_inactive_streams: { kind: 'intIn', values: [1, 2, 3] },
  timezone: { kind: 'str' },
  enter_sends: bool,
  enable_drafts_synchronization: bool,
  enable_stream_desktop_notifications: bool, enable_stream_email_notifications: bool,
  enable_stream_push_notifications: bool, enable_stream_audible_notifications: bool,
  notification_sound: { kind: 'str' },
  wildcard_mentions_notify: bool,
  enable_desktop_notifications: bool,
  pm_content_in_desktop_notifications: bool,
  enable_sounds: bool,
  enable_offline_email_notifications: bool,
  message_content_in_email_notifications: bool,
  enable_offline_push_notifications: bool,
  enable_online_push_notifications: bool,
  enable_digest_emails: bool, enable_marketing_emails: bool, enable_login_emails: bool,
  realm_name_in_email_notifications_policy: { kind: 'intIn', values: [1, 2, 3] },
  realm_name_in_notifications: bool,
  presence_enabled: bool,
  // 1–3 before level 227, 1–4 from it (settingValueError).
  desktop_icon_count_display: { kind: 'intIn', values: [1, 2, 3, 4] },
  email_notifications_batching_period_seconds: { kind: 'int' },
  send_private_typing_notifications: bool, send_stream_typing_notifications: bool, send_read_receipts: bool,
  display_emoji_reaction_users: bool,
  // Zulip's UserProfile.USER_LIST_STYLE_CHOICES: compact, with status, with avatar and status.
  user_list_style: { kind: 'intIn', values: [1, 2, 3] },
  web_mark_read_on_scroll_policy: { kind: 'intIn', values: [1, 2, 3] },
  enable_followed_topic_desktop_notifications: bool, enable_followed_topic_email_notifications: bool,
  enable_followed_topic_push_notifications: bool, enable_followed_topic_audible_notifications: bool,
  enable_followed_topic_wildcard_mentions_notify: bool,
  web_stream_unreads_count_display_policy: { kind: 'intIn', values: [1, 2, 3] },
  automatically_follow_topics_policy: { kind: 'intIn', values: [1, 2, 3, 4] },
  automatically_unmute_topics_in_muted_streams_policy: { kind: 'intIn', values: [1, 2, 3, 4] },
  automatically_follow_topics_where_mentioned: bool,
  web_font_size_px: { kind: 'int' },
  web_line_height_percent: { kind: 'int' },
  receives_typing_notifications: bool,
  web_navigate_to_sent_message: bool,
  hide_ai_features: bool,
  // Zulip's WebChannelView: 1 top topic, 2 channel feed (3 list of topics and 4 top unread topic came later).
  web_channel_default_view: { kind: 'intIn', values: [1, 2] },
  web_animate_image_previews: { kind: 'strIn', values: ['always', 'on_hover', 'never'] },
  email_address_visibility: { kind: 'intIn', values: [1, 2, 3, 4, 5] },
  allow_private_data_export: bool,
  web_suggest_update_timezone: bool,
};

/** Settings whose changes clients without user_settings_object hear as update_display_settings. */
export const DISPLAY_SETTINGS: ReadonlySet<string> = new Set([
  'twenty_four_hour_time', 'dense_mode', 'starred_message_counts', 'fluid_layout_width', 'high_contrast_mode', 'color_scheme',
  'translate_emoticons', 'default_language', 'default_view', 'escape_navigates_to_default_view', 'web_home_view', 'left_side_userlist', 'emojiset',
  'demote_inactive_streams', 'timezone', 'enter_sends',
]);

/** Settings whose changes clients without user_settings_object hear as update_global_notifications. */
export const NOTIFICATION_SETTINGS: ReadonlySet<string> = new Set([
  'enable_stream_desktop_notifications', 'enable_stream_email_notifications', 'enable_stream_push_notifications',
  'enable_stream_audible_notifications', 'notification_sound', 'wildcard_mentions_notify', 'enable_desktop_notifications',
  'pm_content_in_desktop_notifications', 'enable_sounds', 'enable_offline_email_notifications', 'message_content_in_email_notifications',
  'enable_offline_push_notifications', 'enable_online_push_notifications', 'enable_digest_emails', 'enable_marketing_emails',
  'enable_login_emails', 'realm_name_in_notifications', 'realm_name_in_email_notifications_policy', 'presence_enabled', 'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
]);

// Zulip's limit on the email batching period: a week.
const MAX_BATCHING_SECONDS = 7 * 24 * 60 * 60;

/**
 * The value-level checks Zulip makes after decoding (check_settings_values and the string
 * validators), with its messages; null when the value is acceptable.
 */
export function settingValueError(name: SettingName, value: unknown, featureLevel: number): string | null {
  const rule = SETTING_RULES[name];
  if (name === 'desktop_icon_count_display' && featureLevel < DESKTOP_ICON_RENUMBER_LEVEL && value === 4) return `Invalid ${name}`;
  // The inbox view came with the rename (level 219); clients of earlier levels cannot show it.
  if ((name === 'web_home_view' || name === 'default_view') && value === 'inbox' && featureLevel < 219) return `Invalid ${name}`;
  if (rule.kind === 'intIn' && !rule.values.includes(value as number)) return `Invalid ${name}`;
  if (rule.kind === 'strIn' && !rule.values.includes(value as string)) return `Invalid ${name}`;
  if (name === 'default_language' && !LANGUAGE_NAMES.has(value as string)) return 'Invalid default_language';
  if (name === 'timezone' && !isTimezone(value as string)) return 'Invalid timezone';
  if (name === 'notification_sound' && value !== 'none' && !AVAILABLE_NOTIFICATION_SOUNDS.includes(value as string)) {
    return `Invalid notification sound '${String(value)}'`;
  }
  if (name === 'email_notifications_batching_period_seconds' && ((value as number) <= 0 || (value as number) > MAX_BATCHING_SECONDS)) {
    return `Invalid email batching period: ${String(value)} seconds`;
  }
  return null;
}

/**
 * The passed settings under today's names and values (a client of an earlier level may name
 * a renamed setting by its old name, or send the old numbering); today's name wins over an old one.
 */
export function canonicalSettings(values: Partial<Record<SettingName, unknown>>, featureLevel: number): Partial<Record<CanonicalSettingName, unknown>> {
  const out: Record<string, unknown> = {};
  const entries = Object.entries(values).map(([n, v]) => [n, canonicalSetting(n, v, featureLevel)] as const);
  for (const [original, [name, value]] of entries) if (original !== name) out[name] = value;
  for (const [original, [name, value]] of entries) if (original === name) out[name] = value;
  return out as Partial<Record<CanonicalSettingName, unknown>>;
}
