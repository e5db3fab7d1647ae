import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact } from './transaction.js';
import type { Q, UserRow } from '../store/rows.js';
import { attachments, type AttachmentRow } from '../store/repos/attachments.js';
import { mayAccessAttachment } from '../access/attachment.js';
import { uploadPathIds } from '../lib/uploads.js';
import { notifyAttachment } from './attachment-upload.js';
import { presentAttachment } from '../presenters/attachment.js';
import type { WireAttachment } from '../schemas/wire.js';

/**
 * Which uploaded files a message links (Zulip's do_claim_attachments and
 * check_attachment_reference_change). A link counts only when the sender may fetch the file
 * themselves: one cannot open someone's private file to a stream by pasting its URL.
 * Deleting a message drops its links (the foreign key's cascade, migration 022); a file no
 * message links is unclaimed, Zulip's "collectable" state (listUnclaimed).
 */
async function linkableFiles(q: Q, sender: UserRow, content: string): Promise<AttachmentRow[]> {
  if (!content.includes('/user_uploads/')) return [];
  const found = await attachments.listByPathIds(q, sender.realm_id, uploadPathIds(content));
  const out: AttachmentRow[] = [];
  for (const a of found) if (await mayAccessAttachment(q, sender, a)) out.push(a);
  return out;
}

/** After a send: links the files the new message names; the owners hear an `update`. */
export async function claimAttachments(ctx: AppContext, sender: UserRow, messageId: number, content: string): Promise<void> {
  const files = await linkableFiles(ctx.store.db, sender, content);
  if (files.length === 0) return;
  await transact(ctx, async (tx) => {
    await attachments.linkMessage(tx.db, files.map((a) => a.id), messageId);
    for (const a of files) await notifyAttachment(tx, a, 'update');
  });
}

/**
 * Inside an edit's transaction: the links follow the new content, added and removed.
 * Answers the files the edit detached (Zulip's check_attachment_reference_change): the
 * sender's own that it unlinked and that no message links any more.
 */
export async function relinkAttachments(tx: Tx, sender: UserRow, messageId: number, oldContent: string, newContent: string): Promise<WireAttachment[]> {
  if (!oldContent.includes('/user_uploads/') && !newContent.includes('/user_uploads/')) return [];
  const before = new Set(await attachments.listIdsOfMessage(tx.db, messageId));
  const now = await linkableFiles(tx.db, sender, newContent);
  const nowIds = new Set(now.map((a) => a.id));
  const removed = [...before].filter((id) => !nowIds.has(id));
  const added = now.filter((a) => !before.has(a.id));
  await attachments.unlinkMessage(tx.db, removed, messageId);
  await attachments.linkMessage(tx.db, added.map((a) => a.id), messageId);
  for (const a of added) await notifyAttachment(tx, a, 'update');
  const detached: WireAttachment[] = [];
  for (const id of removed) {
    const a = await attachments.findById(tx.db, id);
    if (!a) continue;
    await notifyAttachment(tx, a, 'update');
    if (a.owner_id === sender.id && (await attachments.listMessageIds(tx.db, a.id)).length === 0) detached.push(presentAttachment(a, []));
  }
  return detached;
}
