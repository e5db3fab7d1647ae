/**
 * Uploads and the messages that link them. A streamed source gives each chunk's attachments
 * with it; a Zulip export gives them all in realm.json, loaded once every message is in.
 */
import type { Tx } from '../../actions/transaction.js';
import { transact } from '../../actions/transaction.js';
import { attachments, type AttachmentRow } from '../../store/repos/attachments.js';
import { contentTypeOf } from '../../lib/uploads.js';
import { ImportError, type Row } from '../source.js';
import { copyFile, recordFinder, uploadKey } from './files.js';
import { field } from './ids.js';
import { tableOf, type LoadState } from './state.js';

const finders = new WeakMap<LoadState, ReturnType<typeof recordFinder>>();

interface CopiedAttachment { row: Omit<AttachmentRow, 'id'>; sourceMessages: unknown[] }

/** Copies the files of `rows`: done outside any transaction, which should only write rows. */
export async function copyAttachments(s: LoadState, rows: Row[]): Promise<CopiedAttachment[]> {
  const out: CopiedAttachment[] = [];
  for (const row of rows) {
    const where = `attachment ${JSON.stringify(row.id)}`;
    const sourcePath = field.str(row, 'path_id', where);
    const key = uploadKey(s, sourcePath);
    let find = finders.get(s);
    if (!find) finders.set(s, (find = recordFinder(s, 'uploads')));
    const record = find(sourcePath);
    if (!record) throw new ImportError(`${where}: uploads/records.json has no file for ${sourcePath}`);
    const fileName = field.str(row, 'file_name', where, sourcePath.split('/').pop() ?? 'file');
    // The type served comes from the name, as for uploads made here, never from the export.
    const contentType = contentTypeOf(fileName);
    const copied = await copyFile(s, 'uploads', record, key, contentType, contentType.startsWith('image/') && contentType !== 'image/svg+xml');
    out.push({
      row: {
        realm_id: s.realm.id, owner_id: s.users.get(row.owner, where), path_id: key, file_name: fileName, content_type: contentType,
        size: copied.size, create_time: field.time(row, 'create_time', s.realm.date_created),
        image_width: copied.image?.width ?? null, image_height: copied.image?.height ?? null,
      },
      sourceMessages: Array.isArray(row.messages) ? row.messages : [],
    });
  }
  return out;
}

/** The attachment rows, linked to the messages already loaded. */
export async function insertAttachments(tx: Tx, s: LoadState, copied: CopiedAttachment[]): Promise<void> {
  for (const a of copied) {
    const id = await attachments.insert(tx.db, a.row);
    const messageIds = new Set(a.sourceMessages.map((m) => s.messages.lookup(m)).filter((m): m is number => m !== undefined));
    for (const messageId of messageIds) await attachments.linkMessage(tx.db, [id], messageId);
  }
}

/** realm.json's attachments, after the messages they name. */
export async function loadRealmAttachments(s: LoadState): Promise<void> {
  const rows = tableOf(s, 'zerver_attachment');
  if (rows.length === 0) return;
  s.progress.phase('files', rows.length);
  for (let i = 0; i < rows.length; i += 100) {
    const slice = rows.slice(i, i + 100);
    const copied = await copyAttachments(s, slice);
    await transact(s.ctx, (tx) => insertAttachments(tx, s, copied));
    s.progress.tick(slice.length);
  }
  s.progress.done();
}
