/**
 * Custom emoji, as Zulip's "Custom emoji" settings: the organization's emoji with their image
 * and author, the upload form (POST /realm/emoji/{name}, multipart; the server's word on a
 * bad name or image is shown), and deletion for administrators and an emoji's author. The
 * `realm_emoji` events keep the list current.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError, csrfToken, del } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import './admin2.css';
import { ConfirmButton } from './ConfirmButton';
import { Notice, useRunner } from './common';

type Emoji = { id: string; name: string; source_url: string; deactivated: boolean; author_id?: number | null; author?: { id: number } | null };

export async function upload(path: string, file: File): Promise<void> {
  const body = new FormData();
  body.append('file', file, file.name);
  const res = await fetch(`/json${path}`, { method: 'POST', body, credentials: 'same-origin', headers: { 'X-CSRFToken': csrfToken(), Accept: 'application/json' } });
  const json = (await res.json().catch(() => ({}))) as { result?: string; msg?: string; code?: string };
  if (json.result !== 'success') throw new ApiError(res.status, json.code ?? 'BAD_REQUEST', json.msg ?? `HTTP ${res.status}`, json);
}

export default function Emoji() {
  const s = useStore().state!;
  const emoji = Object.values((s.reg.realm_emoji ?? {}) as Record<string, Emoji>).filter((e) => !e.deactivated).sort((a, b) => a.name.localeCompare(b.name));
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const [note, run] = useRunner();
  const admin = s.reg.is_admin === true;
  const authorOf = (e: Emoji) => e.author_id ?? e.author?.id ?? null;
  const add = async () => {
    if (!file) return;
    const n = name.trim();
    if (await run(() => upload(`/realm/emoji/${encodeURIComponent(n)}`, file), t('Custom emoji added.'))) {
      setName(''); setFile(null);
      if (input.current) input.current.value = '';
    }
  };
  return (
    <div class="admin-sections">
      <form class="admin-section" aria-labelledby="emoji-new-h" onSubmit={(e) => { e.preventDefault(); void add(); }}>
        <h3 id="emoji-new-h">{t('Add a new emoji')}</h3>
        <div class="admin-field"><label for="emoji-name">{t('Emoji name')}</label>
          <input id="emoji-name" value={name} placeholder="leafy_green_vegetable" onInput={(e) => setName(e.currentTarget.value)} /></div>
        <div class="admin-field"><label for="emoji-file">{t('Image (PNG, GIF or JPEG, square works best)')}</label>
          <input id="emoji-file" ref={input} type="file" accept="image/png,image/gif,image/jpeg,image/webp" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} /></div>
        <div class="row"><button type="submit" disabled={!file || name.trim() === ''}>{t('Add emoji')}</button></div>
        <Notice note={note} />
      </form>
      <section class="admin-section" aria-labelledby="emoji-h">
        <h3 id="emoji-h">{t('Custom emoji')}</h3>
        {emoji.length === 0 ? <p>{t('There are no custom emoji yet.')}</p> : (
          <ul class="admin-list">
            {emoji.map((e) => {
              const author = authorOf(e);
              const who = author === null ? t('Unknown author') : s.usersById.get(author)?.full_name ?? t('Unknown author');
              return (
                <li key={e.id}>
                  <img class="admin2-emoji" src={e.source_url} alt={`:${e.name}:`} width={25} height={25} />
                  <span class="admin-grow"><code>:{e.name}:</code><br /><span class="admin-hint">{t('Added by {name}', { name: who })}</span></span>
                  {(admin || author === s.me) && (
                    <ConfirmButton label={t('Delete')} aria={t('Delete :{name}:', { name: e.name })} question={t('Delete :{name}:?', { name: e.name })}
                      act={() => void run(() => del(`/realm/emoji/${encodeURIComponent(e.name)}`), t('Deleted'))} />
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}
