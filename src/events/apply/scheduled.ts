import type { ScheduledMessagesEvent } from '../kinds/scheduled.js';
import type { SavedSnippetsEvent } from '../kinds/saved-snippets.js';
import type { RegisterState } from './state.js';

/** As Zulip's register lists them: by delivery time (ties by id, the order they were stored in). */
export function applyScheduledMessages(state: RegisterState, e: ScheduledMessagesEvent): void {
  if (!state.scheduled_messages) return;
  let list = state.scheduled_messages;
  if (e.op === 'add') list = [...list, ...e.scheduled_messages];
  if (e.op === 'update') list = list.map((m) => (m.scheduled_message_id === e.scheduled_message.scheduled_message_id ? e.scheduled_message : m));
  if (e.op === 'remove') list = list.filter((m) => m.scheduled_message_id !== e.scheduled_message_id);
  state.scheduled_messages = list.sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id);
}

/** Register lists them in the order they were made. */
export function applySavedSnippets(state: RegisterState, e: SavedSnippetsEvent): void {
  if (!state.saved_snippets) return;
  if (e.op === 'add') state.saved_snippets = [...state.saved_snippets, e.saved_snippet].sort((a, b) => a.id - b.id);
  if (e.op === 'update') state.saved_snippets = state.saved_snippets.map((s) => (s.id === e.saved_snippet.id ? e.saved_snippet : s));
  if (e.op === 'remove') state.saved_snippets = state.saved_snippets.filter((s) => s.id !== e.saved_snippet_id);
}
