/**
 * Zulip's "Quote and reply" (web/src/compose_reply.ts quote_message) and the permanent link
 * to a message (hash_util.by_conversation_and_time_url): the quote is
 *
 *     @_**Name|id** [said](<link to the message>):
 *     ```quote
 *     <the raw Markdown, from GET /messages/{id}?apply_markdown=false>
 *     ```
 *
 * with a fence longer than any inside the quoted text.
 */
import { get } from '../api';
import { t } from '../i18n';
import { encodeHashComponent, pmPartners } from '../narrow';
import { store } from '../store';
import type { Message } from '../types';
import { compose, insertAtCursor, openCompose, replaceInCompose } from '../components/Compose';

/** The link to a message in its conversation: `#narrow/stream/12-general/topic/lunch/near/34`, absolute. */
export function messageLink(m: Message): string {
  const s = store.state!;
  let hash: string;
  if (m.type === 'stream') {
    const name = s.streamsById.get(m.stream_id!)?.name ?? String(m.display_recipient);
    hash = `#narrow/stream/${encodeHashComponent(`${m.stream_id}-${name.replace(/ /g, '-')}`)}/topic/${encodeHashComponent(m.subject)}`;
  } else {
    // Zulip's pm_perma_link: everyone in the conversation, "-group" from three people.
    const ids = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).sort((a, b) => a - b) : [m.sender_id];
    hash = `#narrow/pm-with/${ids.join(',')}-${ids.length >= 3 ? 'group' : 'pm'}`;
  }
  return `${location.protocol}//${location.host}/${hash}/near/${m.id}`;
}

/** Zulip's fenced_code.get_unused_fence: three backticks, or one more than the longest fence inside. */
export function unusedFence(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, m[1]!.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function quoteText(m: Message, raw: string): string {
  const fence = unusedFence(raw);
  return `@_**${m.sender_full_name}|${m.sender_id}** [${t('said')}](${messageLink(m)}):\n${fence}quote\n${raw}\n${fence}`;
}

/** Opens the compose box to the message's conversation when it is empty, and quotes the message at the caret. */
export async function quoteAndReply(m: Message): Promise<void> {
  const s = store.state!;
  if (!compose.draft.content.trim()) {
    if (m.type === 'stream') openCompose({ mode: 'stream', stream: s.streamsById.get(m.stream_id!)?.name ?? String(m.display_recipient), topic: m.subject });
    else {
      const ids = pmPartners(m, s.me);
      openCompose({ mode: 'private', to: (ids.length ? ids : [s.me]).map((id) => s.usersById.get(id)?.email ?? '').join(', ') });
    }
  } else openCompose({});
  const placeholder = t('[Quoting…]');
  insertAtCursor(placeholder, true);
  try {
    const r = await get<{ raw_content?: string; message?: { content: string } }>(`/messages/${m.id}`, { apply_markdown: false });
    replaceInCompose(placeholder, quoteText(m, r.message?.content ?? r.raw_content ?? ''));
  } catch {
    replaceInCompose(placeholder, t('[Error fetching message content.]'));
  }
  compose.focus?.();
}
