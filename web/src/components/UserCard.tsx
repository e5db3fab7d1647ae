/**
 * A person's profile card (Zulip's user card popover) and the dialog to set one's own status
 * (Zulip's set_status_overlay): a chunk of their own, loaded when first opened.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api';
import { glyph } from '../emoji';
import type { EmojiItem } from '../emoji';
import { useStore } from '../hooks';
import { t } from '../i18n';
import { ui } from '../keys';
import { closePeople, openStatus, people, StatusEmoji, statusOf } from '../people';
import { store } from '../store';
import type { User } from '../types';
import { showNarrow } from '../view';
import { Avatar } from './Avatar';
import { openCompose } from './Compose';
import { EmojiPicker } from './EmojiPicker';
import { presenceOf } from './RightSidebar';
import './people.css';

type Field = { id: number; type: number; name: string; hint?: string; field_data?: string; order?: number };
type Value = { value: string; rendered_value?: string };

const PRESENCE = { active: () => t('Active'), idle: () => t('Idle'), offline: () => t('Offline') };

function roleOf(u: User): string | null {
  if (u.is_bot) return t('Bot');
  if (u.role === 100) return t('Owner');
  if (u.role === 200) return t('Administrator');
  if (u.role === 300) return t('Moderator');
  if (u.role === 600) return t('Guest');
  return t('Member');
}

/** Zulip's external account subtypes with a built-in URL pattern. */
const EXTERNAL: Record<string, string> = { github: 'https://github.com/%(username)s', twitter: 'https://twitter.com/%(username)s' };

function parse<T>(s: string | undefined, fallback: T): T {
  try { return s ? JSON.parse(s) as T : fallback; } catch { return fallback; }
}

function FieldValue({ f, v }: { f: Field; v: Value }) {
  const s = store.state!;
  switch (f.type) {
    case 2: // long text, rendered by the server
      return v.rendered_value ? <div class="rendered" dangerouslySetInnerHTML={{ __html: v.rendered_value }} /> : <span>{v.value}</span>;
    case 3: { // choice: the option's text
      const options = parse<Record<string, { text: string }>>(f.field_data, {});
      return <span>{options[v.value]?.text ?? v.value}</span>;
    }
    case 5: // link
      return <a href={v.value} target="_blank" rel="noopener noreferrer">{v.value}</a>;
    case 6: { // users: their names
      const ids = parse<number[]>(v.value, []);
      return <span>{ids.map((id) => s.usersById.get(id)?.full_name ?? t('Unknown user')).join(', ')}</span>;
    }
    case 7: { // external account: the URL from the field's pattern
      const d = parse<{ subtype?: string; url_pattern?: string }>(f.field_data, {});
      const pattern = d.subtype === 'custom' ? d.url_pattern : EXTERNAL[d.subtype ?? ''];
      return pattern ? <a href={pattern.replace('%(username)s', encodeURIComponent(v.value))} target="_blank" rel="noopener noreferrer">{v.value}</a> : <span>{v.value}</span>;
    }
    default: // short text, date, pronouns
      return <span>{v.value}</span>;
  }
}

/** Focus into the dialog as it mounts; Escape and a click outside close it (focus goes back). */
function useDialog() {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => box.current?.querySelector<HTMLElement>('button, input, a[href]')?.focus(), []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      e.preventDefault();
      closePeople();
    }
  };
  return { box, onKeyDown };
}

function Card({ userId }: { userId: number }) {
  const s = useStore().state!;
  const u = s.usersById.get(userId);
  const { box, onKeyDown } = useDialog();
  const [profile, setProfile] = useState<Record<string, Value> | undefined>(u?.profile_data as Record<string, Value> | undefined);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (profile || !u || u.is_bot) return;
    let live = true;
    get<{ user: User }>(`/users/${userId}`, { include_custom_profile_fields: true }).then((r) => live && setProfile((r.user.profile_data ?? {}) as Record<string, Value>), () => {});
    return () => { live = false; };
  }, [userId]);
  if (!u) return null;
  const me = userId === s.me;
  const st = statusOf(userId);
  const now = Date.now() / 1000;
  const presence = me ? 'active' : presenceOf(s.reg.presences?.[u.email], (s.reg.server_timestamp ?? now) + (now - loadedAt));
  let localTime: string | null = null;
  if (u.timezone) {
    try { localTime = new Intl.DateTimeFormat([], { hour: 'numeric', minute: '2-digit', timeZone: u.timezone }).format(new Date()); } catch { localTime = null; }
  }
  const joined = new Date(u.date_joined).toLocaleDateString([], { year: 'numeric', month: 'short', day: 'numeric' });
  const email = u.delivery_email ?? u.email;
  const fields = ((s.reg.custom_profile_fields ?? []) as Field[]).slice().sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  const role = roleOf(u);
  const owner = u.is_bot && u.bot_owner_id ? s.usersById.get(u.bot_owner_id) : undefined;
  const act = (f: () => void) => () => { closePeople(); f(); };
  return (
    <div class="people-backdrop" onClick={(e) => { if (e.target === e.currentTarget) closePeople(); }}>
      <div class="user-card" role="dialog" aria-modal="true" aria-labelledby="user-card-name" ref={box} onKeyDown={onKeyDown}>
        <div class="user-card-head">
          <Avatar url={u.avatar_url} name={u.full_name} userId={u.user_id} size="large" />
          <div>
            <h2 id="user-card-name">{u.full_name} <StatusEmoji userId={userId} /></h2>
            {role && <p class="role">{role}{owner ? ` · ${t('Owner: {name}', { name: owner.full_name })}` : ''}</p>}
            <p class="presence-line"><span class={`presence ${presence}`} aria-hidden="true" /> {PRESENCE[presence]()}{st.away ? ` · ${t('Away')}` : ''}</p>
            {localTime && <p class="local-time">{t('Local time: {time}', { time: localTime })}</p>}
          </div>
          <button class="close" aria-label={t('Close')} onClick={closePeople}>×</button>
        </div>
        {st.status_text && <p class="status-text">{st.emoji_name ? `${st.reaction_type === 'unicode_emoji' ? glyph(st.emoji_code ?? '') : ''} ` : ''}{st.status_text}</p>}
        <dl class="user-card-facts">
          {email && <><dt>{t('Email')}</dt><dd>{email}</dd></>}
          <dt>{t('Joined')}</dt><dd>{joined}</dd>
          {!u.is_bot && fields.map((f) => {
            const v = profile?.[String(f.id)];
            return v && v.value !== '' ? <div key={f.id} class="field"><dt>{f.name}</dt><dd><FieldValue f={f} v={v} /></dd></div> : null;
          })}
        </dl>
        <div class="user-card-actions">
          {me && <button onClick={(e) => openStatus(people.opener ?? (e.currentTarget as HTMLElement))}>{t('Set status')}</button>}
          <button onClick={act(() => openCompose({ mode: 'private', to: u.email }))}>{t('Send direct message')}</button>
          <button onClick={act(() => void showNarrow([{ operator: 'sender', operand: u.email }]))}>{t('View messages sent')}</button>
          {email && <button onClick={() => void navigator.clipboard?.writeText(email).then(() => setCopied(true), () => {})}>{copied ? t('Copied!') : t('Copy email')}</button>}
          {s.reg.is_admin === true && !me && <button onClick={act(() => { ui.admin = true; store.changed(); })}>{t('Manage user')}</button>}
        </div>
      </div>
    </div>
  );
}
const loadedAt = Date.now() / 1000;

/** Zulip's default statuses. */
const PRESETS = [
  { text: 'In a meeting', name: 'calendar', code: '1f4c5' },
  { text: 'Commuting', name: 'bus', code: '1f68c' },
  { text: 'Out sick', name: 'hurt', code: '1f912' },
  { text: 'Vacationing', name: 'palm_tree', code: '1f334' },
  { text: 'Working remotely', name: 'house', code: '1f3e0' },
];
const MAX_STATUS = 60;
/** From level 148 `away` is no part of a status but the presence_enabled setting (Zulip 6's invisible mode). */
const AWAY_IS_PRESENCE_LEVEL = 148;

function SetStatus() {
  const s = useStore().state!;
  const cur = statusOf(s.me);
  const { box, onKeyDown } = useDialog();
  const [text, setText] = useState(cur.status_text ?? '');
  const [emoji, setEmoji] = useState<{ name: string; code: string; type: string; preset?: boolean } | null>(cur.emoji_name ? { name: cur.emoji_name, code: cur.emoji_code ?? '', type: cur.reaction_type ?? 'unicode_emoji' } : null);
  const [away, setAway] = useState(cur.away === true);
  const awayInStatus = (s.reg.zulip_feature_level ?? 0) < AWAY_IS_PRESENCE_LEVEL;
  const [picking, setPicking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emojiButton = useRef<HTMLButtonElement>(null);
  const save = async (params: Record<string, unknown>) => {
    try {
      await post('/users/me/status', params);
      closePeople();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void save({ status_text: text.trim(), ...(awayInStatus ? { away } : {}), emoji_name: emoji?.name ?? '', // A preset names its emoji only: the server takes today's code for the name.
      ...(emoji && !emoji.preset ? { emoji_code: emoji.code, reaction_type: emoji.type } : {}) });
  };
  return (
    <div class="people-backdrop" onClick={(e) => { if (e.target === e.currentTarget) closePeople(); }}>
      <div class="user-card set-status" role="dialog" aria-modal="true" aria-labelledby="set-status-title" ref={box} onKeyDown={(e) => { if (!picking) onKeyDown(e); }}>
      <form onSubmit={submit}>
        <h2 id="set-status-title">{t('Set status')}</h2>
        <div class="status-input">
          <button type="button" ref={emojiButton} class="status-emoji-button" aria-label={emoji ? t('Status emoji: {name}', { name: emoji.name }) : t('Choose a status emoji')} aria-expanded={picking} onClick={() => setPicking(!picking)}>
            {emoji ? (emoji.type === 'unicode_emoji' ? glyph(emoji.code) : `:${emoji.name}:`) : '☺'}
          </button>
          <input aria-label={t('Status text')} placeholder={t('Your status')} maxLength={MAX_STATUS} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        {picking && <EmojiPicker label={t('Choose a status emoji')} opener={emojiButton} close={() => setPicking(false)} onPick={(e: EmojiItem) => { setEmoji({ name: e.name, code: e.code, type: e.type }); setPicking(false); }} />}
        <ul class="status-presets" aria-label={t('Suggested statuses')}>
          {PRESETS.map((p) => (
            <li key={p.text}><button type="button" onClick={() => { setText(t(p.text)); setEmoji({ name: p.name, code: p.code, type: 'unicode_emoji', preset: true }); }}>{glyph(p.code)} {t(p.text)}</button></li>
          ))}
        </ul>
        {awayInStatus && <label class="status-away"><input type="checkbox" checked={away} onChange={(e) => setAway(e.currentTarget.checked)} /> {t('Set yourself as away')}</label>}
        {error && <p role="alert">{error}</p>}
        <div class="user-card-actions">
          <button type="submit">{t('Save')}</button>
          <button type="button" onClick={() => void save({ status_text: '', emoji_name: '', ...(awayInStatus ? { away: false } : {}) })}>{t('Clear status')}</button>
          <button type="button" onClick={closePeople}>{t('Cancel')}</button>
        </div>
      </form>
      </div>
    </div>
  );
}

export default function People() {
  useStore();
  if (people.status) return <SetStatus />;
  if (people.card !== null) return <Card key={people.card} userId={people.card} />;
  return null;
}
