import { PassThrough, Readable } from 'node:stream';
import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import type { UserRow } from '../store/rows.js';
import { transact } from './transaction.js';
import { attachments } from '../store/repos/attachments.js';
import { tusUploads, type TusUploadRow } from '../store/repos/tus-uploads.js';
import { notifyAttachment } from './attachment-upload.js';
import { contentTypeOf, newPathId } from '../lib/uploads.js';
import { nowSeconds } from '../lib/time.js';
import { imageSizeTap } from '../uploads/image-size.js';

/**
 * The tus protocol's uploads (/api/v1/tus, feature level 295), as Zulip's tusd hooks treat
 * them (zerver/views/tusd.py): created with a known length, received piece by piece, and
 * when the last byte arrives made an attachment like POST /user_uploads'.
 */

/** Where a piece of an unfinished upload waits: under the realm, never a path id a message can link. */
const chunkKey = (u: Pick<TusUploadRow, 'realm_id' | 'id'>, offset: number) => `${u.realm_id}/tus/${u.id}/${offset}`;

/** Zulip stores "Save as…"-friendly names: nothing, "." and ".." become uploaded-file. */
export function tusFileName(requested: string | undefined): string {
  return requested === undefined || requested === '' || requested === '.' || requested === '..' ? 'uploaded-file' : requested;
}

export async function createTusUpload(ctx: AppContext, user: UserRow, length: number, meta: { filename?: string | undefined; filetype?: string | undefined }): Promise<TusUploadRow> {
  const fileName = tusFileName(meta.filename);
  const row = {
    id: crypto.randomBytes(18).toString('base64url'), realm_id: user.realm_id, user_id: user.id, file_name: fileName,
    // Zulip: the client's declared type, else one guessed from the name.
    content_type: meta.filetype || contentTypeOf(fileName), length, create_time: nowSeconds(),
  };
  await tusUploads.insert(ctx.store.db, row);
  return { ...row, received: 0, chunks: '[]', path_id: null };
}

export type AppendResult = { kind: 'conflict' } | { kind: 'partial'; received: number } | { kind: 'done'; url: string; filename: string };

/** One PATCH: the bytes at `offset`, which must be where the upload stands; the last ones finish it. */
export async function appendTusChunk(ctx: AppContext, user: UserRow, upload: TusUploadRow, offset: number, body: Buffer): Promise<AppendResult> {
  if (offset !== upload.received) return { kind: 'conflict' };
  let current = upload;
  if (body.length > 0) {
    const key = chunkKey(upload, offset);
    await ctx.storage.put(key, Readable.from([body]), { contentType: 'application/octet-stream' });
    const chunks = JSON.stringify([...(JSON.parse(upload.chunks) as number[]), offset]);
    const received = offset + body.length;
    if (!(await tusUploads.advance(ctx.store.db, upload.id, offset, received, chunks))) {
      await ctx.storage.delete(key);
      return { kind: 'conflict' };
    }
    current = { ...upload, received, chunks };
  }
  if (current.received < current.length) return { kind: 'partial', received: current.received };
  return finishTusUpload(ctx, user, current);
}

/** The pieces joined into the attachment's file, the attachment recorded and told of; the pieces removed. */
export async function finishTusUpload(ctx: AppContext, user: UserRow, upload: TusUploadRow): Promise<AppendResult> {
  if (upload.path_id !== null) return { kind: 'done', url: `/user_uploads/${upload.path_id}`, filename: upload.file_name };
  const offsets = JSON.parse(upload.chunks) as number[];
  const pathId = newPathId(upload.realm_id, upload.file_name);
  const joined = new PassThrough();
  void (async () => {
    try {
      for (const offset of offsets) {
        const piece = await ctx.storage.get(chunkKey(upload, offset));
        if (!piece) throw new Error(`tus upload ${upload.id}: piece at ${offset} is missing`);
        for await (const bytes of piece) joined.write(bytes as Buffer);
      }
      joined.end();
    } catch (err) {
      joined.destroy(err as Error);
    }
  })();
  const isImage = upload.content_type.startsWith('image/') && upload.content_type !== 'image/svg+xml';
  const sizing = isImage ? imageSizeTap() : undefined;
  if (sizing) joined.once('error', (err) => sizing.tap.destroy(err));
  const size = await ctx.storage.put(pathId, sizing ? joined.pipe(sizing.tap) : joined, { contentType: upload.content_type });
  const image = await sizing?.size();
  let won = false;
  try {
    await transact(ctx, async (tx) => {
      won = await tusUploads.finish(tx.db, upload.id, pathId);
      if (!won) return;
      const row = {
        realm_id: user.realm_id, owner_id: user.id, path_id: pathId, file_name: upload.file_name, content_type: upload.content_type,
        size, create_time: nowSeconds(), image_width: image?.width ?? null, image_height: image?.height ?? null,
      };
      const id = await attachments.insert(tx.db, row);
      await notifyAttachment(tx, { id, ...row }, 'add');
    });
  } catch (err) {
    await ctx.storage.delete(pathId);
    throw err;
  }
  if (!won) {
    // Another request finished it meanwhile: its file is the one.
    await ctx.storage.delete(pathId);
    const winner = await tusUploads.findOwn(ctx.store.db, upload.id, user.id);
    return { kind: 'done', url: `/user_uploads/${winner?.path_id ?? pathId}`, filename: upload.file_name };
  }
  for (const offset of offsets) await ctx.storage.delete(chunkKey(upload, offset));
  return { kind: 'done', url: `/user_uploads/${pathId}`, filename: upload.file_name };
}

/** The tus termination extension: the upload and its pieces gone (a finished upload's attachment stays). */
export async function deleteTusUpload(ctx: AppContext, upload: TusUploadRow): Promise<void> {
  await tusUploads.delete(ctx.store.db, upload.id);
  if (upload.path_id === null) for (const offset of JSON.parse(upload.chunks) as number[]) await ctx.storage.delete(chunkKey(upload, offset));
}
