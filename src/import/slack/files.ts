/**
 * Message files, as Zulip's process_message_files: a file Slack hosts (files.slack.com)
 * becomes an attachment row, an uploads record and a link to /user_uploads/<path_id>; a file
 * linked from elsewhere (Google Drive...) stays a link. The bytes are read only when the
 * loader opens the record: from the export folder when it holds the file, else from Slack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import { newPathId } from '../../lib/uploads.js';
import { ImportError, type FileRecord, type Row } from '../source.js';
import type { ReadableStream as WebStream } from 'node:stream/web';
import { optStr, seconds, type Obj } from './json.js';

/** Where a record's bytes are: a file in the export, or a URL (Slack's, read with the token). */
export type FileOrigin = { local: string } | { url: string };

export interface MessageFiles {
  links: string[];
  hasAttachment: boolean;
  hasImage: boolean;
  hasLink: boolean;
  attachments: Row[];
  records: FileRecord[];
}

export interface FileContext {
  dir: string;
  realmId: number;
  origins: Map<string, FileOrigin>;
  nextAttachmentId: () => number;
}

const SKIPPED_MODES = ['tombstone', 'hidden_by_limit'];
const SKIPPED_ACCESS = ['access_denied', 'file_not_found'];

/**
 * The copy of a file an export may carry (slackdump's layouts): `__uploads/<file id>/<name>`,
 * or `<conversation>/attachments/<file id>-<name>`. Only plain names are joined, so nothing
 * leaves the export folder.
 */
async function localCopy(dir: string, folder: string, fileId: string, name: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]+$/.test(fileId) || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) return undefined;
  for (const candidate of [path.join(dir, '__uploads', fileId, name), path.join(dir, folder, 'attachments', `${fileId}-${name}`)]) {
    const st = await fs.promises.stat(candidate).catch(() => undefined);
    if (st?.isFile()) return candidate;
  }
  return undefined;
}

export async function convertFiles(
  message: Obj, folder: string, messageId: number, ownerId: number, ownerEmail: string, isRealmPublic: boolean, ctx: FileContext,
): Promise<MessageFiles> {
  const out: MessageFiles = { links: [], hasAttachment: false, hasImage: false, hasLink: false, attachments: [], records: [] };
  const raw = message.subtype === 'file_share' && message.file !== undefined ? [message.file] : Array.isArray(message.files) ? message.files : [];
  for (const f of raw as unknown[]) {
    if (typeof f !== 'object' || f === null) continue;
    const file = f as Obj;
    if (SKIPPED_MODES.includes(optStr(file, 'mode') ?? '') || SKIPPED_ACCESS.includes(optStr(file, 'file_access') ?? '')) continue;
    const url = optStr(file, 'url_private');
    if (url === undefined) continue;
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      continue;
    }
    const name = optStr(file, 'name') ?? 'file';
    const title = optStr(file, 'title') ?? name;
    out.hasLink = true;
    if (host !== 'files.slack.com') {
      out.links.push(`[${title}](${url})`);
      continue;
    }
    const mimetype = optStr(file, 'mimetype') ?? null;
    const size = seconds(file.size);
    if (size === undefined || size < 0) throw new ImportError(`Slack export: ${folder}: file ${optStr(file, 'id') ?? name} has no size`);
    out.hasAttachment = true;
    out.hasImage = out.hasImage || (mimetype ?? '').includes('image');
    const pathId = newPathId(ctx.realmId, name);
    out.links.push(`[${title}](/user_uploads/${pathId})`);
    const local = await localCopy(ctx.dir, folder, optStr(file, 'id') ?? '', name);
    ctx.origins.set(pathId, local ? { local } : { url });
    out.records.push({
      path: pathId, s3_path: pathId, realm_id: ctx.realmId, user_profile_id: ownerId, user_profile_email: ownerEmail,
      size, content_type: mimetype, last_modified: seconds(file.timestamp) ?? seconds(file.created) ?? 0,
    });
    out.attachments.push({
      id: ctx.nextAttachmentId(), realm: ctx.realmId, owner: ownerId, messages: [messageId], path_id: pathId, file_name: name,
      size, create_time: seconds(file.created) ?? 0, content_type: mimetype, is_realm_public: isRealmPublic, is_web_public: false,
    });
  }
  return out;
}

/** Fails the stream once more bytes pass than allowed. */
function capped(limit: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) done(new ImportError(`${what} is bigger than ${limit} bytes`));
      else done(null, chunk);
    },
  });
}

export interface OpenOptions { token?: string; fetch: typeof globalThis.fetch; maxFileBytes: number }

/** Slack serves private files and avatars only to its API token; other hosts never see it. */
const isSlackHost = (url: string) => /(^|\.)(slack\.com|slack-edge\.com)$/.test(new URL(url).hostname);

export async function openOrigin(origin: FileOrigin, declared: number | undefined, what: string, opts: OpenOptions): Promise<Readable> {
  if (declared !== undefined && declared > opts.maxFileBytes) {
    throw new ImportError(`${what} is ${declared} bytes, more than the ${opts.maxFileBytes} allowed`);
  }
  const limit = Math.min(declared ?? Infinity, opts.maxFileBytes);
  if ('local' in origin) {
    const st = await fs.promises.stat(origin.local).catch(() => undefined);
    if (!st?.isFile()) throw new ImportError(`${what} is missing from the export`);
    if (st.size > limit) throw new ImportError(`${what} is ${st.size} bytes, more than the ${limit} declared or allowed`);
    return pipeline(fs.createReadStream(origin.local), capped(limit, what), () => {});
  }
  const headers: Record<string, string> = {};
  if (opts.token && isSlackHost(origin.url)) headers.Authorization = `Bearer ${opts.token}`;
  let res: Response;
  try {
    res = await opts.fetch(origin.url, { headers });
  } catch (e) {
    throw new ImportError(`${what}: fetching ${origin.url} failed (${(e as Error).message})`);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new ImportError(`${what}: fetching ${origin.url} answered HTTP ${res.status}`);
  }
  const length = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(length) && length > limit) {
    await res.body.cancel();
    throw new ImportError(`${what}: ${origin.url} is ${length} bytes, more than the ${limit} declared or allowed`);
  }
  return pipeline(Readable.fromWeb(res.body as WebStream), capped(limit, what), () => {});
}
