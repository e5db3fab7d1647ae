/**
 * Uploading a file for a message (POST /json/user_uploads), with progress: XMLHttpRequest's
 * upload events, which fetch cannot give for a request body. The answer names the file's
 * /user_uploads/... path (`url` from feature level 272, `uri` before and still).
 */
import { csrfToken } from '../api';
import { t } from '../i18n';

export type UploadResult = { url: string; name: string };

export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.open('POST', '/json/user_uploads');
    xhr.setRequestHeader('X-CSRFToken', csrfToken());
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total); };
    xhr.onerror = () => reject(new Error(t('Could not upload {name}: the server did not answer.', { name: file.name })));
    xhr.onload = () => {
      let body: { result?: string; msg?: string; uri?: string; url?: string; filename?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // An HTML error page (a proxy's size limit, say): fall through to the status.
      }
      const url = body.url ?? body.uri;
      if (xhr.status >= 200 && xhr.status < 300 && body.result === 'success' && url) {
        onProgress(1);
        resolve({ url, name: body.filename ?? file.name });
      } else reject(new Error(body.msg ?? t('Could not upload {name} (HTTP {status}).', { name: file.name, status: xhr.status })));
    };
    xhr.send(form);
  });
}

/** Zulip's link for a file: its name, without the brackets that would end the link text. */
export const uploadLink = (name: string, url: string): string => `[${name.replace(/[[\]]/g, '')}](${url})`;

/** The placeholder that stands at the cursor while the file uploads (Zulip's "[Uploading name…]()"). */
export const uploadPlaceholder = (name: string, n: number): string => `[${t('Uploading {name}…', { name })}${n > 1 ? ` (${n})` : ''}]()`;
