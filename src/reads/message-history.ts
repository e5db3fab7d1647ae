import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { accessMessage } from '../access/message.js';
import { badRequest } from '../errors.js';
import { emptyTopicsNamed } from '../presenters/message.js';
import { realmSettings } from '../lib/realm-settings.js';

type Entry = Record<string, unknown>;

/**
 * GET /messages/{id}/history: every version of the message, oldest first (Zulip's
 * fill_edit_history_entries). The stored history is newest first and records what each
 * edit replaced, so the versions are rebuilt walking back from the current one.
 */
export async function messageHistory(q: Q, realm: RealmRow, viewer: UserRow, messageId: number, allowEmptyTopicName = true,
  featureLevel = 0): Promise<Entry[]> {
  // Level 358: "none" hides the history (allow_edit_history false before it, kept equal).
  const policy = realmSettings(realm.settings).message_edit_history_visibility_policy;
  if (policy === 'none' || !realmSettings(realm.settings).allow_edit_history) throw badRequest('Message edit history is disabled in this organization');
  // Level 354: the members of a private stream's content-granting groups read it (shared history);
  // from 360 an archived stream's messages too, as Zulip's access_message for reading.
  const { message } = await accessMessage(q, viewer, messageId, featureLevel);
  const stored = message.edit_history ? (JSON.parse(message.edit_history) as Entry[]) : [];
  let content = message.content;
  let rendered = message.rendered_content;
  let topic = message.topic;
  const out: Entry[] = [];
  for (const edit of stored) {
    const version: Entry = { content, rendered_content: rendered, timestamp: edit.timestamp, topic, user_id: edit.user_id };
    if ('prev_topic' in edit) {
      topic = String(edit.prev_topic);
      version.prev_topic = topic;
    }
    if ('prev_content' in edit) {
      content = String(edit.prev_content);
      rendered = String(edit.prev_rendered_content);
      version.prev_content = content;
      version.prev_rendered_content = rendered;
    }
    if ('prev_stream' in edit) {
      version.prev_stream = edit.prev_stream;
      version.stream = edit.stream;
    }
    out.push(version);
  }
  out.push({ content, rendered_content: rendered, timestamp: message.date_sent, topic, user_id: message.sender_id });
  const shown = policy === 'moves' ? movesOnly(out) : out;
  // Level 334: a client that cannot show the empty topic sees its display name (as Zulip, stream messages only).
  const named = message.stream_id !== null && !allowEmptyTopicName ? shown.map(emptyTopicsNamed) : shown;
  return named.reverse();
}

/**
 * Zulip's visible_edit_history_for_message for "moves" (level 358): content edits are left
 * out; an edit that also moved the message keeps its move without the previous content.
 */
function movesOnly(history: Entry[]): Entry[] {
  const out: Entry[] = [];
  for (const entry of history) {
    if ('prev_content' in entry) {
      if (!('prev_topic' in entry) && !('prev_stream' in entry)) continue;
      const { prev_content: _c, prev_rendered_content: _r, content_html_diff: _d, ...rest } = entry;
      out.push(rest);
    } else {
      out.push(entry);
    }
  }
  return out;
}
