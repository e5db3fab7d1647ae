import type { AttachmentRow } from '../rows.js';
import type { WireAttachment } from '../schemas/wire.js';

/** Zulip 5's Attachment.to_dict: times are JavaScript milliseconds. */
export function presentAttachment(a: Pick<AttachmentRow, 'id' | 'file_name' | 'path_id' | 'size' | 'create_time'>,
  messages: Array<{ message_id: number; date_sent: number }>): WireAttachment {
  return {
    id: a.id, name: a.file_name, path_id: a.path_id, size: a.size, create_time: a.create_time * 1000,
    messages: messages.map((m) => ({ id: m.message_id, date_sent: m.date_sent * 1000 })),
  };
}
