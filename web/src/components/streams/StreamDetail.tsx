/**
 * One stream's settings, as Zulip's stream settings have them: General (name, description,
 * privacy and history, who can post, retention for owners, archive; read-only for those who
 * may not change them), Personal (the viewer's subscription: color, pin, mute,
 * notifications) and Subscribers (list, add, remove).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, patch, post } from '../../api';
import { useStore } from '../../hooks';
import { t, tn } from '../../i18n';
import type { Stream } from '../../types';
import { PeoplePicker } from './PeoplePicker';
import { tabKeys } from './tabs';
import { POST_POLICY, PRIVACY, privacyOf, privacyParams, type Privacy, mayCreate } from './policy';
import { RetentionField, retentionOf, retentionParam, type Retention } from './Retention';
import { errorText, isSubscribed, members, useMembers } from './StreamSettings';

type Tab = 'general' | 'personal' | 'subscribers';
type Note = { text: string; error: boolean } | null;

function Notice({ note }: { note: Note }) {
  return <p role="status" class={`streams-note ${note?.error ? 'error' : ''}`}>{note?.text ?? ''}</p>;
}

export function StreamDetail({ stream, admin, onArchived }: { stream: Stream; admin: boolean; onArchived: () => void }) {
  const s = useStore().state!;
  const subscribed = isSubscribed(s, stream.stream_id);
  const [tab, setTab] = useState<Tab>('general');
  const tabs: Array<[Tab, string]> = [['general', t('General')], ...(subscribed ? [['personal', t('Personal')] as [Tab, string]] : []), ['subscribers', t('Subscribers')]];
  const current = tabs.some(([k]) => k === tab) ? tab : 'general';
  return (
    <div class="streams-detail">
      <h3 class="streams-detail-title">{stream.invite_only ? '🔒' : '#'} {stream.name}</h3>
      <div class="streams-tabs" role="tablist" aria-label={t('Settings of {name}', { name: stream.name })}>
        {tabs.map(([k, label]) => (
          <button key={k} role="tab" id={`stream-tab-${k}`} aria-controls="stream-panel" aria-selected={current === k} tabIndex={current === k ? 0 : -1}
            data-tab={k} onClick={() => setTab(k)} onKeyDown={tabKeys(tabs.map(([x]) => x), current, setTab)}>{label}</button>
        ))}
      </div>
      <div id="stream-panel" role="tabpanel" aria-labelledby={`stream-tab-${current}`}>
        {current === 'general' ? <General stream={stream} admin={admin} onArchived={onArchived} />
          : current === 'personal' ? <Personal stream={stream} />
          : <Subscribers stream={stream} admin={admin} />}
      </div>
    </div>
  );
}

function General({ stream, admin, onArchived }: { stream: Stream; admin: boolean; onArchived: () => void }) {
  const s = useStore().state!;
  const [name, setName] = useState(stream.name);
  const [description, setDescription] = useState(stream.description);
  const [privacy, setPrivacy] = useState<Privacy>(privacyOf(stream));
  const [postPolicy, setPostPolicy] = useState(stream.stream_post_policy);
  const [retention, setRetention] = useState<Retention>(retentionOf(stream.message_retention_days));
  const [note, setNote] = useState<Note>(null);
  const [confirming, setConfirming] = useState(false);
  // Another's change arrives by event: the form follows what the server holds.
  // (Only on a change: effects run after the first paint, when the user may already be typing.)
  const held = useRef({ name: stream.name, description: stream.description, privacy: privacyOf(stream), post: stream.stream_post_policy, retention: stream.message_retention_days });
  useEffect(() => {
    const h = held.current;
    if (h.name !== stream.name) setName(h.name = stream.name);
    if (h.description !== stream.description) setDescription(h.description = stream.description);
    if (h.privacy !== privacyOf(stream)) setPrivacy(h.privacy = privacyOf(stream));
    if (h.post !== stream.stream_post_policy) setPostPolicy(h.post = stream.stream_post_policy);
    if (h.retention !== stream.message_retention_days) setRetention(retentionOf(h.retention = stream.message_retention_days));
  });

  const policyName = POST_POLICY().find(([v]) => v === stream.stream_post_policy)?.[1] ?? '';
  const [privacyLabel, privacyHelp] = PRIVACY().filter(([k]) => k === privacyOf(stream)).map(([, l, h]) => [l, h])[0]!;
  if (!admin) {
    return (
      <div class="streams-form">
        <p class="streams-hint">{'can_administer_channel_group' in stream ? t('Only organization administrators and channel administrators can change these settings.') : t('Only organization administrators can change these settings.')}</p>
        <dl class="streams-facts">
          <dt>{t('Stream description')}</dt><dd>{stream.description || t('This stream does not yet have a description.')}</dd>
          <dt>{t('Who can access the stream?')}</dt><dd><strong>{privacyLabel}</strong>: {privacyHelp}</dd>
          <dt>{t('Who can post to the stream?')}</dt><dd>{policyName}</dd>
        </dl>
      </div>
    );
  }

  const save = async (e: Event) => {
    e.preventDefault();
    setNote(null);
    const params: Record<string, unknown> = {};
    if (name.trim() !== stream.name) params.new_name = name.trim();
    if (description !== stream.description) params.description = description;
    if (privacy !== privacyOf(stream)) {
      const p = privacyParams(privacy);
      params.is_private = p.invite_only;
      params.history_public_to_subscribers = p.history_public_to_subscribers;
      params.is_web_public = p.is_web_public;
    }
    if (postPolicy !== stream.stream_post_policy) params.stream_post_policy = postPolicy;
    if (s.reg.is_owner === true) {
      const ret = retentionParam(retention);
      if (ret === null) return setNote({ text: t('Enter a number of days.'), error: true });
      const was = retentionParam(retentionOf(stream.message_retention_days));
      if (ret !== was) params.message_retention_days = ret;
    }
    if (!Object.keys(params).length) return setNote({ text: t('Nothing to save.'), error: false });
    try {
      await patch(`/streams/${stream.stream_id}`, params);
      setNote({ text: t('Saved'), error: false });
    } catch (err) {
      setNote({ text: errorText(err), error: true });
    }
  };

  const archive = async () => {
    try {
      await del(`/streams/${stream.stream_id}`);
      onArchived();
    } catch (err) {
      setNote({ text: errorText(err), error: true });
      setConfirming(false);
    }
  };

  const choices = PRIVACY().filter(([k]) => k === privacyOf(stream) || k !== 'web-public' || mayCreate(s, 'web-public'));
  return (
    <form class="streams-form" onSubmit={(e) => void save(e)} aria-label={t('General settings of {name}', { name: stream.name })}>
      <label class="stack">{t('Stream name')}
        <input value={name} maxLength={60} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
      </label>
      <label class="stack">{t('Stream description')}
        <textarea value={description} maxLength={1024} rows={2} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <fieldset class="streams-privacy">
        <legend>{t('Who can access the stream?')}</legend>
        {choices.map(([k, label, help]) => (
          <label key={k} class="streams-radio">
            <input type="radio" name={`privacy-${stream.stream_id}`} value={k} checked={privacy === k} onChange={() => setPrivacy(k)} />
            <span><strong>{label}</strong><small>{help}</small></span>
          </label>
        ))}
      </fieldset>
      <label class="stack">{t('Who can post to the stream?')}
        <select value={postPolicy} onChange={(e) => setPostPolicy(Number(e.currentTarget.value))}>
          {POST_POLICY().map(([v, label]) => <option key={v} value={v}>{label}</option>)}
        </select>
      </label>
      {s.reg.is_owner === true && <RetentionField value={retention} onChange={setRetention} name={`retention-${stream.stream_id}`} />}
      <div class="row">
        <button type="submit" class="primary">{t('Save changes')}</button>
      </div>
      <Notice note={note} />
      <div class="streams-danger">
        {!confirming
          ? <button type="button" class="danger" onClick={() => setConfirming(true)}>{t('Archive stream')}</button>
          : (
            <div role="group" aria-label={t('Archive #{name}?', { name: stream.name })} class="streams-confirm">
              <p>{t('Archiving this stream will remove it from the left sidebar and the streams list of every user; its messages will no longer be shown.')}</p>
              <div class="row">
                <button type="button" class="danger" onClick={() => void archive()}>{t('Confirm')}</button>
                <button type="button" onClick={() => setConfirming(false)}>{t('Cancel')}</button>
              </div>
            </div>
          )}
      </div>
    </form>
  );
}

const NOTIFY = (): Array<[string, string, string]> => [
  ['desktop_notifications', t('Visual desktop notifications'), 'enable_stream_desktop_notifications'],
  ['audible_notifications', t('Audible desktop notifications'), 'enable_stream_audible_notifications'],
  ['push_notifications', t('Mobile notifications'), 'enable_stream_push_notifications'],
  ['email_notifications', t('Email notifications'), 'enable_stream_email_notifications'],
  ['wildcard_mentions_notify', t('Notifications for @all/@everyone mentions'), 'wildcard_mentions_notify'],
];

function Personal({ stream }: { stream: Stream }) {
  const s = useStore().state!;
  const sub = (s.reg.subscriptions ?? []).find((x) => x.stream_id === stream.stream_id) as unknown as Record<string, unknown> | undefined;
  const [note, setNote] = useState<Note>(null);
  // What was just chosen shows at once; the subscription event then confirms it.
  const [local, setLocal] = useState<Record<string, unknown>>({});
  useEffect(() => {
    const left = Object.fromEntries(Object.entries(local).filter(([k, v]) => sub?.[k] !== v));
    if (Object.keys(left).length !== Object.keys(local).length) setLocal(left);
  });
  if (!sub) return null;
  const value = (k: string) => (k in local ? local[k] : sub[k]);
  const defaults = (s.reg as unknown as { user_settings?: Record<string, unknown> }).user_settings ?? (s.reg as unknown as Record<string, unknown>);
  const set = async (property: string, v: unknown) => {
    setNote(null);
    setLocal((l) => ({ ...l, [property]: v }));
    try {
      await post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: stream.stream_id, property, value: v }] });
      setNote({ text: t('Saved'), error: false });
    } catch (err) {
      setLocal((l) => Object.fromEntries(Object.entries(l).filter(([k]) => k !== property)));
      setNote({ text: errorText(err), error: true });
    }
  };
  return (
    <div class="streams-form" role="group" aria-label={t('Personal settings')}>
      <label class="streams-check">{t('Stream color')}
        <input type="color" value={String(value('color') ?? '#c2c2c2')} onChange={(e) => void set('color', e.currentTarget.value)} />
      </label>
      <label class="streams-check">
        <input type="checkbox" checked={value('pin_to_top') === true} onChange={(e) => void set('pin_to_top', e.currentTarget.checked)} />
        {t('Pin stream to top of left sidebar')}
      </label>
      <label class="streams-check">
        <input type="checkbox" checked={value('is_muted') === true} onChange={(e) => void set('is_muted', e.currentTarget.checked)} />
        {t('Mute stream')}
      </label>
      <fieldset class="streams-notify">
        <legend>{t('Notification settings')}</legend>
        {NOTIFY().map(([prop, label, fallback]) => (
          <label key={prop} class="streams-check">
            <input type="checkbox" checked={(value(prop) ?? defaults[fallback]) === true} onChange={(e) => void set(prop, e.currentTarget.checked)} />
            {label}
          </label>
        ))}
      </fieldset>
      <Notice note={note} />
    </div>
  );
}

function Subscribers({ stream, admin }: { stream: Stream; admin: boolean }) {
  const s = useStore().state!;
  useMembers();
  const [note, setNote] = useState<Note>(null);
  const [q, setQ] = useState('');
  const ids = members.byId.get(stream.stream_id);
  const subscribed = isSubscribed(s, stream.stream_id);
  useEffect(() => { void members.load(stream.stream_id).catch((e) => setNote({ text: errorText(e), error: true })); }, [stream.stream_id, subscribed]);
  const add = async (id: number) => {
    setNote(null);
    try {
      await post('/users/me/subscriptions', { subscriptions: [{ name: stream.name }], principals: [id] });
      await members.load(stream.stream_id);
      setNote({ text: t('{name} is now subscribed.', { name: s.usersById.get(id)?.full_name ?? '' }), error: false });
    } catch (err) {
      setNote({ text: errorText(err), error: true });
    }
  };
  const remove = async (id: number) => {
    setNote(null);
    try {
      await del('/users/me/subscriptions', { subscriptions: [stream.name], principals: [id] });
      await members.load(stream.stream_id);
      setNote({ text: t('{name} was unsubscribed.', { name: s.usersById.get(id)?.full_name ?? '' }), error: false });
    } catch (err) {
      setNote({ text: errorText(err), error: true });
    }
  };
  // Anyone subscribed may add others to a stream (the organization's policy decides); removing others is for administrators.
  const mayAdd = admin || subscribed || !stream.invite_only;
  const query = q.trim().toLowerCase();
  const people = (ids ?? []).map((id) => s.usersById.get(id)).filter((u) => u !== undefined)
    .filter((u) => !query || u.full_name.toLowerCase().includes(query) || u.email.toLowerCase().includes(query))
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <div class="streams-form">
      {mayAdd && <PeoplePicker label={t('Add subscribers')} chosen={ids ?? []} onAdd={(id) => void add(id)} showChosen={false} />}
      <Notice note={note} />
      <h4>{ids ? tn('{n} subscriber', '{n} subscribers', ids.length) : t('Loading…')}</h4>
      <label class="stack">{t('Filter subscribers')}
        <input type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      </label>
      <ul class="streams-members" aria-label={t('Subscribers')}>
        {people.map((u) => (
          <li key={u.user_id}>
            <span class="streams-grow">{u.full_name} <small>{u.email}</small></span>
            {(admin || u.user_id === s.me) && (
              <button type="button" onClick={() => void remove(u.user_id)} aria-label={t('Unsubscribe {name}', { name: u.full_name })}>{t('Unsubscribe')}</button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
