/**
 * Zulip's "Create stream" form: name, description, who can access it (the kinds the
 * organization's policies let the viewer create), who can post, the message retention
 * period (owners), the first subscribers (the viewer by default) and the announcement.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { mayCreate, POST_POLICY, PRIVACY, privacyParams, reg, type Privacy } from './policy';
import { PeoplePicker } from './PeoplePicker';
import { errorText, members } from './StreamSettings';
import { RetentionField, retentionParam, type Retention } from './Retention';

export function CreateStream({ onCreated, onCancel }: { onCreated: (id: number) => void; onCancel: () => void }) {
  const store = useStore();
  const s = store.state!;
  const allowed = PRIVACY().filter(([k]) => mayCreate(s, k));
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [privacy, setPrivacy] = useState<Privacy>(allowed.find(([k]) => k === 'public')?.[0] ?? allowed[0]?.[0] ?? 'public');
  const [postPolicy, setPostPolicy] = useState(1);
  const [retention, setRetention] = useState<Retention>({ mode: 'default', days: '' });
  const [subs, setSubs] = useState<number[]>([s.me]);
  const [announce, setAnnounce] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<string | null>(null);
  const r = reg(s);
  const announceId = (r.realm_new_stream_announcements_stream_id ?? r.realm_notifications_stream_id) as number | undefined;
  const announceStream = announceId !== undefined && announceId > 0 ? s.streamsById.get(announceId) : undefined;

  // The new stream, once its event arrived, opens.
  useEffect(() => {
    if (pending === null) return;
    const st = [...s.streamsById.values()].find((x) => x.name.toLowerCase() === pending.toLowerCase());
    if (st) {
      void members.load(st.stream_id).catch(() => {});
      onCreated(st.stream_id);
    }
  });

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const n = name.trim();
    if (!n) return setError(t('A stream needs a name.'));
    if (s.streamsById.size && [...s.streamsById.values()].some((x) => x.name.toLowerCase() === n.toLowerCase())) return setError(t('A stream with this name already exists.'));
    const ret = retentionParam(retention);
    if (ret === null) return setError(t('Enter a number of days.'));
    setBusy(true);
    try {
      await post('/users/me/subscriptions', {
        subscriptions: [{ name: n, description }],
        ...privacyParams(privacy),
        stream_post_policy: postPolicy,
        message_retention_days: s.reg.is_owner ? ret : undefined,
        principals: subs,
        announce: announceStream ? announce : undefined,
      });
      setPending(n);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  if (!allowed.length) return <p>{t('You do not have permission to create streams.')}</p>;
  return (
    <form class="streams-form" onSubmit={(e) => void submit(e)} aria-labelledby="create-stream-title" noValidate>
      <h3 id="create-stream-title">{t('Create stream')}</h3>
      <label class="stack">{t('Stream name')}
        <input value={name} maxLength={60} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
      </label>
      <label class="stack">{t('Stream description')}
        <textarea value={description} maxLength={1024} rows={2} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <fieldset class="streams-privacy">
        <legend>{t('Who can access the stream?')}</legend>
        {allowed.map(([k, label, help]) => (
          <label key={k} class="streams-radio">
            <input type="radio" name="create-privacy" value={k} checked={privacy === k} onChange={() => setPrivacy(k)} />
            <span><strong>{label}</strong><small>{help}</small></span>
          </label>
        ))}
      </fieldset>
      <label class="stack">{t('Who can post to the stream?')}
        <select value={postPolicy} onChange={(e) => setPostPolicy(Number(e.currentTarget.value))}>
          {POST_POLICY().map(([v, label]) => <option key={v} value={v}>{label}</option>)}
        </select>
      </label>
      {s.reg.is_owner === true && <RetentionField value={retention} onChange={setRetention} name="create-retention" />}
      <PeoplePicker label={t('Choose subscribers')} chosen={subs} onAdd={(id) => setSubs([...subs, id])} onRemove={(id) => setSubs(subs.filter((x) => x !== id))} />
      {announceStream && (
        <label class="streams-check">
          <input type="checkbox" checked={announce} onChange={(e) => setAnnounce(e.currentTarget.checked)} />
          {t('Announce new stream in #{name}', { name: announceStream.name })}
        </label>
      )}
      {error && <p class="streams-note error" role="alert">{error}</p>}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>{t('Create')}</button>
        <button type="button" onClick={onCancel}>{t('Cancel')}</button>
      </div>
    </form>
  );
}
