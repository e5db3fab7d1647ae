import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { badRequest } from '../errors.js';
import { loadWireMessages, type WireMessage } from '../presenters/message.js';
import { messageCacheOf, messagesAnswer } from '../presenters/message-cache.js';
import { parseNarrow } from './parse.js';
import { mutingTerm, resolveNarrow } from './resolve.js';
import { loadPmLookups, narrowFirstUnread, narrowWindow } from './sql.js';
import { highlightHtml, highlightTopic } from './highlight.js';
import { messages } from '../store/repos/messages.js';
import type { ResolvedTerm } from './types.js';

/** Zulip's stand-in for "after the newest message". */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;
export const MAX_MESSAGES_PER_FETCH = 5000;
const MAX_ID = 2_147_483_647;

export interface FetchParams {
  anchor: 'newest' | 'oldest' | 'first_unread' | number;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  narrow: unknown;
  applyMarkdown: boolean;
  clientGravatar: boolean;
}

export function searchWords(terms: ResolvedTerm[]): string[] {
  return terms.flatMap((t) => (t.op === 'search' && !t.negated ? t.words : []));
}

/** The whole GET /messages answer, serialised. */
export async function fetchMessages(ctx: AppContext, viewer: UserRow, realm: RealmRow, p: FetchParams): Promise<string> {
  if (p.numBefore < 0 || p.numAfter < 0) throw badRequest('Invalid num_before or num_after');
  if (p.numBefore + p.numAfter > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  const db = ctx.store.db;
  const narrow = await resolveNarrow(db, viewer, parseNarrow(p.narrow));
  const pm = await loadPmLookups(db, narrow.terms, viewer);

  // Only SQLite keys recipient rows by message and needs the viewer's id range (sql.ts).
  const bounds = ctx.store.dialect === 'sqlite' ? await messages.userBounds(db, viewer.id) : null;
  let anchor: number;
  if (p.anchor === 'newest') anchor = LARGER_THAN_MAX_MESSAGE_ID;
  else if (p.anchor === 'oldest') anchor = 0;
  else if (p.anchor === 'first_unread') {
    // As Zulip's find_first_unread_anchor: unread messages in muted streams and topics do
    // not count (a narrow to a stream keeps that stream, but not its muted topics).
    const streamTerm = narrow.terms.find((t) => t.op === 'stream' && !t.negated);
    const muting = await mutingTerm(db, viewer, false, streamTerm?.op === 'stream' ? streamTerm.streamId : undefined);
    const unmuted = { ...narrow, terms: [...narrow.terms, muting] };
    const first = await narrowFirstUnread(db, ctx.store.dialect, viewer, unmuted, pm, bounds);
    anchor = first ?? LARGER_THAN_MAX_MESSAGE_ID;
  } else anchor = Math.max(0, Math.min(p.anchor, LARGER_THAN_MAX_MESSAGE_ID));

  // Message ids are 32-bit columns; PostgreSQL refuses to compare them with larger numbers.
  const sqlAnchor = Math.max(0, Math.min(anchor, MAX_ID));
  const window = (op: '<' | '<=' | '>' | '>=', limit: number) =>
    narrowWindow(db, ctx.store.dialect, viewer, narrow, pm, { op, anchor: sqlAnchor, limit }, bounds);
  const before = p.numBefore > 0 && anchor > 0 ? await window(anchor > MAX_ID ? '<=' : '<', p.numBefore) : [];
  const after = (p.numAfter > 0 || p.includeAnchor) && anchor <= MAX_ID
    ? await window(p.includeAnchor ? '>=' : '>', p.numAfter + (p.includeAnchor ? 1 : 0))
    : [];
  const foundAnchor = p.includeAnchor && after.length > 0 && after[0]!.id === anchor;
  // The extra row was room for the anchor itself; without it, keep only what was asked for.
  const afterRows = foundAnchor ? after : after.slice(0, p.numAfter);
  const afterCount = afterRows.length - (foundAnchor ? 1 : 0);
  const rows = [...before.reverse(), ...afterRows];

  const meta = {
    anchor,
    found_anchor: foundAnchor,
    found_oldest: anchor === 0 || before.length < p.numBefore,
    found_newest: anchor >= LARGER_THAN_MAX_MESSAGE_ID || afterCount < p.numAfter,
    history_limited: false,
  };
  const opts = { applyMarkdown: p.applyMarkdown, clientGravatar: p.clientGravatar, realm };
  const words = searchWords(narrow.terms);
  if (words.length > 0) {
    // Search results carry per-query highlighting, so they are presented afresh.
    const wire = await loadWireMessages(db, rows.map((r) => ({ id: r.id, flags: r.flags ?? null })), opts);
    // match_content is always HTML, whatever apply_markdown asked of content (as Zulip).
    const rendered = p.applyMarkdown ? undefined
      : new Map((await messages.listByIds(db, rows.map((r) => r.id))).map((r) => [r.id, r.rendered_content]));
    for (const m of wire) addMatches(m, words, rendered?.get(Number(m.id)) ?? String(m.content));
    return JSON.stringify({ result: 'success', msg: '', ...meta, messages: wire });
  }
  const cached = await messageCacheOf(ctx).load(db, rows.map((r) => r.id), opts);
  return messagesAnswer(meta, cached, new Map(rows.map((r) => [r.id, r.flags ?? null])));
}

function addMatches(m: WireMessage, words: string[], html: string): void {
  m.match_content = highlightHtml(html, words);
  m.match_subject = highlightTopic(String(m.subject), words);
}
