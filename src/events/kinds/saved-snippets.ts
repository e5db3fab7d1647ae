/** The owner's saved snippets (Zulip's saved_snippets events, levels 297 and 368), to the owner's queues only. */
import type { WireSavedSnippet } from '../../presenters/saved-snippet.js';

export interface SavedSnippetsAddEvent { type: 'saved_snippets'; op: 'add'; saved_snippet: WireSavedSnippet }
export interface SavedSnippetsUpdateEvent { type: 'saved_snippets'; op: 'update'; saved_snippet: WireSavedSnippet }
export interface SavedSnippetsRemoveEvent { type: 'saved_snippets'; op: 'remove'; saved_snippet_id: number }
export type SavedSnippetsEvent = SavedSnippetsAddEvent | SavedSnippetsUpdateEvent | SavedSnippetsRemoveEvent;
