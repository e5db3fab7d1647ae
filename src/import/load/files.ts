/**
 * Copying an export's files into Parley's storage. Each copy is counted against the size the
 * export declares and the operator's bound; every key written is remembered so that a failed
 * import removes them again.
 */
import { Transform } from 'node:stream';
import { checkKey } from '../../uploads/storage.js';
import { imageSizeTap, type ImageSize } from '../../uploads/image-size.js';
import { ImportError, type FileKind, type FileRecord } from '../source.js';
import type { LoadState } from './state.js';

/** An upload's path_id in the new organization: the export's, under the new realm id (message links are rewritten alike). */
export function uploadKey(s: LoadState, sourcePathId: string): string {
  const prefix = `${s.sourceRealmId}/`;
  if (!sourcePathId.startsWith(prefix)) throw new ImportError(`the upload ${JSON.stringify(sourcePathId.slice(0, 200))} is not under the export's organization`);
  const key = `${s.realm.id}/${sourcePathId.slice(prefix.length)}`;
  try {
    checkKey(key);
  } catch {
    throw new ImportError(`the upload path ${JSON.stringify(sourcePathId.slice(0, 200))} is not a safe name`);
  }
  return key;
}

/**
 * The record of each file kind by the path_id it stands for. A streamed source adds records
 * as it gives chunks, and may start a new list for each (ImportSource.records): new records
 * are added to the index as they appear, and a new list starts a new index.
 */
export function recordFinder(s: LoadState, kind: FileKind): (pathId: string) => FileRecord | undefined {
  let list: FileRecord[] | undefined;
  let indexed = 0;
  let byPath = new Map<string, FileRecord>();
  return (pathId) => {
    const now = s.source.records[kind];
    if (now !== list || now.length < indexed) {
      list = now;
      indexed = 0;
      byPath = new Map();
    }
    for (; indexed < now.length; indexed++) {
      const r = now[indexed]!;
      byPath.set(r.s3_path ?? r.path, r);
    }
    return byPath.get(pathId);
  };
}

/** Copies one file to `key`; answers its size and, when asked, an image's pixel size. */
export async function copyFile(s: LoadState, kind: FileKind, record: FileRecord, key: string, contentType: string, sizeImage = false): Promise<{ size: number; image?: ImageSize | undefined }> {
  const body = await s.source.openFile(kind, record);
  let bytes = 0;
  const limit = s.opts.maxFileBytes;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limit) done(new ImportError(`${kind}/${record.path} is larger than ${limit} bytes`));
      else done(null, chunk);
    },
  });
  body.once('error', (err) => meter.destroy(err));
  const sizing = sizeImage ? imageSizeTap() : undefined;
  if (sizing) meter.once('error', (err) => sizing.tap.destroy(err));
  s.storedKeys.push(key);
  try {
    await s.ctx.storage.put(key, sizing ? body.pipe(meter).pipe(sizing.tap) : body.pipe(meter), { contentType });
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`could not copy ${kind}/${record.path}: ${(err as Error).message}`);
  }
  if (typeof record.size === 'number' && record.size !== bytes) {
    throw new ImportError(`${kind}/${record.path} holds ${bytes} bytes, not its declared ${record.size}`);
  }
  return { size: bytes, image: await sizing?.size() };
}

/** Removes what an import that failed stored. */
export async function removeStored(s: LoadState): Promise<void> {
  for (const key of s.storedKeys) {
    try {
      await s.ctx.storage.delete(key);
    } catch (err) {
      s.ctx.log.warn({ err, key }, 'could not remove a file of a failed import');
    }
  }
}
