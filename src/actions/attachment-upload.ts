import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact } from './transaction.js';
import type { Q, UserRow } from '../store/rows.js';
import { attachments, type AttachmentRow } from '../store/repos/attachments.js';
import { presentAttachment } from '../presenters/attachment.js';
import { contentTypeOf, newPathId } from '../lib/uploads.js';
import { nowSeconds } from '../lib/time.js';
import { invalidAttachment, uploadNoFile, uploadOneFileOnly, uploadTooLarge } from '../errors.js';
import { fitsIdColumn } from '../lib/ids.js';
import { imageSizeTap, type ImageSize } from '../uploads/image-size.js';

/** One file part of a multipart request, read as it arrives. */
export interface IncomingFile {
  filename: string;
  /** The part's declared Content-Type, when it had one. */
  contentType?: string | undefined;
  stream: Readable;
  /** True once the stream ended early because the part passed the size limit. */
  truncated(): boolean;
}

/** Drains a part nobody will keep, so that the parts after it can be read. */
export async function discard(file: IncomingFile): Promise<void> {
  file.stream.resume();
  if (!file.stream.readableEnded) await new Promise<void>((resolve) => { file.stream.once('end', resolve); file.stream.once('close', resolve); });
}

/**
 * POST /user_uploads (Zulip 5's upload_file_backend). The file streams straight to storage
 * (the limit is enforced by the multipart parser, which stops the part at `maxMib`), so a
 * large upload is never held in memory. Zulip checks the number of files before storing
 * anything; a stream cannot know ahead, so a second file is drained and the first removed.
 * Answers the file's URI.
 */
export async function uploadFile(ctx: AppContext, user: UserRow, files: AsyncIterable<IncomingFile>, maxMib: number): Promise<{ url: string; fileName: string }> {
  let stored: { pathId: string; fileName: string; contentType: string; size: number; image?: ImageSize | undefined } | undefined;
  let tooLarge = false;
  let extra = false;
  for await (const file of files) {
    if (stored || tooLarge) {
      extra = true;
      await discard(file);
      continue;
    }
    const fileName = file.filename || 'uploaded-file';
    const pathId = newPathId(user.realm_id, fileName);
    const contentType = contentTypeOf(fileName);
    // An image's first bytes are kept on the way to storage for its pixel size (image previews' data-original-dimensions).
    const sizing = contentType.startsWith('image/') && contentType !== 'image/svg+xml' ? imageSizeTap() : undefined;
    if (sizing) file.stream.once('error', (err) => sizing.tap.destroy(err));
    const size = await ctx.storage.put(pathId, sizing ? file.stream.pipe(sizing.tap) : file.stream, { contentType });
    if (file.truncated()) {
      tooLarge = true;
      await ctx.storage.delete(pathId);
      continue;
    }
    stored = { pathId, fileName, contentType, size, image: await sizing?.size() };
  }
  if (extra) {
    if (stored) await ctx.storage.delete(stored.pathId);
    throw uploadOneFileOnly();
  }
  if (tooLarge) throw uploadTooLarge(maxMib);
  if (!stored) throw uploadNoFile();
  const s = stored;
  try {
    await transact(ctx, async (tx) => {
      const row = {
        realm_id: user.realm_id, owner_id: user.id, path_id: s.pathId, file_name: s.fileName, content_type: s.contentType,
        size: s.size, create_time: nowSeconds(), image_width: s.image?.width ?? null, image_height: s.image?.height ?? null,
      };
      const id = await attachments.insert(tx.db, row);
      await notifyAttachment(tx, { id, ...row }, 'add');
    });
  } catch (err) {
    await ctx.storage.delete(s.pathId);
    throw err;
  }
  return { url: `/user_uploads/${s.pathId}`, fileName: s.fileName };
}

/** Zulip's notify_attachment_update, to the file's owner, with the organization's space used. */
export async function notifyAttachment(tx: Tx, a: AttachmentRow, op: 'add' | 'update'): Promise<void> {
  const messages = await attachments.listMessages(tx.db, [a.id]);
  tx.notify({ type: 'attachment', op, attachment: presentAttachment(a, messages), upload_space_used: await attachments.sumSizeOfRealm(tx.db, a.realm_id) },
    [a.owner_id], a.realm_id);
}

/** An attachment of the user's own, or Zulip's "Invalid attachment". */
async function accessOwnAttachment(q: Q, user: UserRow, id: number): Promise<AttachmentRow> {
  const a = fitsIdColumn(id) ? await attachments.findById(q, id) : undefined;
  if (!a || a.owner_id !== user.id) throw invalidAttachment();
  return a;
}

/**
 * DELETE /attachments/{id}: the owner removes the file, its links and its bytes. Messages
 * that linked it keep their text; the link answers 404 from then on, as in Zulip.
 */
export async function deleteAttachment(ctx: AppContext, user: UserRow, id: number): Promise<void> {
  const a = await accessOwnAttachment(ctx.store.db, user, id);
  await transact(ctx, async (tx) => {
    if (!(await attachments.delete(tx.db, a.id))) throw invalidAttachment();
    tx.notify({ type: 'attachment', op: 'remove', attachment: { id: a.id }, upload_space_used: await attachments.sumSizeOfRealm(tx.db, a.realm_id) },
      [a.owner_id], a.realm_id);
  });
  await ctx.storage.delete(a.path_id);
}
