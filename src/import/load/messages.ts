/**
 * Messages, chunk by chunk, each chunk in one transaction: the message rows with ids taken
 * in the export's order, every recipient's flags, and the chunk's reactions and attachments.
 * Content is the export's markdown, rendered again here; its HTML is never trusted.
 */
import { transact } from '../../actions/transaction.js';
import { realmImport } from '../../store/repos/realm-import.js';
import { importRenderContexts } from '../../reads/render-context.js';
import { renderMessage } from '../../markdown/bounded.js';
import type { RenderContext, RenderResult } from '../../markdown/index.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { truncateContent } from '../../lib/message-content.js';
import { MAX_TOPIC_LENGTH } from '../../lib/limits.js';
import { ImportError, type MessageChunk, type Row } from '../source.js';
import { field } from './ids.js';
import { copyAttachments, insertAttachments } from './attachments.js';
import { REACTION_COLUMNS, reactionValues } from './reactions.js';
import type { LoadState } from './state.js';

const MESSAGE_COLUMNS = ['id', 'realm_id', 'sender_id', 'recipient_id', 'stream_id', 'topic', 'topic_lower', 'content', 'rendered_content',
  'rendered_content_version', 'date_sent', 'client', 'last_edit_time', 'edit_history', 'is_me_message', 'has_link', 'has_image', 'has_attachment'] as const;
const USER_MESSAGE_COLUMNS = ['user_id', 'message_id', 'flags'] as const;
/** Messages per chunk, at most (Zulip writes 1000 a file): keys of recipient rows are numbers below 2^53. */
const MAX_CHUNK = 2 ** 21;
/** Zulip's flag bits Parley keeps (message-flags.ts); anything higher is dropped. */
const KNOWN_FLAGS = 0x1fff;

/** Long messages render on the pool (markdown/bounded.ts), whose queue is bounded: this many at once. */
const RENDERS_IN_FLIGHT = 8;

/** `fn` over `items` in order, at most `limit` at a time. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The renderer's refusal (too slow, too large) keeps the message as escaped text, as a failed render must not fail an import. */
async function render(content: string, rctx: RenderContext): Promise<RenderResult> {
  try {
    return await renderMessage(content, rctx);
  } catch {
    return {
      html: `<p>${escapeHtml(content)}</p>`, mentionedUserIds: new Set(), wildcardMentioned: false, topicWildcardMentioned: false,
      mentionedGroupIds: new Set(), hasLink: false, hasImage: false, hasAttachment: false, isMeMessage: false,
    };
  }
}

const topicOf = (row: Row): string => {
  const raw = typeof row.subject === 'string' ? row.subject : typeof row.topic === 'string' ? row.topic : '';
  const clean = raw.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  const chars = [...clean];
  return chars.length > MAX_TOPIC_LENGTH ? `${chars.slice(0, MAX_TOPIC_LENGTH - 3).join('')}...` : clean;
};

export async function loadMessages(s: LoadState): Promise<number> {
  const contexts = await importRenderContexts(s.ctx.store.db, s.realm, s.privateMembers, s.ctx.config.featureLevel);
  const uploadFrom = `/user_uploads/${s.sourceRealmId}/`;
  const uploadTo = `/user_uploads/${s.realm.id}/`;
  s.progress.phase('messages', s.source.messageCount);
  const relink = (c: string) => c.split(uploadFrom).join(uploadTo);
  let count = 0;
  // A chunk is read and rendered while the one before it is stored: on PostgreSQL the two
  // overlap (SQLite's writer holds this thread while it writes, so there they alternate).
  let storing: Promise<void> | undefined;
  try {
    for await (const chunk of s.source.messages()) {
      const ready = await prepareChunk(s, chunk, contexts, relink);
      await storing;
      storing = storeChunk(s, chunk, ready).then(() => s.progress.tick(ready.messages.length));
      // Awaited at the next chunk or the end; until then its failure must not count as unhandled.
      storing.catch(() => undefined);
      count += ready.messages.length;
    }
    await storing;
  } finally {
    // A failure while reading leaves the chunk being stored to finish before the import is undone.
    await storing?.catch(() => undefined);
  }
  s.progress.done();
  return count;
}

type Prepared = Awaited<ReturnType<typeof prepareChunk>>;

async function prepareChunk(s: LoadState, chunk: MessageChunk, contexts: (authorId: number) => RenderContext, relink: (c: string) => string) {
  const rows = chunk.zerver_message;
  if (!Array.isArray(rows) || !Array.isArray(chunk.zerver_usermessage)) throw new ImportError('a messages file lacks zerver_message or zerver_usermessage');
  if (rows.length > MAX_CHUNK) throw new ImportError(`a messages file holds ${rows.length} messages, more than ${MAX_CHUNK}`);
  // Rendering may use the thread pool: done before the transaction, which then only writes.
  const prepared = await mapLimit(rows, RENDERS_IN_FLIGHT, async (row) => {
    const where = `message ${JSON.stringify(row.id)}`;
    const sourceId = field.int(row, 'id', 'zerver_message');
    const senderId = s.users.get(row.sender, where);
    const recipient = s.recipients.get(Number(row.recipient));
    if (!recipient) throw new ImportError(`${where} names recipient ${JSON.stringify(row.recipient)}, which the export does not have`);
    const content = relink(truncateContent(field.str(row, 'content', where, '')));
    const rendered = await render(content, contexts(senderId));
    const topic = recipient.type === RecipientType.STREAM ? topicOf(row) : '';
    const sent = field.time(row, 'date_sent', field.time(row, 'pub_date', 0));
    const edited = row.last_edit_time === null || row.last_edit_time === undefined ? null : field.time(row, 'last_edit_time', sent);
    return {
      sourceId, senderId, recipient, content, rendered, topic, sent, edited,
      client: s.clients.get(Number(row.sending_client)) ?? 'Imported',
      history: await editHistory(s, row.edit_history, contexts(senderId)),
    };
  });
  const copied = chunk.zerver_attachment ? await copyAttachments(s, chunk.zerver_attachment) : [];
  return { messages: prepared, copied };
}

/**
 * A chunk's rows as one script (realmImport.insertScript), with its ids reserved first in a
 * transaction of their own; attachments after it, as they link the stored messages. An import
 * that fails is removed whole (run.ts), so a chunk need not be one transaction.
 */
async function storeChunk(s: LoadState, chunk: MessageChunk, ready: Prepared): Promise<void> {
  const { messages: prepared, copied } = ready;
  const ids = await transact(s.ctx, (tx) => realmImport.nextMessageIds(tx.db, prepared.length));
  // The chunk's messages by source id: their place in the chunk (and so their new id).
  const local = new Map<number, number>();
  const messageValues: unknown[] = [];
  prepared.forEach((m, i) => {
    const id = ids[i]!;
    s.messages.add(m.sourceId, id);
    local.set(m.sourceId, i);
    messageValues.push(id, s.realm.id, m.senderId, m.recipient.id, m.recipient.streamId, m.topic, m.topic.toLowerCase(), m.content, m.rendered.html, 1,
      m.sent, m.client, m.edited, m.history, m.rendered.isMeMessage ? 1 : 0, m.rendered.hasLink ? 1 : 0, m.rendered.hasImage ? 1 : 0,
      m.rendered.hasAttachment ? 1 : 0);
  });
  // Three values a row, end to end: a chunk has a hundred thousand rows and more.
  const flagRows: number[] = [];
  // A duplicate row (an export is untrusted) would break the insert: numbers, not strings, as keys.
  const seen = new Set<number>();
  for (const um of chunk.zerver_usermessage) {
    const index = local.get(Number(um.message));
    if (index === undefined) throw new ImportError(`a usermessage row names message ${JSON.stringify(um.message)}, which is not in its file`);
    // Rows of people outside the export (Zulip leaves them out too) are skipped.
    if (!s.users.has(um.user_profile)) continue;
    const userId = s.users.get(um.user_profile, 'a usermessage row');
    const messageId = ids[index]!;
    const key = userId * MAX_CHUNK + index;
    if (seen.has(key)) continue;
    seen.add(key);
    const mask = typeof um.flags_mask === 'number' ? um.flags_mask & KNOWN_FLAGS : 0;
    flagRows.push(userId, messageId, mask);
  }
  await realmImport.insertScript(s.ctx.store, [
    { table: 'message', columns: MESSAGE_COLUMNS, values: messageValues },
    { table: 'user_message', columns: USER_MESSAGE_COLUMNS, values: flagRows },
    { table: 'reaction', columns: REACTION_COLUMNS, values: chunk.zerver_reaction ? reactionValues(s, chunk.zerver_reaction) : [] },
  ]);
  if (copied.length > 0) await transact(s.ctx, (tx) => insertAttachments(tx, s, copied));
}

/** Zulip's edit history, newest first, with its ids mapped and each earlier version rendered again. */
async function editHistory(s: LoadState, raw: unknown, rctx: RenderContext): Promise<string | null> {
  if (typeof raw !== 'string' || raw === '') return null;
  let entries: unknown;
  try {
    entries = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!Array.isArray(entries)) return null;
  const out: Row[] = [];
  for (const e of entries) {
    if (typeof e !== 'object' || e === null) continue;
    const entry = e as Row;
    const mapped: Row = { timestamp: field.time(entry, 'timestamp', 0) };
    if (s.users.has(entry.user_id)) mapped.user_id = s.users.get(entry.user_id, 'an edit');
    else mapped.user_id = null;
    if (typeof entry.prev_content === 'string') {
      mapped.prev_content = entry.prev_content;
      mapped.prev_rendered_content = (await render(entry.prev_content, rctx)).html;
      mapped.prev_rendered_content_version = 1;
    }
    const prevTopic = entry.prev_topic ?? entry.prev_subject;
    if (typeof prevTopic === 'string') mapped.prev_topic = prevTopic;
    if (typeof entry.topic === 'string') mapped.topic = entry.topic;
    if (s.streams.has(entry.prev_stream)) mapped.prev_stream = s.streams.get(entry.prev_stream, 'an edit');
    if (s.streams.has(entry.stream)) mapped.stream = s.streams.get(entry.stream, 'an edit');
    out.push(mapped);
  }
  return out.length > 0 ? JSON.stringify(out) : null;
}
