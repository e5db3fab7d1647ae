/**
 * An administrator's invitations: invite people by email with a role and streams
 * (POST /invites), make a reusable link (POST /invites/multiuse), and see the invitations
 * still pending (GET /invites) with revoke and resend. Only administrators see the button
 * that opens it; the server checks the same on every call.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, del, get, post } from '../api';
import { useStore } from '../hooks';
import { currentLanguage, t, tn } from '../i18n';

type Invite = { id: number; email?: string; invited_as: number; invited: number; expiry_date: number | null; is_multiuse: boolean; link_url?: string; invited_by_user_id: number };

/** Zulip's roles, as invite_as takes them; only an owner may invite owners. */
const ROLES = (): Array<[number, string]> => [[400, t('Member')], [600, t('Guest')], [300, t('Moderator')], [200, t('Administrator')], [100, t('Owner')]];
const roleName = (r: number) => ROLES().find(([v]) => v === r)?.[1] ?? String(r);
const EXPIRY = (): Array<[string, string]> => [['1440', tn('{n} day', '{n} days', 1)], ['14400', tn('{n} day', '{n} days', 10)], ['43200', tn('{n} day', '{n} days', 30)], ['null', t('Never')]];

const when = (ts: number | null) => (ts === null ? t('never') : new Date(ts * 1000).toLocaleString(currentLanguage(), { dateStyle: 'medium', timeStyle: 'short' }));

export function Invites({ close }: { close: () => void }) {
  const s = useStore().state!;
  const amOwner = s.reg.is_owner === true;
  const subs = (s.reg.subscriptions ?? []) as Array<{ stream_id: number; name: string }>;
  const defaults = new Set(((s.reg.realm_default_streams ?? []) as Array<{ stream_id: number }>).map((d) => d.stream_id));
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState(400);
  const [streams, setStreams] = useState<Set<number>>(() => new Set(subs.filter((x) => defaults.has(x.stream_id)).map((x) => x.stream_id)));
  const [expiry, setExpiry] = useState('14400');
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const [pending, setPending] = useState<Invite[] | null>(null);

  const refresh = () => get<{ invites: Invite[] }>('/invites').then((r) => setPending(r.invites.sort((a, b) => b.invited - a.invited)), (e) => setNote({ text: (e as Error).message, error: true }));
  useEffect(() => void refresh(), []);

  const terms = () => ({ invite_as: role, stream_ids: [...streams], invite_expires_in_minutes: expiry === 'null' ? null : Number(expiry) });
  const run = async (f: () => Promise<unknown>, ok: string) => {
    try {
      await f();
      setNote({ text: ok, error: false });
    } catch (e) {
      setNote({ text: e instanceof ApiError ? e.message : t('Could not reach the server.'), error: true });
    }
    void refresh();
  };
  const toggle = (id: number, on: boolean) => {
    const next = new Set(streams);
    if (on) next.add(id);
    else next.delete(id);
    setStreams(next);
  };

  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="invites-title">
      <div class="modal-box invites">
        <h2 id="invites-title">{t('Invite people')}</h2>
        <form onSubmit={(e) => { e.preventDefault(); void run(async () => { await post('/invites', { invitee_emails: emails, ...terms() }); setEmails(''); }, t('Invitations sent.')); }}>
          <label class="stack">{t('Email addresses (one per line or separated by commas)')}
            <textarea rows={3} value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
          </label>
          <label>{t('Invite as')}
            <select value={String(role)} onChange={(e) => setRole(Number(e.currentTarget.value))}>
              {ROLES().filter(([v]) => v !== 100 || amOwner).map(([v, name]) => <option key={v} value={String(v)}>{name}</option>)}
            </select>
          </label>
          <label>{t('Link expires after')}
            <select value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
              {EXPIRY().map(([v, name]) => <option key={v} value={v}>{name}</option>)}
            </select>
          </label>
          <fieldset class="invite-streams">
            <legend>{t('Streams they join')}</legend>
            {subs.map((x) => (
              <label key={x.stream_id}><input type="checkbox" checked={streams.has(x.stream_id)} onChange={(e) => toggle(x.stream_id, e.currentTarget.checked)} /> #{x.name}</label>
            ))}
          </fieldset>
          <div class="row">
            <button type="submit" disabled={emails.trim() === ''}>{t('Send invitations')}</button>
            <button type="button" onClick={() => void run(async () => setLink((await post<{ invite_link: string }>('/invites/multiuse', terms())).invite_link), t('Reusable link made.'))}>{t('Make a reusable link')}</button>
          </div>
        </form>
        {link && <label class="stack">{t('Reusable invitation link')}{' '}<input readOnly value={link} onFocus={(e) => e.currentTarget.select()} /></label>}
        {note && <p role="status" class={note.error ? 'error' : ''}>{note.text}</p>}
        <h3>{t('Pending invitations')}</h3>
        {pending === null ? <p>{t('Loading…')}</p> : pending.length === 0 ? <p>{t('No pending invitations.')}</p> : (
          <table class="pending-invites">
            <thead><tr><th scope="col">{t('Invitee')}</th><th scope="col">{t('Role')}</th><th scope="col">{t('Expires')}</th><th scope="col"><span class="visually-hidden">{t('Actions')}</span></th></tr></thead>
            <tbody>
              {pending.map((i) => {
                const who = i.is_multiuse ? t('Reusable link') : i.email!;
                return (
                  <tr key={`${i.is_multiuse}-${i.id}`}>
                    <td>{who}</td>
                    <td>{roleName(i.invited_as)}</td>
                    <td>{when(i.expiry_date)}</td>
                    <td class="row">
                      {!i.is_multiuse && <button aria-label={t('Resend to {who}', { who })} onClick={() => void run(() => post(`/invites/${i.id}/resend`), t('Invitation sent again to {who}.', { who }))}>{t('Resend')}</button>}
                      <button class="danger" aria-label={t('Revoke {who}', { who })} onClick={() => void run(() => del(i.is_multiuse ? `/invites/multiuse/${i.id}` : `/invites/${i.id}`), t('Invitation revoked.'))}>{t('Revoke')}</button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        <button onClick={close}>{t('Close')}</button>
      </div>
    </div>
  );
}
