/**
 * Default user settings: what a new member starts with (PATCH /realm/user_settings_defaults),
 * each change saved as it is made, as Zulip's page does. Every setting register's
 * realm_user_settings_defaults has is shown; the `realm_user_settings_defaults` event keeps
 * them current.
 */
import { patch } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { Notice, useRunner } from './common';

type Opt = Array<[string | number, string]>;

/** Zulip's wording (web/src/settings_config.ts), and the choices of the settings that have them. */
const LABELS = (): Record<string, string> => ({
  default_language: t('Language'),
  color_scheme: t('Theme'),
  twenty_four_hour_time: t('Use 24-hour time'),
  dense_mode: t('Dense mode'),
  fluid_layout_width: t('Use full width on wide screens'),
  high_contrast_mode: t('High contrast mode'),
  left_side_userlist: t('Show user list on left sidebar in narrow windows'),
  starred_message_counts: t('Show counts for starred messages'),
  translate_emoticons: t('Convert emoticons before sending (:) becomes 😃)'),
  display_emoji_reaction_users: t('Display names of reacting users when few users have reacted to a message'),
  emojiset: t('Emoji theme'),
  demote_inactive_streams: t('Demote inactive streams'),
  default_view: t('Default view'),
  web_home_view: t('Home view'),
  escape_navigates_to_default_view: t('Escape key navigates to default view'),
  web_escape_navigates_to_home_view: t('Escape key navigates to home view'),
  enter_sends: t('Enter sends the message'),
  enable_drafts_synchronization: t('Synchronize drafts'),
  user_list_style: t('User list style'),
  web_mark_read_on_scroll_policy: t('Automatically mark messages as read'),
  enable_stream_desktop_notifications: t('Stream messages: desktop notifications'),
  enable_stream_audible_notifications: t('Stream messages: audible desktop notifications'),
  enable_stream_push_notifications: t('Stream messages: mobile notifications'),
  enable_stream_email_notifications: t('Stream messages: email notifications'),
  enable_desktop_notifications: t('Direct messages and mentions: desktop notifications'),
  enable_sounds: t('Direct messages and mentions: audible desktop notifications'),
  enable_offline_push_notifications: t('Direct messages and mentions: mobile notifications'),
  enable_offline_email_notifications: t('Direct messages and mentions: email notifications'),
  enable_online_push_notifications: t('Send mobile notifications even if the user is online'),
  wildcard_mentions_notify: t('Notify for @all/@everyone mentions'),
  pm_content_in_desktop_notifications: t('Include content of direct messages in desktop notifications'),
  message_content_in_email_notifications: t('Include message content in message notification emails'),
  realm_name_in_notifications: t('Include organization name in subject of message notification emails'),
  realm_name_in_email_notifications_policy: t('Include organization name in subject of message notification emails'),
  notification_sound: t('Notification sound'),
  desktop_icon_count_display: t('Unread count badge'),
  email_notifications_batching_period_seconds: t('Delay before sending message notification emails (seconds)'),
  enable_digest_emails: t('Send digest emails when the user is away'),
  enable_login_emails: t('Send email notifications for new logins to the account'),
  enable_marketing_emails: t('Send the low-traffic newsletter'),
  presence_enabled: t('Display availability to other users'),
  send_private_typing_notifications: t('Let recipients see when the user is typing direct messages'),
  send_stream_typing_notifications: t('Let recipients see when the user is typing stream messages'),
  send_read_receipts: t('Let others see when the user has read messages'),
  email_address_visibility: t('Who can access the user\'s email address'),
});

const CHOICES = (emojisets: Opt, sounds: Opt): Record<string, Opt> => ({
  color_scheme: [[1, t('Automatic')], [2, t('Dark theme')], [3, t('Light theme')]],
  demote_inactive_streams: [[1, t('Automatic')], [2, t('Always')], [3, t('Never')]],
  default_view: [['recent_topics', t('Recent conversations')], ['inbox', t('Inbox')], ['all_messages', t('All messages')]],
  web_home_view: [['recent_topics', t('Recent conversations')], ['inbox', t('Inbox')], ['all_messages', t('All messages')]],
  user_list_style: [[1, t('Compact')], [2, t('With status')], [3, t('With avatar and status')]],
  web_mark_read_on_scroll_policy: [[1, t('Always')], [2, t('Only in conversation views')], [3, t('Never')]],
  desktop_icon_count_display: [[1, t('All unread messages')], [2, t('Direct messages and mentions')], [3, t('None')]],
  realm_name_in_email_notifications_policy: [[1, t('Automatic')], [2, t('Always')], [3, t('Never')]],
  email_address_visibility: [[1, t('Admins, moderators, members and guests')], [5, t('Admins and moderators')], [3, t('Admins only')], [4, t('Nobody')]],
  emojiset: emojisets,
  notification_sound: sounds,
});

const NOTIFICATIONS = /notif|sound|email|push|presence|typing|read_receipts|desktop/;

export default function UserDefaults() {
  const s = useStore().state!;
  const defaults = s.reg.realm_user_settings_defaults ?? {};
  const [note, run] = useRunner();
  const emojisets = ((defaults.emojiset_choices ?? []) as Array<{ key: string; text: string }>).map((e): [string, string] => [e.key, e.text]);
  const sounds = ((defaults.available_notification_sounds ?? []) as string[]).map((x): [string, string] => [x, x]);
  const choices = CHOICES(emojisets, [['none', t('None')], ...sounds.filter(([x]) => x !== 'none')]);
  const labels = LABELS();
  const names = Object.keys(defaults).filter((k) => ['boolean', 'number', 'string'].includes(typeof defaults[k]) && k !== 'timezone');
  const save = (name: string, value: unknown) => void run(() => patch('/realm/user_settings_defaults', { [name]: value }), t('Saved'));
  const control = (name: string) => {
    const v = defaults[name];
    const label = labels[name] ?? name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
    const id = `ud-${name}`;
    if (typeof v === 'boolean') return <label class="admin-check" key={name}><input id={id} type="checkbox" checked={v} onChange={(e) => save(name, e.currentTarget.checked)} /> {label}</label>;
    const opts = choices[name];
    if (opts && opts.length > 0) {
      const list = opts.some(([o]) => String(o) === String(v)) ? opts : [...opts, [String(v), String(v)] as [string, string]];
      return (
        <div class="admin-field" key={name}><label for={id}>{label}</label>
          <select id={id} value={String(v)} onChange={(e) => { const x = e.currentTarget.value; save(name, typeof v === 'number' ? Number(x) : x); }}>
            {list.map(([o, l]) => <option key={String(o)} value={String(o)}>{l}</option>)}
          </select>
        </div>
      );
    }
    return (
      <div class="admin-field" key={name}><label for={id}>{label}</label>
        {typeof v === 'number'
          ? <input id={id} type="number" value={String(v)} onChange={(e) => save(name, Number(e.currentTarget.value))} />
          : <input id={id} value={String(v)} onChange={(e) => save(name, e.currentTarget.value)} />}
      </div>
    );
  };
  const display = names.filter((n) => !NOTIFICATIONS.test(n));
  const notify = names.filter((n) => NOTIFICATIONS.test(n));
  return (
    <div class="admin-sections">
      <p class="admin-hint">{t('Configure the default personal preference settings for new users joining your organization.')}</p>
      <Notice note={note} />
      <section class="admin-section" aria-labelledby="ud-display-h"><h3 id="ud-display-h">{t('Preferences')}</h3>{display.map(control)}</section>
      <section class="admin-section" aria-labelledby="ud-notify-h"><h3 id="ud-notify-h">{t('Notifications')}</h3>{notify.map(control)}</section>
    </div>
  );
}
