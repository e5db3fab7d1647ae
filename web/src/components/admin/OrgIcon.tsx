/**
 * The organization icon, as Zulip's "Organization profile" shows it: the current picture,
 * Upload (POST /realm/icon, one image of at most register's max_icon_file_size_mib) and,
 * for an uploaded one, Remove (DELETE /realm/icon: back to the default). The realm
 * update_dict `icon` event brings the new URL to register's realm_icon_url.
 */
import { useRef } from 'preact/hooks';
import { ApiError, csrfToken, del } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { Notice, useRunner } from './common';
import './admin-icon.css';

/** One file as multipart (what POST /realm/icon takes); the server's refusal as an ApiError. */
async function uploadIcon(file: File): Promise<void> {
  const body = new FormData();
  body.append('file', file, file.name);
  const res = await fetch('/json/realm/icon', { method: 'POST', body, credentials: 'same-origin', headers: { 'X-CSRFToken': csrfToken(), Accept: 'application/json' } });
  const json = (await res.json().catch(() => ({}))) as { result?: string; msg?: string; code?: string };
  if (json.result !== 'success') throw new ApiError(res.status, json.code ?? 'BAD_REQUEST', json.msg ?? `HTTP ${res.status}`, json);
}

export default function OrgIcon() {
  const reg = useStore().state!.reg;
  const url = String(reg.realm_icon_url ?? '');
  const uploaded = reg.realm_icon_source === 'U';
  const maxMib = typeof reg.max_icon_file_size_mib === 'number' ? reg.max_icon_file_size_mib : 5;
  const input = useRef<HTMLInputElement>(null);
  const [note, run] = useRunner();
  const chosen = (file: File | undefined) => {
    if (!file) return;
    void run(() => uploadIcon(file), t('Organization icon uploaded.')).finally(() => { if (input.current) input.current.value = ''; });
  };
  return (
    <section class="admin-section" aria-labelledby="org-icon-h">
      <h3 id="org-icon-h">{t('Organization icon')}</h3>
      <div class="org-icon-row">
        {url && <img class="org-icon-preview" src={url} alt={t('Organization icon')} width={64} height={64} />}
        <div class="org-icon-actions">
          <p class="admin-hint">{t('A square image of at most {size} MiB, shown beside the organization name.', { size: maxMib })}</p>
          <div class="row">
            <input id="org-icon-file" class="visually-hidden" ref={input} type="file" accept="image/png,image/gif,image/jpeg,image/webp"
              onChange={(e) => chosen(e.currentTarget.files?.[0])} />
            <label class="org-icon-upload button-like" for="org-icon-file">{t('Upload icon')}</label>
            {uploaded && <button type="button" class="danger" onClick={() => void run(() => del('/realm/icon'), t('Organization icon removed.'))}>{t('Remove icon')}</button>}
          </div>
        </div>
      </div>
      <Notice note={note} />
    </section>
  );
}
