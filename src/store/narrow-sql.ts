import { sql, type CompiledQuery, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DB } from './schema.js';
import type { Q, UserRow } from './rows.js';
import { FLAG_BITS, MENTION_BITS } from '../lib/message-flags.js';
import type { ResolvedNarrow, ResolvedTerm } from '../narrow/types.js';
import type { StoreDialect as Dialect } from './dialects.js';
import { OWN_INDEXES, type OwnIndex, type UserMessageBounds } from './repos/messages.js';
import { recipients } from './repos/recipients.js';

// The SQL back end of a narrow (GET /messages); the in-memory one, which must agree with
// it, is src/narrow/match.ts. Both take the terms of one parse (src/narrow/parse.ts).

type EB = ExpressionBuilder<DB & { um: DB['user_message'] }, 'message' | 'um'>;

/** Recipient ids the private-message operators need, looked up once per query. */
export interface PmLookups {
  personal: Map<number, number>;
  /** Huddle recipient ids containing a given user. */
  huddlesWith: Map<number, number[]>;
  /** Huddle recipient id for an exact member set (key: sorted ids joined by ','). */
  huddleExact: Map<string, number | null>;
}

export async function loadPmLookups(q: Q, terms: ResolvedTerm[], viewer: UserRow): Promise<PmLookups> {
  if (!terms.some((t) => t.op === 'pm-with' || t.op === 'dm-including' || t.op === 'group-pm-with')) {
    return { personal: new Map(), huddlesWith: new Map(), huddleExact: new Map() };
  }
  const personalIds = new Set<number>([viewer.id]);
  const withIds = new Set<number>();
  const exact = new Set<string>();
  for (const t of terms) {
    if (t.op === 'pm-with') {
      for (const id of t.memberIds) personalIds.add(id);
      if (t.memberIds.length >= 3) exact.add(t.memberIds.join(','));
    }
    if (t.op === 'dm-including' || t.op === 'group-pm-with') {
      personalIds.add(t.userId);
      withIds.add(t.userId);
    }
  }
  const personal = await recipients.mapPersonalOf(q, [...personalIds]);
  const huddlesWith = new Map<number, number[]>();
  for (const u of withIds) {
    const hs = await q.selectFrom('huddle').select('recipient_id')
      .where(sql<SqlBool>`(',' || huddle_hash || ',') LIKE ${`%,${u},%`}`)
      .where(sql<SqlBool>`(',' || huddle_hash || ',') LIKE ${`%,${viewer.id},%`}`).execute();
    huddlesWith.set(u, hs.map((h) => h.recipient_id!).filter((x) => x !== null));
  }
  const huddleExact = new Map<string, number | null>();
  for (const key of exact) {
    const h = await q.selectFrom('huddle').select('recipient_id').where('huddle_hash', '=', key).executeTakeFirst();
    huddleExact.set(key, h?.recipient_id ?? null);
  }
  return { personal, huddlesWith, huddleExact };
}

const NONE = -1;
// A message seen only through stream history has no row: it counts as read and historical.
const flagsExpr = sql<number>`coalesce(um.flags, ${FLAG_BITS.read | FLAG_BITS.historical})`;
const flagSet = (bit: number) => sql<SqlBool>`(${flagsExpr} & ${bit}) <> 0`;

function termExpr(eb: EB, t: ResolvedTerm, viewer: UserRow, pm: PmLookups, dialect: Dialect): Expression<SqlBool> {
  const isPrivate = eb('message.stream_id', 'is', null);
  switch (t.op) {
    case 'stream': return eb.and([eb('message.stream_id', 'is not', null), eb('message.stream_id', '=', t.streamId)]);
    case 'topic': return eb.and([eb('message.stream_id', 'is not', null), eb('message.topic_lower', '=', t.topicLower)]);
    case 'sender': return eb('message.sender_id', '=', t.userId);
    case 'pm-with': {
      const ids = t.memberIds;
      const mine = pm.personal.get(viewer.id) ?? NONE;
      if (ids.length === 1) return eb.and([isPrivate, eb('message.recipient_id', '=', mine), eb('message.sender_id', '=', viewer.id)]);
      if (ids.length === 2) {
        const other = ids.find((id) => id !== viewer.id)!;
        return eb.and([isPrivate, eb.or([
          eb.and([eb('message.recipient_id', '=', pm.personal.get(other) ?? NONE), eb('message.sender_id', '=', viewer.id)]),
          eb.and([eb('message.recipient_id', '=', mine), eb('message.sender_id', '=', other)]),
        ])]);
      }
      return eb.and([isPrivate, eb('message.recipient_id', '=', pm.huddleExact.get(ids.join(',')) ?? NONE)]);
    }
    case 'dm-including': {
      if (t.userId === viewer.id) return isPrivate;
      const huddles = pm.huddlesWith.get(t.userId) ?? [];
      return eb.and([isPrivate, eb.or([
        eb('message.sender_id', '=', t.userId),
        eb('message.recipient_id', '=', pm.personal.get(t.userId) ?? NONE),
        ...(huddles.length ? [eb('message.recipient_id', 'in', huddles)] : []),
      ])]);
    }
    case 'group-pm-with': {
      const huddles = pm.huddlesWith.get(t.userId) ?? [];
      return huddles.length ? eb.and([isPrivate, eb('message.recipient_id', 'in', huddles)]) : sql<SqlBool>`1 = 0`;
    }
    case 'is':
      switch (t.what) {
        case 'private': return isPrivate;
        case 'starred': return flagSet(FLAG_BITS.starred);
        case 'mentioned': return flagSet(MENTION_BITS);
        case 'alerted': return flagSet(FLAG_BITS.has_alert_word);
        case 'unread': return sql<SqlBool>`(${flagsExpr} & ${FLAG_BITS.read}) = 0`;
        case 'resolved': return eb.and([eb('message.stream_id', 'is not', null), eb('message.topic', 'like', '\u2714 %')]);
      }
      return sql<SqlBool>`1 = 0`;
    case 'in-home': {
      const parts: Array<Expression<SqlBool>> = [];
      const topicIs = ([s, topic]: [number, string]) => eb.and([eb('message.stream_id', '=', s), eb('message.topic_lower', '=', topic)]);
      if (t.mutedStreamIds.length) {
        const inMuted = eb('message.stream_id', 'in', t.mutedStreamIds);
        parts.push(t.shownTopics.length ? eb.and([inMuted, eb.not(eb.or(t.shownTopics.map(topicIs)))]) : inMuted);
      }
      for (const key of t.mutedTopics) parts.push(topicIs(key));
      return parts.length ? eb.or([isPrivate, eb.not(eb.or(parts))]) : sql<SqlBool>`1 = 1`;
    }
    case 'topics':
      return t.topics.length
        ? eb.or(t.topics.map(([s, topic]) => eb.and([eb('message.stream_id', '=', s), eb('message.topic_lower', '=', topic)])))
        : sql<SqlBool>`1 = 0`;
    case 'streams-public':
      return t.streamIds.length ? eb.and([eb('message.stream_id', 'is not', null), eb('message.stream_id', 'in', t.streamIds)]) : sql<SqlBool>`1 = 0`;
    case 'id': return eb('message.id', '=', t.id);
    case 'has':
      // Level 249: a message anyone reacted to (Zulip's by_has: an EXISTS on its reactions).
      if (t.what === 'reaction') return eb.exists(eb.selectFrom('reaction').select('reaction.id').whereRef('reaction.message_id', '=', 'message.id'));
      return eb(t.what === 'link' ? 'message.has_link' : t.what === 'image' ? 'message.has_image' : 'message.has_attachment', '=', 1);
    case 'search': return dialect.searchMatch(t.words);
    case 'none': return sql<SqlBool>`1 = 1`;
  }
}

/**
 * The messages of a narrow the viewer may read: every message they received, plus the
 * history of the streams the narrow opened (historyStreamIds). Each term is applied with
 * NOT for negation; terms treat private messages explicitly so NULLs never leak through.
 */
export function narrowQuery(q: Q, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups) {
  const history = narrow.historyStreamIds;
  let query = q.selectFrom('message')
    .leftJoin('user_message as um', (j) => j.onRef('um.message_id', '=', 'message.id').on('um.user_id', '=', viewer.id))
    .select(['message.id as id', 'um.flags as flags']);
  query = history.length
    ? query.where((eb) => eb.or([eb('um.user_id', 'is not', null), eb.and([eb('message.stream_id', 'in', history), eb('message.realm_id', '=', viewer.realm_id)])]))
    : query.where('um.user_id', 'is not', null);
  return withTerms(query, dialect, viewer, narrow, pm);
}

/** Which of `ids` (possible ids: see lib/ids.ts) the narrow holds, with their rendered content and topic. */
export async function narrowMatches(q: Q, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups, ids: number[]) {
  if (ids.length === 0) return [];
  return narrowQuery(q, dialect, viewer, narrow, pm)
    .where('message.id', 'in', ids).select(['message.rendered_content', 'message.topic']).execute();
}

/** Which of `ids` (possible ids) the narrow holds and the viewer may read, oldest first (GET /messages' message_ids, level 300). */
export async function narrowIds(q: Q, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups, ids: number[]): Promise<WindowRow[]> {
  if (ids.length === 0) return [];
  return narrowQuery(q, dialect, viewer, narrow, pm).where('message.id', 'in', ids).orderBy('message.id', 'asc').execute();
}

/**
 * A query over `message` and `um` (left-joined or inner-joined, whichever drives it)
 * narrowed by every term, each with NOT when negated.
 */
function withTerms<T extends { where: unknown }>(query: T, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups): T {
  // The two query shapes differ only in whether um's columns may be null; terms treat both.
  let qb = query as unknown as { where(f: (eb: EB) => Expression<SqlBool>): typeof qb };
  for (const t of narrow.terms) {
    if (t.op === 'none') continue;
    qb = qb.where((eb) => {
      const e = termExpr(eb, t, viewer, pm, dialect);
      return t.negated ? eb.not(e) : e;
    });
  }
  return qb as unknown as T;
}

export type WindowRow = { id: number; flags: number | null };

// Stand in for the anchor and the viewer's bounds while compiling, so that their places
// among the parameters are known.
const ANCHOR_SENTINEL = -424242;
const FLOOR_SENTINEL = -424243;
const CEILING_SENTINEL = -424244;
const MAX_SHAPES = 2000;
interface Shape { compiled: CompiledQuery<WindowRow>; at: number[] }
const shapeCache = new WeakMap<object, Map<string, Shape>>();

/**
 * Builds and compiles a narrow's query once per shape (viewer, resolved terms, history,
 * private-message lookups, and what `kind` adds), then runs it with fresh values for its
 * sentinels: building and compiling cost as much as running it.
 */
async function runShape(q: Q, kind: string, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups,
  build: () => CompiledQuery<WindowRow>, sentinels: unknown[], values: unknown[]): Promise<WindowRow[]> {
  let shapes = shapeCache.get(q);
  if (!shapes) shapeCache.set(q, (shapes = new Map()));
  const key = JSON.stringify([kind, viewer.id, viewer.realm_id, narrow, [...pm.personal], [...pm.huddlesWith], [...pm.huddleExact]]);
  let shape = shapes.get(key);
  if (!shape) {
    const compiled = build();
    shape = { compiled, at: sentinels.map((v) => compiled.parameters.lastIndexOf(v)) };
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  const parameters = [...shape.compiled.parameters];
  shape.at.forEach((i, k) => { if (i >= 0) parameters[i] = values[k]; });
  return (await q.executeQuery<WindowRow>({ ...shape.compiled, parameters })).rows;
}

/**
 * A positive term that the message table's own indexes answer (by stream, sender,
 * conversation, id or words): such a narrow is found by walking those messages.
 */
function messageIndexed(t: ResolvedTerm): boolean {
  return !t.negated && (t.op === 'stream' || t.op === 'sender' || t.op === 'pm-with' || t.op === 'dm-including'
    || t.op === 'group-pm-with' || t.op === 'id' || t.op === 'search');
}

/** The smallest of the viewer's partial indexes that holds every match of the narrow. */
function ownIndexFor(narrow: ResolvedNarrow): OwnIndex | 'all' {
  const is = new Set(narrow.terms.flatMap((t) => (t.op === 'is' && !t.negated ? [t.what] : [])));
  if (is.has('starred')) return 'starred';
  if (is.has('mentioned')) return 'mentioned';
  if (is.has('private')) return 'private';
  if (is.has('unread')) return 'unread';
  return 'all';
}

export type Side = { op: '<' | '<=' | '>' | '>='; anchor: number; limit: number };

/**
 * SQLite, a narrow that opens no stream history and that the message table's indexes do
 * not answer (the whole feed, in:home, is:unread, has:link, negations...): every match is
 * one of the viewer's own rows, so walk those, nearest first, along the partial index
 * that holds them all (migration 009; two indexes, unread and read, merged, when no flag
 * narrows it), testing each against the narrow. Walking messages instead would visit the
 * whole organization's.
 */
async function ownRowsWindow(q: Q, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups,
  side: Side, from: OwnIndex | 'all'): Promise<WindowRow[]> {
  const desc = side.op.startsWith('<');
  const one = (index: OwnIndex) => runShape(q, `own${index}${side.op}${side.limit}`, viewer, narrow, pm, () => {
    const query = q.selectFrom('user_message as um').innerJoin('message', 'message.id', 'um.message_id')
      .select(['message.id as id', 'um.flags as flags'])
      .where('um.user_id', '=', viewer.id)
      .where(sql<SqlBool>`${sql.raw(OWN_INDEXES[index].replace('flags', 'um.flags'))}`)
      .where('um.message_id', side.op, ANCHOR_SENTINEL);
    return withTerms(query, dialect, viewer, narrow, pm)
      .orderBy('um.message_id', desc ? 'desc' : 'asc').limit(side.limit).compile() as CompiledQuery<WindowRow>;
  }, [ANCHOR_SENTINEL], [side.anchor]);
  if (from !== 'all') return one(from);
  const [unread, read] = await Promise.all([one('unread'), one('read')]);
  return [...unread, ...read].sort((a, b) => (desc ? b.id - a.id : a.id - b.id)).slice(0, side.limit);
}

/** Does SQLite find this narrow's matches faster among the viewer's own rows than among all messages? */
const walksOwnRows = (dialect: Dialect, narrow: ResolvedNarrow) =>
  dialect.walksOwnRows && narrow.historyStreamIds.length === 0 && !narrow.terms.some(messageIndexed);

/**
 * One side of a GET /messages window: up to `limit` messages of the narrow beyond the
 * anchor, nearest first.
 *
 * On SQLite `bounds` is the id range of the viewer's own messages (messages.userBounds,
 * null on PostgreSQL). Unless the narrow opens stream history, nothing outside it can
 * match: a walk over messages stops there, and a narrow no message index answers walks
 * the viewer's own rows instead (ownRowsWindow).
 */
export async function narrowWindow(q: Q, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups,
  side: Side, bounds: UserMessageBounds | null): Promise<WindowRow[]> {
  const bounded = bounds !== null && narrow.historyStreamIds.length === 0;
  if (bounded && (bounds.first === null || bounds.last === null)) return [];
  if (walksOwnRows(dialect, narrow)) return ownRowsWindow(q, dialect, viewer, narrow, pm, side, ownIndexFor(narrow));
  const desc = side.op.startsWith('<');
  return runShape(q, `window${side.op}${side.limit}${bounded ? 'b' : ''}`, viewer, narrow, pm, () => {
    let query = narrowQuery(q, dialect, viewer, narrow, pm).where('message.id', side.op, ANCHOR_SENTINEL);
    if (bounded) query = query.where('message.id', '>=', FLOOR_SENTINEL).where('message.id', '<=', CEILING_SENTINEL);
    return query.orderBy('message.id', desc ? 'desc' : 'asc').limit(side.limit).compile() as CompiledQuery<WindowRow>;
  }, [ANCHOR_SENTINEL, FLOOR_SENTINEL, CEILING_SENTINEL], [side.anchor, bounds?.first, bounds?.last]);
}

/**
 * The oldest unread message of a narrow (muting already in its terms), for the
 * first_unread anchor. Only the viewer's unread rows can match, so on SQLite the walk
 * starts at the oldest of them, or goes through the unread index alone.
 */
export async function narrowFirstUnread(q: Q, dialect: Dialect, viewer: UserRow, narrow: ResolvedNarrow, pm: PmLookups,
  bounds: UserMessageBounds | null): Promise<number | undefined> {
  if (bounds && bounds.firstUnread === null) return undefined;
  if (walksOwnRows(dialect, narrow)) return (await ownRowsWindow(q, dialect, viewer, narrow, pm, { op: '>=', anchor: 0, limit: 1 }, 'unread'))[0]?.id;
  let query = narrowQuery(q, dialect, viewer, narrow, pm)
    .where('um.user_id', 'is not', null).where(sql<SqlBool>`(um.flags & ${sql.lit(FLAG_BITS.read)}) = 0`);
  if (bounds?.firstUnread != null) query = query.where('message.id', '>=', bounds.firstUnread);
  return (await query.orderBy('message.id', 'asc').limit(1).executeTakeFirst())?.id;
}
