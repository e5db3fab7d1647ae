import type { WireScheduledMessage } from '../schemas/wire.js';

/** A stored scheduled message as its endpoints, register and events show it (Zulip's ScheduledMessage.to_dict). */
export interface ScheduledMessageRow {
  id: number;
  type: 'stream' | 'private';
  stream_id: number | null;
  /** A private one's `to`, JSON, fixed when it was scheduled or edited. */
  recipient: string;
  topic: string;
  content: string;
  rendered_content: string;
  scheduled_timestamp: number;
  failed: number;
}

export type { WireScheduledMessage };

export function presentScheduledMessage(row: ScheduledMessageRow): WireScheduledMessage {
  const common = {
    scheduled_message_id: row.id, content: row.content, rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: Number(row.scheduled_timestamp), failed: row.failed === 1,
  };
  return row.type === 'stream'
    ? { ...common, type: 'stream', to: row.stream_id!, topic: row.topic }
    : { ...common, type: 'private', to: JSON.parse(row.recipient) as number[] };
}
