import type { WireDraft } from '../schemas/wire.js';

/** A stored draft as the drafts endpoints, register and drafts events show it. */
export interface DraftRow {
  id: number;
  type: '' | 'stream' | 'private';
  /** JSON text of `to`, fixed when the draft was written. */
  recipient: string;
  topic: string;
  content: string;
  last_edit_time: number;
}

export type { WireDraft };

export function presentDraft(row: DraftRow): WireDraft {
  return {
    id: row.id, type: row.type, to: JSON.parse(row.recipient) as number[], topic: row.topic, content: row.content,
    timestamp: Number(row.last_edit_time),
  };
}
