import type { AttachmentRow, Q, UserRow } from '../store/rows.js';
import { attachments } from '../store/repos/attachments.js';
import { accessMessage } from './message.js';
import { ApiError } from '../errors.js';

/**
 * Whether the user may fetch an uploaded file: Zulip's validate_attachment_request. Its
 * uploader may; anyone else only through a message that links it and that they may read
 * (received it, or a stream's shared history they can read: a public stream for members,
 * a private one with shared history they are subscribed to). The access rules are
 * accessMessage's, so a file follows its messages when they move (and, from level 354, is
 * open to the members of a private stream's content-granting groups).
 */
export async function mayAccessAttachment(q: Q, user: UserRow, attachment: AttachmentRow, featureLevel = 0): Promise<boolean> {
  if (attachment.realm_id !== user.realm_id) return false;
  if (attachment.owner_id === user.id) return true;
  for (const messageId of await attachments.listMessageIds(q, attachment.id)) {
    try {
      await accessMessage(q, user, messageId, featureLevel);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return false;
}
