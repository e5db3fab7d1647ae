import crypto from 'node:crypto';

/**
 * Upload naming and typing, as Zulip 5's zerver/lib/upload.py: a file is stored under
 * `<realm_id>/<random>/<sanitized name>` (its path id, also its URL tail under
 * /user_uploads/), and served inline only when its type is one a browser shows safely.
 */

/** Zulip's sanitize_name: NFKC, only word characters, spaces, dots and dashes, runs of spaces and dashes as one dash. */
export function sanitizeFileName(name: string): string {
  const cleaned = name.normalize('NFKC').replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim().replace(/[-\s]+/g, '-');
  // Zulip refuses these outright; a name that cleans to nothing still deserves a file.
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'uploaded-file' : cleaned;
}

/** A new path id: 18 random bytes in URL-safe base64 (Zulip's secrets.token_urlsafe(18)) between realm and name. */
export function newPathId(realmId: number, fileName: string): string {
  return `${realmId}/${crypto.randomBytes(18).toString('base64url')}/${sanitizeFileName(fileName)}`;
}

const TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp',
  svg: 'image/svg+xml', tif: 'image/tiff', tiff: 'image/tiff', ico: 'image/vnd.microsoft.icon', pdf: 'application/pdf',
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', htm: 'text/html', json: 'application/json',
  xml: 'text/xml', zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar', mp3: 'audio/mpeg',
  ogg: 'audio/ogg', wav: 'audio/x-wav', mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** The type a name's extension stands for (Python's guess_type, for the common ones); octet-stream otherwise. */
export function contentTypeOf(fileName: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return (ext !== undefined ? TYPES[ext] : undefined) ?? 'application/octet-stream';
}

/**
 * Zulip's INLINE_MIME_TYPES: shown in the browser; everything else is served as an
 * attachment (never inline HTML, SVG or XML from a user: that would be cross-site scripting).
 */
const INLINE = new Set(['application/pdf', 'image/gif', 'image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'video/webm']);
export const servedInline = (contentType: string): boolean => INLINE.has(contentType);

/** A Content-Disposition naming the file (RFC 6266: an ASCII fallback and the UTF-8 name). */
export function contentDisposition(inline: boolean, fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * The path ids a message's content links (Zulip collects them from the rendered links);
 * relative `/user_uploads/...` or under any host. Cheap when there is none: callers test
 * `content.includes('/user_uploads/')` first.
 */
export function uploadPathIds(content: string): string[] {
  const out = new Set<string>();
  for (const m of content.matchAll(/\/user_uploads\/(\d+\/[^\s()<>"'\]\\[]+)/g)) {
    let id = m[1]!.replace(/[.,;:!?]+$/, '');
    try {
      id = decodeURIComponent(id);
    } catch {
      /* a malformed escape: keep it as typed */
    }
    out.add(id);
  }
  return [...out];
}

/** Zulip's DEFAULT_AVATAR_SIZE and MEDIUM_AVATAR_SIZE: the avatar beside messages, and the `-medium` one (also the gravatar size asked for it). */
export const DEFAULT_AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;
