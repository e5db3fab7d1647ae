import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { AttachmentRow, Q, UserRow } from '../store/rows.js';
import { attachments } from '../store/repos/attachments.js';
import { mayAccessAttachment } from '../access/attachment.js';
import { presentAttachment } from '../presenters/attachment.js';
import type { WireAttachment } from '../events/types.js';

/** GET /attachments: the user's own files with the messages linking them, and the organization's space used (Zulip 5). */
export async function userAttachments(q: Q, user: UserRow): Promise<{ attachments: WireAttachment[]; upload_space_used: number }> {
  const own = await attachments.listByOwner(q, user.id);
  const links = await attachments.listMessages(q, own.map((a) => a.id));
  return {
    attachments: own.map((a) => presentAttachment(a, links.filter((l) => l.attachment_id === a.id))),
    upload_space_used: await attachments.sumSizeOfRealm(q, user.realm_id),
  };
}

export type UploadRead =
  | { kind: 'file'; attachment: AttachmentRow; body: Readable }
  | { kind: 'missing' }
  | { kind: 'forbidden' };

/**
 * GET /user_uploads/<path_id> (Zulip's serve_file_backend): unknown files are missing,
 * files the user may not see are forbidden (validate_attachment_request's None and False).
 * A file of another organization is missing, not forbidden: its existence is not told.
 */
export async function readUpload(ctx: AppContext, user: UserRow, pathId: string): Promise<UploadRead> {
  const a = await attachments.findByPathId(ctx.store.db, pathId);
  if (!a || a.realm_id !== user.realm_id) return { kind: 'missing' };
  if (!(await mayAccessAttachment(ctx.store.db, user, a, ctx.config.featureLevel))) return { kind: 'forbidden' };
  const body = await ctx.storage.get(a.path_id);
  return body ? { kind: 'file', attachment: a, body } : { kind: 'missing' };
}
