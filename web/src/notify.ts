/**
 * What tells the user about messages while they look elsewhere, as Zulip's web app does
 * (message_notifications.ts, desktop_notifications.ts, narrow_title.ts):
 * - the unread count in the title, "(N) …", counted as `desktop_icon_count_display` says, and
 *   the same count to Zulip's desktop app (`electron_bridge.send_event('total_unread_count', n)`);
 * - desktop notifications through the browser's Notification API (or the desktop app's
 *   `electron_bridge.new_notification`) for direct messages, mentions, alert words, followed
 *   topics and streams with desktop notifications on, following the user's settings, muted
 *   users and topics; permission is only ever asked from a button the user presses;
 * - a sound (a short generated tone) following `enable_sounds` and `notification_sound`.
 */
import { t } from './i18n';
import { onEvents } from './live';
import { pmPartners } from './narrow';
import { store } from './store';
import type { ClientEvent, Message, State } from './types';
import { mentionCount, privateCount } from './unread';
import { showNarrow } from './view';

type NotificationData = { close: () => void };
type ElectronBridge = {
  send_event: (name: string, ...args: unknown[]) => boolean;
  new_notification?: (title: string, options: NotificationOptions, dispatch: (type: string, init: EventInit) => boolean) => NotificationData;
};
declare global {
  interface Window {
    electron_bridge?: ElectronBridge;
  }
}

const bridge = (): ElectronBridge | undefined => window.electron_bridge;

/** The user's settings (register's user_settings, or its top-level copies before that object). */
export function userSettings(s: State): Record<string, unknown> {
  return (s.reg.user_settings as Record<string, unknown> | undefined) ?? (s.reg as Record<string, unknown>);
}

// ---------------------------------------------------------------- permission

export type Permission = NotificationPermission | 'unsupported';

export function permission(): Permission {
  if (bridge()?.new_notification) return 'granted';
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Asked only from a button (browsers ignore, or penalize, a request made on load). */
export async function requestPermission(): Promise<Permission> {
  if (permission() === 'unsupported') return 'unsupported';
  if (permission() !== 'default') return permission();
  const answer = await Notification.requestPermission();
  store.changed();
  return answer;
}

// ---------------------------------------------------------------- the count in the title

const subsOf = (s: State) => (s.reg.subscriptions ?? []) as Array<{ stream_id: number; is_muted?: boolean; in_home_view?: boolean; desktop_notifications?: boolean | null; audible_notifications?: boolean | null; wildcard_mentions_notify?: boolean | null }>;
const streamMuted = (sub: { is_muted?: boolean; in_home_view?: boolean }) => sub.is_muted ?? sub.in_home_view === false;

/** Zulip's calculate_notifiable_count: all unread (unmuted), direct messages and mentions, or nothing. */
export function notifiableCount(s: State): number {
  const setting = Number(userSettings(s).desktop_icon_count_display ?? 1);
  const renumbered = (s.reg.zulip_feature_level ?? 0) >= 227;
  const none = renumbered ? setting === 4 : setting === 3;
  if (none) return 0;
  if (setting !== 1) return privateCount(s) + mentionCount(s);
  // One pass over the unread topics (10,000 unread in hundreds of streams), not one per stream.
  // A muted stream's unmuted or followed topics count; a muted topic never does.
  const muted = new Map(subsOf(s).map((sub) => [sub.stream_id, streamMuted(sub)]));
  let n = privateCount(s);
  for (const e of (s.reg.unread_msgs?.streams ?? []) as Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>) {
    const streamIsMuted = muted.get(e.stream_id);
    if (streamIsMuted === undefined) continue;
    const policy = topicPolicy(s, e.stream_id, e.topic);
    if (streamIsMuted ? policy === 2 || policy === 3 : policy !== 1) n += e.unread_message_ids.length;
  }
  return n;
}

let shownCount = -1;
let shownTitle = '';
function updateTitle(): void {
  const s = store.state;
  if (!s) return;
  const n = notifiableCount(s);
  const title = `${n ? `(${n}) ` : ''}${s.reg.realm_name ? `${s.reg.realm_name} - ` : ''}Parley`;
  if (title !== shownTitle) document.title = shownTitle = title;
  if (n !== shownCount) {
    shownCount = n;
    bridge()?.send_event('total_unread_count', n);
  }
}

// ---------------------------------------------------------------- which messages notify

type Flags = string[];

function topicPolicy(s: State, streamId: number, topic: string): number {
  const lower = topic.toLowerCase();
  const ut = s.reg.user_topics?.find((x) => x.stream_id === streamId && x.topic_name.toLowerCase() === lower);
  if (ut) return ut.visibility_policy;
  const name = s.streamsById.get(streamId)?.name;
  return (s.reg.muted_topics ?? []).some((m) => m[0] === name && m[1].toLowerCase() === lower) ? 1 : 0;
}

/** Zulip's message_is_notifiable: whatever the settings, is this message one to tell about? */
function notifiable(s: State, m: Message, flags: Flags): boolean {
  if (m.sender_id === s.me) return false;
  if ((s.reg.muted_users ?? []).some((u) => u.id === m.sender_id)) return false;
  if (flags.includes('read')) return false;
  if (flags.includes('mentioned')) return true;
  if (m.type !== 'stream') return true;
  const policy = topicPolicy(s, m.stream_id!, m.subject);
  if (policy === 3) return true;
  if (policy === 1) return false;
  const sub = subsOf(s).find((x) => x.stream_id === m.stream_id);
  if (sub && streamMuted(sub) && policy !== 2) return flags.includes('wildcard_mentioned') && sub.wildcard_mentions_notify === true;
  return true;
}

/** A stream's own setting, or the user's default for streams when it has none (null). */
function streamSetting(s: State, streamId: number | undefined, own: 'desktop_notifications' | 'audible_notifications' | 'wildcard_mentions_notify', global: string): boolean {
  const sub = subsOf(s).find((x) => x.stream_id === streamId);
  const v = sub?.[own];
  return v === null || v === undefined ? userSettings(s)[global] === true : v;
}

/** Zulip's should_send_desktop_notification and should_send_audible_notification, in one. */
function shouldNotify(s: State, m: Message, flags: Flags, kind: 'desktop' | 'audible'): boolean {
  const us = userSettings(s);
  const followed = m.type === 'stream' && topicPolicy(s, m.stream_id!, m.subject) === 3;
  if (kind === 'audible' && us.notification_sound === 'none') return false;
  if (m.type === 'stream') {
    if (kind === 'desktop' ? streamSetting(s, m.stream_id, 'desktop_notifications', 'enable_stream_desktop_notifications') : streamSetting(s, m.stream_id, 'audible_notifications', 'enable_stream_audible_notifications')) return true;
    if (followed && us[kind === 'desktop' ? 'enable_followed_topic_desktop_notifications' : 'enable_followed_topic_audible_notifications'] === true) return true;
  }
  if (us[kind === 'desktop' ? 'enable_desktop_notifications' : 'enable_sounds'] !== true) return false;
  if (m.type !== 'stream') return true;
  if (flags.includes('has_alert_word') || flags.includes('mentioned')) return true;
  if (flags.includes('wildcard_mentioned')) {
    if (streamSetting(s, m.stream_id, 'wildcard_mentions_notify', 'wildcard_mentions_notify')) return true;
    if (followed && us.enable_followed_topic_wildcard_mentions_notify === true) return true;
  }
  return false;
}

// ---------------------------------------------------------------- showing them

const plain = (html: string) => new DOMParser().parseFromString(html, 'text/html').body.textContent?.trim() ?? '';

function titleOf(s: State, m: Message, count: number): string {
  const sender = m.sender_full_name;
  const prefix = count > 1 ? t('{n} messages from {sender}', { n: count, sender }) : sender;
  if (m.type === 'stream') return `${prefix} (#${s.streamsById.get(m.stream_id!)?.name ?? String(m.display_recipient)} > ${m.subject})`;
  const others = Array.isArray(m.display_recipient) ? m.display_recipient.filter((r) => r.id !== m.sender_id && r.id !== s.me).map((r) => r.full_name) : [];
  return `${prefix} ${others.length ? t('(to you and {names})', { names: others.join(', ') }) : t('(to you)')}`;
}

/** One notification per conversation, replaced as more arrive (Zulip's notice_memory). */
const shown = new Map<string, { obj: NotificationData; count: number }>();

function keyOf(s: State, m: Message): string {
  return m.type === 'stream' ? `stream:${m.sender_id}:${m.stream_id}:${m.subject.toLowerCase()}` : `pm:${pmPartners(m, s.me).join(',')}`;
}

function openConversation(s: State, m: Message): void {
  window.focus();
  if (m.type === 'stream') void showNarrow([{ operator: 'stream', operand: s.streamsById.get(m.stream_id!)?.name ?? '' }, { operator: 'topic', operand: m.subject }]);
  else void showNarrow([{ operator: 'pm-with', operand: pmPartners(m, s.me).map((id) => s.usersById.get(id)?.email ?? '').join(',') }]);
}

function desktopNotify(s: State, m: Message): void {
  const key = keyOf(s, m);
  const before = shown.get(key);
  const count = (before?.count ?? 0) + 1;
  before?.obj.close();
  const content = m.type === 'private' && userSettings(s).pm_content_in_desktop_notifications === false
    ? t('New direct message from {sender}', { sender: m.sender_full_name })
    : plain(m.content);
  const options: NotificationOptions = { body: content, tag: String(m.id), icon: s.usersById.get(m.sender_id)?.avatar_url ?? undefined };
  const title = titleOf(s, m, count);
  const b = bridge();
  let obj: NotificationData;
  if (b?.new_notification) {
    obj = b.new_notification(title, options, (type) => {
      if (type === 'click') openConversation(s, m);
      return true;
    });
  } else {
    const n = new Notification(title, options);
    n.addEventListener?.('click', () => {
      n.close();
      openConversation(s, m);
    });
    obj = n;
  }
  shown.set(key, { obj, count });
}

/** A short tone per sound name ("none" is never played), made on the spot: no file to fetch. */
const TONES: Record<string, number[]> = { zulip: [880, 1320], ding: [1568], chime: [1047, 1319, 1568] };
let audio: AudioContext | null = null;
export function playSound(name: string): void {
  const notes = TONES[name] ?? TONES.zulip!;
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime;
    notes.forEach((freq, i) => {
      const osc = audio!.createOscillator();
      const gain = audio!.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, start + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.001, start + i * 0.12 + 0.3);
      osc.connect(gain).connect(audio!.destination);
      osc.start(start + i * 0.12);
      osc.stop(start + i * 0.12 + 0.3);
    });
  } catch {
    // No audio output (or not allowed yet): silence, as a muted machine.
  }
}

/** A message the user is looking at (the window focused, the message in the view) needs no notification. */
const inView = (m: Message) => document.hasFocus() && document.visibilityState === 'visible' && store.list.ids.includes(m.id);

function received(events: ClientEvent[]): void {
  const s = store.state;
  if (!s) return;
  for (const e of events) {
    if (e.type !== 'message') continue;
    const m = (e as { message: Message }).message;
    const flags = ((e as { flags?: string[] }).flags ?? []) as Flags;
    if (!notifiable(s, m, flags) || inView(m)) continue;
    if (shouldNotify(s, m, flags, 'desktop') && permission() === 'granted') desktopNotify(s, m);
    if (shouldNotify(s, m, flags, 'audible')) playSound(String(userSettings(s).notification_sound ?? 'zulip'));
  }
}

/** Started once at boot, after register. */
export function installNotifications(): void {
  onEvents(received);
  store.subscribe(updateTitle);
  updateTitle();
  // Back at the window: what was notified has been seen (Zulip closes them on focus).
  addEventListener('focus', () => {
    for (const { obj } of shown.values()) obj.close();
    shown.clear();
  });
}
