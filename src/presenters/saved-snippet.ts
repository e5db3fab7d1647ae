import type { WireSavedSnippet } from '../schemas/wire.js';

export interface SavedSnippetRow { id: number; title: string; content: string; date_created: number }

export type { WireSavedSnippet };

/** Zulip's SavedSnippet.to_api_dict. */
export function presentSavedSnippet(row: SavedSnippetRow): WireSavedSnippet {
  return { id: row.id, title: row.title, content: row.content, date_created: Number(row.date_created) };
}
