/**
 * Personal settings, as Zulip's settings overlay groups them (a chunk of its own, loaded when
 * opened): profile and avatar, account and privacy (password, API key), preferences (language,
 * time zone, theme, emoji), notifications, alert words, muted users and muted topics. Every
 * setting saves through PATCH /settings at once and says "Saved"; the values shown are
 * register's `user_settings`, kept current by events, so another tab's change shows here too.
 * Only the settings the server reports are shown (their names vary with the feature level).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, csrfToken, del, patch, post } from '../api';
import { useStore } from '../hooks';
import { t } from '../i18n';
import { permission, requestPermission, userSettings } from '../notify';
import { COLOR_SCHEMES, switchLanguage } from '../settings-sync';
import { store } from '../store';
import { applyTheme } from '../theme';
import type { State } from '../types';
import { LANGUAGE_NAMES } from '../../../src/lib/languages';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES } from '../../../src/lib/user-settings';
import { Avatar } from './Avatar';
import './settings.css';

type Option = [value: string | number, label: string];
/** One setting's control: a checkbox, or a choice among options (labels in English, shown through t()). */
type Field = { name: string; label: string; options?: Option[] | ((s: State) => Option[]) };

const SECTIONS = [
  ['profile', 'Profile'],
  ['account', 'Account & privacy'],
  ['preferences', 'Preferences'],
  ['notifications', 'Notifications'],
  ['alert-words', 'Alert words'],
  ['muted-users', 'Muted users'],
  ['muted-topics', 'Muted topics'],
] as const;
type Section = (typeof SECTIONS)[number][0];

const HOME_VIEWS: Option[] = [['recent_topics', 'Recent conversations'], ['inbox', 'Inbox'], ['all_messages', 'All messages']];

const PRIVACY: Field[] = [
  { name: 'presence_enabled', label: 'Display my availability to other users' },
  { name: 'send_private_typing_notifications', label: "Let recipients see when I'm typing direct messages" },
  { name: 'send_stream_typing_notifications', label: "Let recipients see when I'm typing messages in streams" },
  { name: 'send_read_receipts', label: "Let others see when I've read messages" },
  { name: 'email_address_visibility', label: 'Who can access your email address', options: [[1, 'Admins, moderators, members and guests'], [2, 'Admins, moderators and members'], [5, 'Admins and moderators'], [3, 'Admins only'], [4, 'Nobody']] },
  { name: 'allow_private_data_export', label: 'Let administrators export my private data' },
];

const PREFERENCES: Field[] = [
  { name: 'default_view', label: 'Home view', options: HOME_VIEWS },
  { name: 'web_home_view', label: 'Home view', options: HOME_VIEWS },
  { name: 'escape_navigates_to_default_view', label: 'Escape key navigates to home view' },
  { name: 'web_escape_navigates_to_home_view', label: 'Escape key navigates to home view' },
  { name: 'twenty_four_hour_time', label: 'Time format', options: [[0, '12-hour clock (5:00 PM)'], [1, '24-hour clock (17:00)']] },
  { name: 'emojiset', label: 'Emoji theme', options: EMOJISET_CHOICES.map((e) => [e.key, e.text]) },
  { name: 'translate_emoticons', label: 'Convert emoticons before sending (:) becomes 😃)' },
  { name: 'display_emoji_reaction_users', label: 'Display names of reacting users when few users have reacted to a message' },
  { name: 'dense_mode', label: 'Compact mode' },
  { name: 'fluid_layout_width', label: 'Use full width on wide screens' },
  { name: 'high_contrast_mode', label: 'High contrast mode' },
  { name: 'starred_message_counts', label: 'Show counts for starred messages' },
  { name: 'left_side_userlist', label: 'Show user list on left sidebar in narrow windows' },
  { name: 'receives_typing_notifications', label: 'Show when other users are typing' },
  { name: 'enter_sends', label: 'Press Enter to send' },
  { name: 'enable_drafts_synchronization', label: 'Synchronize drafts' },
  { name: 'demote_inactive_streams', label: 'Demote inactive streams', options: [[1, 'Automatic'], [2, 'Always'], [3, 'Never']] },
  { name: 'user_list_style', label: 'User list style', options: [[1, 'Compact'], [2, 'Show status text'], [3, 'Show avatar']] },
  { name: 'web_mark_read_on_scroll_policy', label: 'Automatically mark messages as read', options: [[1, 'Always'], [2, 'Only in conversation views'], [3, 'Never']] },
  { name: 'web_stream_unreads_count_display_policy', label: 'Show unread counts for', options: [[1, 'All streams'], [2, 'Unmuted streams and topics'], [3, 'No streams']] },
];

const BATCHING: Option[] = [[120, '2 minutes'], [300, '5 minutes'], [600, '10 minutes'], [1800, '30 minutes'], [3600, '1 hour'], [21600, '6 hours'], [86400, '1 day'], [604800, '1 week']];

const NOTIFICATIONS: Field[] = [
  { name: 'enable_desktop_notifications', label: 'Desktop notifications for direct messages, mentions and alert words' },
  { name: 'enable_sounds', label: 'Sounds for direct messages, mentions and alert words' },
  { name: 'pm_content_in_desktop_notifications', label: 'Include content of direct messages in desktop notifications' },
  { name: 'wildcard_mentions_notify', label: 'Notify for @all and @everyone mentions' },
  { name: 'enable_stream_desktop_notifications', label: 'Desktop notifications for every message in my streams' },
  { name: 'enable_stream_audible_notifications', label: 'Sounds for every message in my streams' },
  { name: 'enable_stream_email_notifications', label: 'Email notifications for every message in my streams' },
  { name: 'enable_stream_push_notifications', label: 'Mobile notifications for every message in my streams' },
  { name: 'enable_followed_topic_desktop_notifications', label: 'Desktop notifications for followed topics' },
  { name: 'enable_followed_topic_audible_notifications', label: 'Sounds for followed topics' },
  { name: 'enable_followed_topic_email_notifications', label: 'Email notifications for followed topics' },
  { name: 'enable_followed_topic_push_notifications', label: 'Mobile notifications for followed topics' },
  { name: 'enable_followed_topic_wildcard_mentions_notify', label: 'Notify for @all and @everyone mentions in followed topics' },
  { name: 'notification_sound', label: 'Notification sound', options: [['none', 'None'], ...AVAILABLE_NOTIFICATION_SOUNDS.map((n): Option => [n, n[0]!.toUpperCase() + n.slice(1)])] },
  {
    name: 'desktop_icon_count_display', label: 'Unread count in the browser tab and desktop app',
    options: (s) => ((s.reg.zulip_feature_level ?? 0) >= 227
      ? [[1, 'All unread messages'], [2, 'Direct messages, mentions and followed topics'], [3, 'Direct messages and mentions'], [4, 'None']]
      : [[1, 'All unread messages'], [2, 'Direct messages and mentions'], [3, 'None']]),
  },
  { name: 'enable_offline_email_notifications', label: 'Email notifications for direct messages, mentions and alert words while away' },
  { name: 'enable_offline_push_notifications', label: 'Mobile notifications while away' },
  { name: 'enable_online_push_notifications', label: 'Mobile notifications even when online' },
  { name: 'message_content_in_email_notifications', label: 'Include message content in message notification emails' },
  { name: 'realm_name_in_notifications', label: 'Include organization name in subject of message notification emails' },
  { name: 'realm_name_in_email_notifications_policy', label: 'Include organization name in subject of message notification emails', options: [[1, 'Automatic'], [2, 'Always'], [3, 'Never']] },
  { name: 'email_notifications_batching_period_seconds', label: 'Delay before sending message notification emails', options: BATCHING },
  { name: 'enable_digest_emails', label: 'Send digest emails when I am away' },
  { name: 'enable_login_emails', label: 'Send an email for every new sign-in to my account' },
  { name: 'enable_marketing_emails', label: 'Send me occasional news by email' },
];

const errorText = (e: unknown) => (e instanceof ApiError ? e.message : t('Could not reach the server.'));

/** "Saved" (or the server's refusal) beside a section's heading, as Zulip's settings say it. */
function useSaver() {
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const run = async (f: () => Promise<unknown>, ok = t('Saved')): Promise<boolean> => {
    setNote({ text: t('Saving…'), error: false });
    try {
      await f();
      setNote({ text: ok, error: false });
      return true;
    } catch (e) {
      setNote({ text: errorText(e), error: true });
      return false;
    }
  };
  const view = <p class={`settings-note${note?.error ? ' error' : ''}`} role="status">{note?.text ?? ''}</p>;
  return { run, view };
}

/** PATCH /settings with one setting: shown at once (undone if refused), confirmed by the user_settings event. */
async function saveSetting(name: string, value: unknown): Promise<void> {
  const us = userSettings(store.state!);
  const before = us[name];
  us[name] = value;
  store.changed();
  try {
    await patch('/settings', { [name]: value });
  } catch (e) {
    us[name] = before;
    store.changed();
    throw e;
  }
}

function Fields({ s, fields, run }: { s: State; fields: Field[]; run: (f: () => Promise<unknown>) => Promise<boolean> }) {
  const us = userSettings(s);
  return (
    <div class="settings-fields">
      {fields.filter((f) => f.name in us).map((f) => {
        const id = `setting-${f.name}`;
        const value = us[f.name];
        if (!f.options) {
          return (
            <label key={f.name} class="settings-check" for={id}>
              <input id={id} type="checkbox" checked={value === true} onChange={(e) => void run(() => saveSetting(f.name, e.currentTarget.checked))} />
              <span>{t(f.label)}</span>
            </label>
          );
        }
        const options = typeof f.options === 'function' ? f.options(s) : f.options;
        const isBool = typeof value === 'boolean';
        const current = isBool ? Number(value) : value;
        const all = options.some(([v]) => v === current) ? options : [...options, [current as string, String(current)] as Option];
        return (
          <label key={f.name} class="settings-select" for={id}>
            <span>{t(f.label)}</span>
            <select id={id} value={String(current)} onChange={(e) => {
              const raw = e.currentTarget.value;
              const picked = all.find(([v]) => String(v) === raw)![0];
              void run(() => saveSetting(f.name, isBool ? picked === 1 : picked));
            }}>
              {all.map(([v, label]) => <option key={v} value={String(v)}>{t(label)}</option>)}
            </select>
          </label>
        );
      })}
    </div>
  );
}

// ---------------------------------------------------------------- sections

type ProfileField = { id: number; name: string; type: number; hint?: string; field_data?: string };

function Profile({ s }: { s: State }) {
  const me = s.usersById.get(s.me)!;
  const { run, view } = useSaver();
  const [name, setName] = useState(me.full_name);
  // Every kind but the person picker (type 6), which needs a people chooser of its own.
  const fields = ((s.reg.custom_profile_fields ?? []) as ProfileField[]).filter((f) => f.type !== 6);
  const mine = ((me as { profile_data?: Record<string, { value: string }> }).profile_data ?? {});
  const [values, setValues] = useState<Record<number, string>>(() => Object.fromEntries(fields.map((f) => [f.id, mine[String(f.id)]?.value ?? ''])));
  const file = useRef<HTMLInputElement>(null);
  const reg = s.reg as { realm_name_changes_disabled?: boolean; realm_avatar_changes_disabled?: boolean; is_admin?: boolean };
  const nameLocked = reg.realm_name_changes_disabled === true && !reg.is_admin;
  const avatarLocked = reg.realm_avatar_changes_disabled === true && !reg.is_admin;

  const upload = (f: File) => run(async () => {
    const body = new FormData();
    body.append('file', f, f.name);
    const res = await fetch('/json/users/me/avatar', { method: 'POST', body, credentials: 'same-origin', headers: { 'X-CSRFToken': csrfToken(), Accept: 'application/json' } });
    const json = (await res.json().catch(() => ({}))) as { result?: string; msg?: string; code?: string };
    if (json.result !== 'success') throw new ApiError(res.status, json.code ?? 'BAD_REQUEST', json.msg ?? `HTTP ${res.status}`, json);
  }, t('Avatar uploaded.'));

  const saveFields = () => run(async () => {
    const set = fields.filter((f) => values[f.id]!.trim() !== '').map((f) => ({ id: f.id, value: values[f.id]!.trim() }));
    const cleared = fields.filter((f) => values[f.id]!.trim() === '' && mine[String(f.id)]).map((f) => f.id);
    if (set.length) await patch('/users/me/profile_data', { data: set });
    if (cleared.length) await del('/users/me/profile_data', { data: cleared });
  });

  return (
    <>
      {view}
      <form class="settings-form" onSubmit={(e) => { e.preventDefault(); void run(() => patch('/settings', { full_name: name.trim() })); }}>
        <label class="stack" for="settings-full-name">{t('Full name')}</label>
        <div class="row">
          <input id="settings-full-name" value={name} disabled={nameLocked} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" disabled={nameLocked}>{t('Save name')}</button>
        </div>
      </form>
      <div class="settings-avatar">
        <Avatar url={me.avatar_url} name={me.full_name} userId={me.user_id} size="large" />
        <div class="row">
          <input ref={file} id="settings-avatar-file" class="visually-hidden" type="file" tabIndex={-1} aria-label={t('Avatar image')} accept="image/*" disabled={avatarLocked}
            onChange={(e) => { const f = e.currentTarget.files?.[0]; if (f) void upload(f); e.currentTarget.value = ''; }} />
          <button type="button" disabled={avatarLocked} onClick={() => file.current?.click()}>{t('Upload new avatar')}</button>
          <button type="button" class="danger" disabled={avatarLocked} onClick={() => void run(() => del('/users/me/avatar'), t('Avatar deleted.'))}>{t('Delete avatar')}</button>
        </div>
      </div>
      {fields.length > 0 && (
        <form class="settings-form" onSubmit={(e) => { e.preventDefault(); void saveFields(); }}>
          <h4>{t('Profile fields')}</h4>
          {fields.map((f) => {
            const id = `profile-field-${f.id}`;
            const choices = f.type === 3 && f.field_data ? Object.entries(JSON.parse(f.field_data) as Record<string, { text: string; order: string }>) : null;
            const set = (v: string) => setValues((old) => ({ ...old, [f.id]: v }));
            return (
              <label key={f.id} class="stack" for={id}>
                {f.name}
                {choices
                  ? <select id={id} value={values[f.id]} onChange={(e) => set(e.currentTarget.value)}>
                      <option value="">{t('(none)')}</option>
                      {choices.sort((a, b) => Number(a[1].order) - Number(b[1].order)).map(([k, c]) => <option key={k} value={k}>{c.text}</option>)}
                    </select>
                  : f.type === 2
                    ? <textarea id={id} value={values[f.id]} placeholder={f.hint} onInput={(e) => set(e.currentTarget.value)} />
                    : <input id={id} type={(f.type === 4 ? 'date' : f.type === 5 ? 'url' : 'text') as 'text'} value={values[f.id]} placeholder={f.hint} onInput={(e) => set(e.currentTarget.value)} />}
              </label>
            );
          })}
          <button type="submit">{t('Save profile')}</button>
        </form>
      )}
    </>
  );
}

function Account({ s }: { s: State }) {
  const me = s.usersById.get(s.me)!;
  const { run, view } = useSaver();
  const [oldPw, setOldPw] = useState('');
  const [newPw, setNewPw] = useState('');
  const [keyPw, setKeyPw] = useState('');
  const [apiKey, setApiKey] = useState<string | null>(null);
  return (
    <>
      {view}
      <p><span class="settings-label">{t('Email')}</span> {(me as { delivery_email?: string }).delivery_email ?? me.email}</p>
      <form class="settings-form" onSubmit={(e) => { e.preventDefault(); void run(() => patch('/settings', { old_password: oldPw, new_password: newPw }).then(() => { setOldPw(''); setNewPw(''); }), t('Password changed.')); }}>
        <h4>{t('Change password')}</h4>
        <label class="stack">{t('Current password')} <input type="password" autocomplete="current-password" value={oldPw} onInput={(e) => setOldPw(e.currentTarget.value)} /></label>
        <label class="stack">{t('New password')} <input type="password" autocomplete="new-password" value={newPw} onInput={(e) => setNewPw(e.currentTarget.value)} /></label>
        <button type="submit">{t('Change password')}</button>
      </form>
      <form class="settings-form" onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          const r = await post<{ api_key: string }>('/fetch_api_key', { password: keyPw });
          setApiKey(r.api_key);
          setKeyPw('');
        }, t('Here is your API key.'));
      }}>
        <h4>{t('API key')}</h4>
        {apiKey === null
          ? <>
              <p class="settings-hint">{t('Your API key lets programs act as you. Enter your password to see it.')}</p>
              <label class="stack">{t('Your password')} <input type="password" autocomplete="current-password" value={keyPw} onInput={(e) => setKeyPw(e.currentTarget.value)} /></label>
              <button type="submit">{t('Get API key')}</button>
            </>
          : <label class="stack">{t('Your API key')} <input class="api-key" readOnly value={apiKey} onFocus={(e) => e.currentTarget.select()} /></label>}
      </form>
      <h4>{t('Privacy')}</h4>
      <Fields s={s} fields={PRIVACY} run={run} />
    </>
  );
}

function Preferences({ s }: { s: State }) {
  const { run, view } = useSaver();
  const us = userSettings(s);
  const zones = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  const tz = String(us.timezone ?? '');
  const language = String(us.default_language ?? 'en');
  const scheme = Number(us.color_scheme ?? 1);
  return (
    <>
      {view}
      <div class="settings-fields">
        <label class="settings-select" for="setting-default_language">
          <span>{t('Language')}</span>
          <select id="setting-default_language" value={language} onChange={(e) => {
            const v = e.currentTarget.value;
            void run(async () => {
              await saveSetting('default_language', v);
              await switchLanguage(v);
            });
          }}>
            {[...LANGUAGE_NAMES].map(([code, name]) => <option key={code} value={code}>{name}</option>)}
          </select>
        </label>
        <label class="settings-select" for="setting-timezone">
          <span>{t('Time zone')}</span>
          <select id="setting-timezone" value={tz} onChange={(e) => { const v = e.currentTarget.value; void run(() => saveSetting('timezone', v)); }}>
            <option value="">{t('Not set')}</option>
            {(zones.includes(tz) || tz === '' ? zones : [tz, ...zones]).map((z) => <option key={z} value={z}>{z}</option>)}
          </select>
        </label>
        {'color_scheme' in us && (
          <fieldset class="settings-radios">
            <legend>{t('Theme')}</legend>
            {([[1, 'Automatic (follows system settings)'], [3, 'Light'], [2, 'Dark']] as Array<[number, string]>).map(([v, label]) => (
              <label key={v}>
                <input type="radio" name="color_scheme" checked={scheme === v} onChange={() => {
                  applyTheme(COLOR_SCHEMES[v]);
                  void run(() => saveSetting('color_scheme', v));
                }} /> {t(label)}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <Fields s={s} fields={PREFERENCES} run={run} />
    </>
  );
}

function Notifications({ s }: { s: State }) {
  const { run, view } = useSaver();
  const [perm, setPerm] = useState(permission());
  const said: Record<string, string> = {
    granted: t('Desktop notifications are allowed in this browser.'),
    denied: t('This browser blocks notifications from Parley; allow them in its site settings.'),
    default: t('This browser has not been asked yet.'),
    unsupported: t('This browser cannot show desktop notifications.'),
  };
  return (
    <>
      {view}
      <div class="settings-permission">
        <p>{said[perm]}</p>
        {perm === 'default' && <button type="button" onClick={() => void requestPermission().then(setPerm)}>{t('Enable desktop notifications')}</button>}
      </div>
      <Fields s={s} fields={NOTIFICATIONS} run={run} />
    </>
  );
}

function AlertWords({ s }: { s: State }) {
  const { run, view } = useSaver();
  const [word, setWord] = useState('');
  const words = s.reg.alert_words ?? [];
  return (
    <>
      {view}
      <p class="settings-hint">{t('Alert words notify you as mentions do when a message contains them.')}</p>
      <form class="settings-form" onSubmit={(e) => { e.preventDefault(); const w = word.trim(); if (w) void run(() => post('/users/me/alert_words', { alert_words: [w] }).then(() => setWord('')), t('Alert word added.')); }}>
        <label class="stack" for="new-alert-word">{t('New alert word')}</label>
        <div class="row">
          <input id="new-alert-word" value={word} maxLength={100} onInput={(e) => setWord(e.currentTarget.value)} />
          <button type="submit">{t('Add alert word')}</button>
        </div>
      </form>
      {words.length === 0
        ? <p>{t('No alert words yet.')}</p>
        : <ul class="settings-list">
            {[...words].sort().map((w) => (
              <li key={w}><span>{w}</span><button type="button" onClick={() => void run(() => del('/users/me/alert_words', { alert_words: [w] }), t('Alert word removed.'))} aria-label={t('Remove alert word {word}', { word: w })}>{t('Remove')}</button></li>
            ))}
          </ul>}
    </>
  );
}

function MutedUsers({ s }: { s: State }) {
  const { run, view } = useSaver();
  const muted = s.reg.muted_users ?? [];
  const mutedIds = new Set(muted.map((m) => m.id));
  const candidates = (s.reg.realm_users ?? []).filter((u) => u.user_id !== s.me && !u.is_bot && !mutedIds.has(u.user_id)).sort((a, b) => a.full_name.localeCompare(b.full_name));
  const [pick, setPick] = useState('');
  return (
    <>
      {view}
      <p class="settings-hint">{t("You won't see messages, notifications or typing from people you mute.")}</p>
      <form class="settings-form" onSubmit={(e) => { e.preventDefault(); if (pick) void run(() => post(`/users/me/muted_users/${pick}`).then(() => setPick('')), t('User muted.')); }}>
        <label class="stack" for="mute-user">{t('Mute a user')}</label>
        <div class="row">
          <select id="mute-user" value={pick} onChange={(e) => setPick(e.currentTarget.value)}>
            <option value="">{t('Choose someone…')}</option>
            {candidates.map((u) => <option key={u.user_id} value={String(u.user_id)}>{u.full_name}</option>)}
          </select>
          <button type="submit">{t('Mute')}</button>
        </div>
      </form>
      {muted.length === 0
        ? <p>{t('You have not muted anyone.')}</p>
        : <ul class="settings-list">
            {muted.map((m) => {
              const name = s.usersById.get(m.id)?.full_name ?? t('Unknown user');
              return <li key={m.id}><span>{name}</span><button type="button" aria-label={t('Unmute {name}', { name })} onClick={() => void run(() => del(`/users/me/muted_users/${m.id}`), t('User unmuted.'))}>{t('Unmute')}</button></li>;
            })}
          </ul>}
    </>
  );
}

function MutedTopics({ s }: { s: State }) {
  const { run, view } = useSaver();
  const byTopics = s.reg.user_topics;
  const rows: Array<{ streamId: number; stream: string; topic: string }> = byTopics
    ? byTopics.filter((x) => x.visibility_policy === 1).map((x) => ({ streamId: x.stream_id, stream: s.streamsById.get(x.stream_id)?.name ?? String(x.stream_id), topic: x.topic_name }))
    : (s.reg.muted_topics ?? []).map((m) => ({ streamId: [...s.streamsById.values()].find((x) => x.name === m[0])?.stream_id ?? 0, stream: m[0], topic: m[1] }));
  const unmute = (r: (typeof rows)[number]) => run(() => (byTopics
    ? post('/user_topics', { stream_id: r.streamId, topic: r.topic, visibility_policy: 0 })
    : patch('/users/me/subscriptions/muted_topics', { stream_id: r.streamId, topic: r.topic, op: 'remove' })), t('Topic unmuted.'));
  return (
    <>
      {view}
      {rows.length === 0
        ? <p>{t('You have not muted any topics.')}</p>
        : <ul class="settings-list">
            {rows.map((r) => (
              <li key={`${r.streamId}:${r.topic}`}>
                <span>#{r.stream} › {r.topic}</span>
                <button type="button" aria-label={t('Unmute {topic} in {stream}', { topic: r.topic, stream: r.stream })} onClick={() => void unmute(r)}>{t('Unmute')}</button>
              </li>
            ))}
          </ul>}
    </>
  );
}

const VIEWS: Record<Section, (p: { s: State }) => preact.JSX.Element> = {
  profile: Profile, account: Account, preferences: Preferences, notifications: Notifications,
  'alert-words': AlertWords, 'muted-users': MutedUsers, 'muted-topics': MutedTopics,
};

/** Tab and Shift+Tab stay inside the panel while it is open. */
function trapTab(e: KeyboardEvent): void {
  if (e.key !== 'Tab') return;
  const box = (e.currentTarget as HTMLElement).querySelector('.settings-panel')!;
  const all = [...box.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]')].filter((el) => !el.hasAttribute('disabled') && el.tabIndex >= 0 && el.offsetParent !== null);
  const [first, last] = [all[0], all[all.length - 1]];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last?.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first?.focus();
  }
}

export default function SettingsPanel({ close, section: first = 'profile' }: { close: () => void; section?: Section }) {
  const s = useStore().state!;
  const [section, setSection] = useState<Section>(first);
  const box = useRef<HTMLDivElement>(null);
  // The focus moves in, and back to what opened the panel when it closes.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    box.current?.querySelector<HTMLElement>('.settings-nav button[aria-current="page"]')?.focus();
    // On a phone the opener sits in the top bar's menu, closed by now: the menu's button then.
    return () => (opener && opener.offsetParent !== null ? opener : document.querySelector<HTMLElement>('.panel-toggle.menu'))?.focus?.();
  }, []);
  const View = VIEWS[section];
  const title = SECTIONS.find(([k]) => k === section)![1];
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="settings-title" onClick={(e) => { if (e.target === e.currentTarget) close(); }} onKeyDown={trapTab}>
      <div class="modal-box settings-panel" ref={box}>
        <header class="settings-head">
          <h2 id="settings-title">{t('Settings')}</h2>
          <button type="button" class="settings-close" onClick={close} aria-label={t('Close settings')}>×</button>
        </header>
        <div class="settings-body">
          <nav class="settings-nav" aria-label={t('Settings sections')}>
            {SECTIONS.map(([k, label]) => (
              <button key={k} type="button" aria-current={k === section ? 'page' : undefined} onClick={() => setSection(k)}>{t(label)}</button>
            ))}
          </nav>
          <section class="settings-section" aria-labelledby="settings-section-title">
            <h3 id="settings-section-title">{t(title)}</h3>
            <View key={section} s={s} />
          </section>
        </div>
      </div>
    </div>
  );
}
