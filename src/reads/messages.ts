import { generalChatToEmpty } from '../lib/empty-topic.js';
import { SPEC_FEATURE_LEVEL } from '../lib/version.js';
import type { MessageRow, Q, RealmRow, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { users } from '../store/repos/users.js';
import { recipients as recipientRows } from '../store/repos/recipients.js';
import { dialectOf } from '../store/db.js';
import { cachesOf } from '../cache/index.js';
import { badRequest } from '../errors.js';
import { flagsFromMask } from '../lib/message-flags.js';
import { pmUser, presentMessage, presentReaction, type MessagePresentOpts, type RecipientInfo, type WireMessage } from '../presenters/message.js';
import type { WireReaction } from '../schemas/wire.js';
import { messagesAnswer } from '../presenters/messages-answer.js';
import { parseNarrow } from '../narrow/parse.js';
import { mutingTerm, resolveNarrow } from './narrow-resolve.js';
import { loadPmLookups, narrowFirstUnread, narrowIds, narrowMatches, narrowWindow } from '../store/narrow-sql.js';
import { highlightHtml, highlightTopic } from '../narrow/highlight.js';
import type { ResolvedTerm } from '../narrow/types.js';
import { topicLinker } from './linkifiers.js';
import { RecipientType } from '../lib/recipient-type.js';
import { MAX_ID, isPossibleId } from '../lib/ids.js';

/** Loads the recipient info for a batch of messages in three queries at most. */
export async function loadRecipients(q: Q, rows: Array<Pick<MessageRow, 'recipient_id' | 'sender_id'>>): Promise<Map<number, RecipientInfo>> {
  const ids = [...new Set(rows.map((r) => r.recipient_id))];
  const out = new Map<number, RecipientInfo>();
  if (ids.length === 0) return out;
  const recipients = await recipientRows.listByIds(q, ids);
  const streamName = await recipientRows.streamNames(q, recipients.filter((r) => r.type === RecipientType.STREAM).map((r) => r.type_id));
  const huddles = await messages.huddleMembers(q, recipients.filter((r) => r.type === RecipientType.HUDDLE).map((r) => r.id));
  const userIds = new Set<number>();
  for (const r of recipients) if (r.type === RecipientType.PERSONAL) userIds.add(r.type_id);
  for (const m of huddles.values()) for (const id of m) userIds.add(id);
  for (const r of rows) userIds.add(r.sender_id);
  const people = new Map((await users.listByIds(q, [...userIds])).map((u) => [u.id, pmUser(u)]));
  for (const r of recipients) {
    if (r.type === RecipientType.STREAM) out.set(r.id, { type: RecipientType.STREAM, streamId: r.type_id, streamName: streamName.get(r.type_id) ?? '' });
    else if (r.type === RecipientType.HUDDLE) out.set(r.id, { type: RecipientType.HUDDLE, members: (huddles.get(r.id) ?? []).map((id) => people.get(id)!).filter(Boolean) });
    else out.set(r.id, { type: RecipientType.PERSONAL, members: [people.get(r.type_id)!].filter(Boolean) });
  }
  return out;
}

/**
 * The Message object of GET /messages, GET /messages/{id} and message events, in the
 * order of `items`. Batch-loads senders, conversations and reactions. `flags` undefined
 * leaves the field out; null is a message the reader did not receive.
 */
export async function loadWireMessages(q: Q, items: Array<{ id: number; flags?: number | null }>, opts: MessagePresentOpts): Promise<WireMessage[]> {
  if (items.length === 0) return [];
  const rows = await messages.listByIds(q, items.map((i) => i.id));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const senders = new Map((await users.listByIds(q, [...new Set(rows.map((r) => r.sender_id))])).map((u) => [u.id, u]));
  const recipients = await loadRecipients(q, rows);
  const reactions = await loadReactions(q, rows.map((r) => r.id));
  const topicLinks = await topicLinker(q, opts.realm.id);
  const viewer = opts.viewerId;
  const incoming = viewer === undefined || (opts.featureLevel ?? 122) < 327 ? [] : rows.filter((m) => {
    const r = recipients.get(m.recipient_id);
    return r?.type === RecipientType.PERSONAL && m.sender_id !== viewer && r.members?.[0]?.id === viewer;
  });
  const personal = await recipientRows.mapPersonalOf(q, [...new Set(incoming.map((m) => m.sender_id))]);
  const incomingIds = new Set(incoming.map((m) => m.id));
  const out: WireMessage[] = [];
  for (const item of items) {
    const m = byId.get(item.id);
    const sender = m ? senders.get(m.sender_id) : undefined;
    if (!m || !sender) continue;
    out.push(presentMessage(m, sender, recipients.get(m.recipient_id), opts, {
      ...(item.flags !== undefined ? { flags: flagsFromMask(item.flags, opts.featureLevel) } : {}), reactions: reactions.get(m.id) ?? [],
      topicLinks: m.stream_id !== null ? topicLinks(m.topic) : [],
      senderRecipientId: incomingIds.has(m.id) ? personal.get(m.sender_id) : undefined,
    }));
  }
  return out;
}

export async function loadReactions(q: Q, ids: number[]): Promise<Map<number, WireReaction[]>> {
  const rows = await messages.reactionsFor(q, ids);
  const out = new Map<number, WireReaction[]>();
  if (rows.length === 0) return out;
  const people = new Map((await users.listByIds(q, [...new Set(rows.map((r) => r.user_id))])).map((u) => [u.id, u]));
  for (const r of rows) {
    const u = people.get(r.user_id);
    const list = out.get(r.message_id) ?? [];
    list.push(presentReaction(r, u));
    out.set(r.message_id, list);
  }
  return out;
}


/** The message the viewer may read as GET /messages/{id} presents it, with its markdown source. */
export async function messageById(q: Q, realm: RealmRow, message: MessageRow, flags: number | null,
  opts: { applyMarkdown: boolean; clientGravatar: boolean; featureLevel?: number; viewerId?: number; allowEmptyTopicName?: boolean }): Promise<{ raw_content: string; message: WireMessage | undefined }> {
  const [wire] = await loadWireMessages(q, [{ id: message.id, flags }], { ...opts, realm });
  return { raw_content: message.content, message: wire };
}

/** GET /messages/matches_narrow: which of `ids` match the narrow, with their highlighted content and topic. */
export async function matchesNarrow(q: Q, viewer: UserRow, ids: number[], rawNarrow: unknown): Promise<Record<string, { match_content: string; match_subject: string }>> {
  const narrow = await resolveNarrow(q, viewer, parseNarrow(rawNarrow));
  const pm = await loadPmLookups(q, narrow.terms, viewer);
  const valid = ids.filter(isPossibleId);
  const rows = await narrowMatches(q, dialectOf(q), viewer, narrow, pm, valid);
  const words = searchWords(narrow.terms);
  const out: Record<string, { match_content: string; match_subject: string }> = {};
  for (const row of rows) out[String(row.id)] = { match_content: highlightHtml(row.rendered_content, words), match_subject: highlightTopic(row.topic, words) };
  return out;
}

export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;
export const MAX_MESSAGES_PER_FETCH = 5000;

export interface FetchParams {
  anchor: 'newest' | 'oldest' | 'first_unread' | number;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  narrow: unknown;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** The server's level (names of the wildcard flags); absent: 122. */
  featureLevel?: number;
  /** Level 300: these messages of the narrow instead of a window around an anchor. */
  messageIds?: number[] | undefined;
  /** The empty topic as "" (level 334); otherwise, and when absent, by its display name. */
  allowEmptyTopicName?: boolean;
}

export function searchWords(terms: ResolvedTerm[]): string[] {
  return terms.flatMap((t) => (t.op === 'search' && !t.negated ? t.words : []));
}

export type WindowParams = Pick<FetchParams, 'anchor' | 'numBefore' | 'numAfter' | 'includeAnchor' | 'narrow' | 'featureLevel'>;

/** A window of a narrow around an anchor: its messages' ids and the viewer's flags (null: never received), oldest first. */
export interface MessageWindow {
  rows: Array<{ id: number; flags: number | null }>;
  meta: { anchor: number; found_anchor: boolean; found_oldest: boolean; found_newest: boolean; history_limited: boolean };
  terms: ResolvedTerm[];
}

/**
 * Zulip's fetch_messages: the messages of a narrow the viewer may read, at most
 * `numBefore` before the anchor and `numAfter` after it (and the anchor itself if asked
 * for). GET /messages presents them; POST /messages/flags/narrow flags them.
 */
export async function fetchMessageWindow(db: Q, viewer: UserRow, p: WindowParams): Promise<MessageWindow> {
  const dialect = dialectOf(db);
  // Level 334: a topic term naming the empty topic's display name means the empty topic
  // (Zulip's update_narrow_terms_containing_empty_topic_fallback_name).
  const level = p.featureLevel ?? SPEC_FEATURE_LEVEL;
  const terms = parseNarrow(p.narrow).map((t) => (t.operator === 'topic' && typeof t.operand === 'string' ? { ...t, operand: generalChatToEmpty(t.operand, level) } : t));
  const narrow = await resolveNarrow(db, viewer, terms, false, level);
  const pm = await loadPmLookups(db, narrow.terms, viewer);

  // Only where recipient rows are keyed by message do walks need the viewer's id range (sql.ts).
  const bounds = await dialect.userBounds(db, viewer.id);
  let anchor: number;
  if (p.anchor === 'newest') anchor = LARGER_THAN_MAX_MESSAGE_ID;
  else if (p.anchor === 'oldest') anchor = 0;
  else if (p.anchor === 'first_unread') {
    // As Zulip's find_first_unread_anchor: unread messages in muted streams and topics do
    // not count (a narrow to a stream keeps that stream, but not its muted topics).
    const streamTerm = narrow.terms.find((t) => t.op === 'stream' && !t.negated);
    const muting = await mutingTerm(db, viewer, false, streamTerm?.op === 'stream' ? streamTerm.streamId : undefined);
    const unmuted = { ...narrow, terms: [...narrow.terms, muting] };
    const first = await narrowFirstUnread(db, dialect, viewer, unmuted, pm, bounds);
    anchor = first ?? LARGER_THAN_MAX_MESSAGE_ID;
  } else anchor = Math.max(0, Math.min(p.anchor, LARGER_THAN_MAX_MESSAGE_ID));

  // Message ids are 32-bit columns; PostgreSQL refuses to compare them with larger numbers.
  const sqlAnchor = Math.max(0, Math.min(anchor, MAX_ID));
  const window = (op: '<' | '<=' | '>' | '>=', limit: number) =>
    narrowWindow(db, dialect, viewer, narrow, pm, { op, anchor: sqlAnchor, limit }, bounds);
  const before = p.numBefore > 0 && anchor > 0 ? await window(anchor > MAX_ID ? '<=' : '<', p.numBefore) : [];
  const after = (p.numAfter > 0 || p.includeAnchor) && anchor <= MAX_ID
    ? await window(p.includeAnchor ? '>=' : '>', p.numAfter + (p.includeAnchor ? 1 : 0))
    : [];
  const foundAnchor = p.includeAnchor && after.length > 0 && after[0]!.id === anchor;
  // The extra row was room for the anchor itself; without it, keep only what was asked for.
  const afterRows = foundAnchor ? after : after.slice(0, p.numAfter);
  const afterCount = afterRows.length - (foundAnchor ? 1 : 0);
  const rows = [...before.reverse(), ...afterRows].map((r) => ({ id: r.id, flags: r.flags ?? null }));

  const meta = {
    anchor,
    found_anchor: foundAnchor,
    found_oldest: anchor === 0 || before.length < p.numBefore,
    found_newest: anchor >= LARGER_THAN_MAX_MESSAGE_ID || afterCount < p.numAfter,
    history_limited: false,
  };
  return { rows, meta, terms: narrow.terms };
}

/**
 * Level 327 on cached messages (serialised once for every reader): an incoming 1:1 message
 * (to the reader's personal recipient, from someone else) takes the sender's personal
 * recipient id, as presentMessage gives it. Only the few such messages are looked up.
 */
async function readerRecipientIds(db: Q, viewer: UserRow, cached: Array<{ id: number; json: string }>): Promise<void> {
  const dms = cached.filter((c) => c.json.includes('"type":"private"') && !c.json.includes(`"sender_id":${viewer.id},`));
  if (dms.length === 0) return;
  const mine = `"recipient_id":${await recipientRows.personalOf(db, viewer.id)},`;
  const incoming = dms.filter((c) => c.json.includes(mine));
  if (incoming.length === 0) return;
  const rows = await messages.listByIds(db, incoming.map((c) => c.id));
  const personal = await recipientRows.mapPersonalOf(db, [...new Set(rows.map((r) => r.sender_id))]);
  const senderOf = new Map(rows.map((r) => [r.id, r.sender_id]));
  for (const c of incoming) {
    const to = personal.get(senderOf.get(c.id) ?? -1);
    if (to !== undefined) c.json = c.json.replace(mine, `"recipient_id":${to},`);
  }
}

/**
 * Level 300's GET /messages with message_ids: those of them the narrow holds and the viewer
 * may read, oldest first; as Zulip, the answer has no anchor and finds no end of anything.
 */
async function fetchMessagesByIds(db: Q, viewer: UserRow, rawNarrow: unknown, ids: number[], featureLevel = 0): Promise<Omit<MessageWindow, 'meta'> & { meta: Record<string, unknown> }> {
  const narrow = await resolveNarrow(db, viewer, parseNarrow(rawNarrow), false, featureLevel);
  const pm = await loadPmLookups(db, narrow.terms, viewer);
  const found = await narrowIds(db, dialectOf(db), viewer, narrow, pm, [...new Set(ids.filter(isPossibleId))]);
  return {
    rows: found.map((r) => ({ id: r.id, flags: r.flags ?? null })),
    meta: { history_limited: false, found_anchor: false, found_oldest: false, found_newest: false },
    terms: narrow.terms,
  };
}

/** The whole GET /messages answer, serialised. */
export async function fetchMessages(db: Q, viewer: UserRow, realm: RealmRow, p: FetchParams): Promise<string> {
  if (p.numBefore < 0 || p.numAfter < 0) throw badRequest('Invalid num_before or num_after');
  const requested = p.messageIds !== undefined ? p.messageIds.length : p.numBefore + p.numAfter;
  if (requested > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  const { rows, meta, terms } = p.messageIds !== undefined ? await fetchMessagesByIds(db, viewer, p.narrow, p.messageIds, p.featureLevel) : await fetchMessageWindow(db, viewer, p);
  const opts = {
    applyMarkdown: p.applyMarkdown, clientGravatar: p.clientGravatar, realm, allowEmptyTopicName: p.allowEmptyTopicName === true,
    ...(p.featureLevel !== undefined ? { featureLevel: p.featureLevel } : {}),
  };
  const words = searchWords(terms);
  if (words.length > 0) {
    // Search results carry per-query highlighting, so they are presented afresh (for this reader).
    const wire = await loadWireMessages(db, rows, { ...opts, viewerId: viewer.id });
    // match_content is always HTML, whatever apply_markdown asked of content (as Zulip).
    const rendered = p.applyMarkdown ? undefined
      : new Map((await messages.listByIds(db, rows.map((r) => r.id))).map((r) => [r.id, r.rendered_content]));
    for (const m of wire) addMatches(m, words, rendered?.get(Number(m.id)) ?? String(m.content));
    return JSON.stringify({ result: 'success', msg: '', ...meta, messages: wire });
  }
  const variant = (opts.applyMarkdown ? 2 : 0) + (opts.clientGravatar ? 1 : 0) + (opts.allowEmptyTopicName ? 0 : 4);
  const load = (missing: number[]) => loadWireMessages(db, missing.map((id) => ({ id })), opts);
  const cached = db.isTransaction ? (await load(rows.map((r) => r.id))).map((m) => ({ id: m.id, json: JSON.stringify(m) }))
    : await cachesOf(db).messageJson.load(rows.map((r) => r.id), variant, load);
  if ((p.featureLevel ?? 122) >= 327) await readerRecipientIds(db, viewer, cached);
  return messagesAnswer(meta, cached, new Map(rows.map((r) => [r.id, r.flags])), p.featureLevel);
}

function addMatches(m: WireMessage, words: string[], html: string): void {
  m.match_content = highlightHtml(html, words);
  m.match_subject = highlightTopic(String(m.subject), words);
}
