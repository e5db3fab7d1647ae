import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FileKind, FileRecord } from '../source.js';
import { ImportError } from '../source.js';
import { contentTypeOf, sanitizeFileName } from '../../lib/uploads.js';

/**
 * The files an export names: attachments under `data/` (a post's `attachments[].path`) and
 * custom emoji images (an emoji line's `image`, relative to the export). Each is checked
 * when the source opens (inside the export, present, a regular file, within the size
 * limit), so that a missing file fails the import before anything is written.
 */

export interface SourceFile {
  absolute: string;
  size: number;
  mtime: number;
}

export function statInside(root: string, relative: string, what: string, maxBytes: number): SourceFile {
  if (relative === '' || path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) {
    throw new ImportError(`${what}: "${relative}" is not a path inside the export`);
  }
  const absolute = path.resolve(root, relative);
  if (!absolute.startsWith(path.resolve(root) + path.sep)) throw new ImportError(`${what}: "${relative}" is not a path inside the export`);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(absolute);
  } catch {
    throw new ImportError(`${what}: the file "${relative}" is missing from the export`);
  }
  if (!st.isFile()) throw new ImportError(`${what}: "${relative}" is not a regular file`);
  if (st.size > maxBytes) throw new ImportError(`${what}: "${relative}" is ${st.size} bytes, more than the limit of ${maxBytes}`);
  return { absolute, size: st.size, mtime: st.mtimeMs / 1000 };
}

/**
 * An attachment's path id, as Zulip's converter lays uploads out (`<realm>/<xx>/<random>/<name>`).
 * The random part is a keyed hash of where the attachment is in export.json, so that the
 * second pass finds the same id without the first keeping a table of them.
 */
export function attachmentPathId(key: Buffer, offset: number, reply: number, index: number, fileName: string): string {
  const digest = crypto.createHmac('sha256', key).update(`${offset}:${reply}:${index}`).digest();
  return ['1', digest[0]!.toString(16), digest.subarray(1, 19).toString('base64url'), sanitizeFileName(fileName)].join('/');
}

export const baseName = (p: string): string => p.split('/').pop() ?? p;

const IMAGE_EXTENSIONS = new Set(['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp']);
export const isImage = (fileName: string): boolean => IMAGE_EXTENSIONS.has(path.extname(fileName).toLowerCase());

/** Where each record's bytes are, and openFile over them. */
export class FileStore {
  private readonly sources = new Map<FileKind, Map<string, SourceFile>>();

  add(kind: FileKind, record: FileRecord, source: SourceFile): void {
    let ofKind = this.sources.get(kind);
    if (!ofKind) this.sources.set(kind, (ofKind = new Map()));
    ofKind.set(record.path, source);
  }

  /** Forgets every file of a kind: a chunk's uploads once copied. */
  forget(kind: FileKind): void {
    this.sources.delete(kind);
  }

  async open(kind: FileKind, record: FileRecord): Promise<Readable> {
    const source = this.sources.get(kind)?.get(record.path);
    if (!source) throw new ImportError(`${kind}: no file "${record.path}" in this export`);
    const st = await fs.promises.stat(source.absolute).catch(() => undefined);
    if (!st) throw new ImportError(`${kind}: the file for "${record.path}" is missing`);
    if (st.size > source.size) throw new ImportError(`${kind}: the file for "${record.path}" is bigger than declared`);
    return fs.createReadStream(source.absolute);
  }
}

export { contentTypeOf };
