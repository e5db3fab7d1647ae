import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { parseNarrow } from '../../src/narrow/parse.js';
import { resolveNarrow } from '../../src/reads/narrow-resolve.js';
import type { ResolvedNarrow } from '../../src/narrow/types.js';
import { loadPmLookups, narrowFirstUnread, narrowQuery, narrowWindow, type Side, type WindowRow } from '../../src/store/narrow-sql.js';
import { matchesNarrow } from '../../src/narrow/match.js';
import { loadRecipients } from '../../src/reads/messages.js';
import type { InternalMessage } from '../../src/narrow/types.js';
import { ApiError } from '../../src/errors.js';
import { FLAG_BITS } from '../../src/lib/message-flags.js';

/**
 * The SQL of GET /messages and the in-memory predicate of the event queues must agree:
 * for random messages and random narrows, the query's result equals the predicate applied
 * to every message the viewer may see, and so does every window of it around an anchor.
 */
let t: TestApp;
let people: TestUser[];
const WORDS = ['alpha', 'bravo', 'delta', 'kilo', 'lima', 'papa', 'zulu'];
const TOPICS = ['lunch', 'Deploy', '\u2714 done', 'misc'];
const STREAMS = ['pub1', 'pub2', 'priv'];
/** people[4] received three private messages among many, people[5] none: they read few rows. */
const SPARSE = 4;
const EMPTY = 5;
const PEOPLE = 6;

before(async () => {
  t = await testApp();
  people = [t.owner, ...Object.values(await t.createUsers({
    ann: { name: 'Ann One' }, ben: { name: 'Ben Two' }, cy: { name: 'Cy Three' }, dee: { name: 'Dee Sparse' }, eve: { name: 'Eve Empty' },
  }))];
  const [o, a, b, c] = people;
  await createStreams(t, { pub1: [o!, a!, b!], pub2: [a!, c!], priv: { inviteOnly: true, historyPublicToSubscribers: true, subscribers: [o!, b!] } });
  const subscribed: Record<string, number[]> = { pub1: [0, 1, 2], pub2: [1, 3], priv: [0, 2] };
  // The sparse reader's three messages, well inside the others' (so that windows reach past
  // their first and last): a mention, one of their own from a person's app (read), a link.
  const sparse: Record<number, { as: number; params: Record<string, unknown> }> = {
    5: { as: 1, params: { type: 'private', to: JSON.stringify([people[SPARSE]!.id]), content: 'alpha for @**Dee Sparse**' } },
    18: { as: SPARSE, params: { type: 'private', to: JSON.stringify([people[2]!.id, people[3]!.id]), content: 'bravo kilo', client: 'ZulipMobile' } },
    31: { as: 0, params: { type: 'private', to: JSON.stringify([people[SPARSE]!.id]), content: 'zulu https://example.com/x' } },
  };
  const sends = fc.sample(fc.record({
    sender: fc.nat({ max: 3 }), stream: fc.option(fc.constantFrom(...STREAMS), { nil: undefined }), pm: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
    topic: fc.constantFrom(...TOPICS), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), link: fc.boolean(), mention: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
  }), { numRuns: 40, seed: 4242 });
  for (const [i, s] of sends.entries()) {
    const extra = sparse[i];
    if (extra) assert.equal((await t.api('POST', '/api/v1/messages', { as: people[extra.as]!, params: extra.params })).status, 200);
    const sender = people[s.sender]!;
    let content = s.words.join(' ');
    if (s.link) content += ' https://example.com/x';
    if (s.mention !== undefined) content += ` @**${people[s.mention]!.row.full_name}**`;
    const toStream = s.stream && (s.stream !== 'priv' || subscribed.priv!.includes(s.sender));
    const params = toStream
      ? { type: 'stream', to: s.stream, topic: s.topic, content }
      : { type: 'private', to: JSON.stringify(s.pm.map((i) => people[i]!.id)), content };
    const r = await t.api('POST', '/api/v1/messages', { as: sender, params });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  // Some messages read, some starred (the sparse reader's last among them), for the flag operators.
  await t.app.ctx.store.db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', FLAG_BITS.read) })).where('message_id', '<', 15).execute();
  await t.app.ctx.store.db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', FLAG_BITS.starred) })).where('message_id', 'in', [3, 8, 21, 30, 34]).execute();
  // Reactions on a few, for has:reaction (level 249).
  await t.app.ctx.store.db.insertInto('reaction').values([4, 11, 11, 27].map((message_id, i) => ({
    message_id, user_id: people[i % 2]!.id, emoji_name: i % 2 ? 'smile' : 'heart', emoji_code: i % 2 ? '1f642' : '2764', reaction_type: 'unicode_emoji',
  }))).execute();
  // Ann's topic policies: pub1's lunch muted, its Deploy followed; pub2 muted but its misc unmuted.
  const db = t.app.ctx.store.db;
  const streamId = async (name: string) => (await db.selectFrom('stream').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
  const [pub1, pub2] = [await streamId('pub1'), await streamId('pub2')];
  // From level 214 Ann already follows the topics she started (automatically_follow_topics_policy): hers are exactly these.
  await db.deleteFrom('user_topic').where('user_id', '=', people[1]!.id).execute();
  await db.insertInto('user_topic').values([
    { user_id: people[1]!.id, stream_id: pub1, topic: 'lunch', topic_lower: 'lunch', last_updated: 1, visibility_policy: 1 },
    { user_id: people[1]!.id, stream_id: pub1, topic: 'Deploy', topic_lower: 'deploy', last_updated: 1, visibility_policy: 3 },
    { user_id: people[1]!.id, stream_id: pub2, topic: 'misc', topic_lower: 'misc', last_updated: 1, visibility_policy: 2 },
  ]).execute();
  await db.updateTable('subscription').set({ is_muted: 1 }).where('user_id', '=', people[1]!.id).where('stream_id', '=', pub2).execute();
});
after(() => t.close());

/** The stored messages as the event queues' predicate sees them, read once: the tests below change no message. */
let stored: Promise<InternalMessage[]> | undefined;
const storedMessages = () => (stored ??= (async () => {
  const db = t.app.ctx.store.db;
  const all = await db.selectFrom('message').selectAll().orderBy('id').execute();
  const recipients = await loadRecipients(db, all);
  const reacted = new Set((await db.selectFrom('reaction').select('message_id').execute()).map((r) => r.message_id));
  return all.map((m): InternalMessage => ({
    has_reaction: reacted.has(m.id),
    id: m.id, sender_id: m.sender_id, stream_id: m.stream_id, topic: m.topic, content: m.content,
    pm_user_ids: m.stream_id === null ? [...new Set([...(recipients.get(m.recipient_id)?.members ?? []).map((u) => u.id), m.sender_id])] : [],
    has_link: m.has_link === 1, has_image: m.has_image === 1, has_attachment: m.has_attachment === 1,
  }));
})());
/** Each viewer's flags by message id (their rows), read once: the tests below change no flag. */
const flagsOf = new Map<number, Promise<Map<number, number>>>();
const viewerFlags = (viewer: TestUser) => {
  if (!flagsOf.has(viewer.id)) {
    flagsOf.set(viewer.id, t.app.ctx.store.db.selectFrom('user_message').select(['message_id', 'flags']).where('user_id', '=', viewer.id).execute()
      .then((rows) => new Map(rows.map((r) => [r.message_id, r.flags]))));
  }
  return flagsOf.get(viewer.id)!;
};

/** What the narrow matches among the messages the viewer may read, oldest first, with the viewer's flags (null: no row). */
async function expectedRows(viewer: TestUser, terms: ResolvedNarrow): Promise<WindowRow[]> {
  const flags = await viewerFlags(viewer);
  const out: WindowRow[] = [];
  for (const m of await storedMessages()) {
    const mine = flags.get(m.id) ?? null;
    if (mine === null && !(m.stream_id !== null && terms.historyStreamIds.includes(m.stream_id))) continue;
    if (matchesNarrow(terms.terms, m, mine)) out.push({ id: m.id, flags: mine });
  }
  return out;
}

const term = fc.oneof(
  fc.record({ operator: fc.constant('stream'), operand: fc.constantFrom(...STREAMS) }),
  fc.record({ operator: fc.constant('topic'), operand: fc.constantFrom(...TOPICS, 'LUNCH') }),
  fc.record({ operator: fc.constant('sender'), operand: fc.nat({ max: PEOPLE - 1 }).map((i) => `user:${i}`) }),
  fc.record({ operator: fc.constant('pm-with'), operand: fc.uniqueArray(fc.nat({ max: PEOPLE - 1 }), { minLength: 1, maxLength: 2 }).map((a) => a.map((i) => `user:${i}`)) }),
  fc.record({ operator: fc.constantFrom('dm-including', 'group-pm-with'), operand: fc.nat({ max: PEOPLE - 1 }).map((i) => `user:${i}`) }),
  fc.record({ operator: fc.constant('is'), operand: fc.constantFrom('private', 'starred', 'mentioned', 'unread', 'resolved', 'alerted', 'followed', 'muted') }),
  fc.record({ operator: fc.constant('has'), operand: fc.constantFrom('link', 'image', 'attachment', 'reaction') }),
  fc.record({ operator: fc.constant('in'), operand: fc.constantFrom('home', 'all') }),
  fc.record({ operator: fc.constant('streams'), operand: fc.constant('public') }),
  fc.record({ operator: fc.constant('id'), operand: fc.integer({ min: 1, max: 45 }) }),
  fc.record({ operator: fc.constant('search'), operand: fc.constantFrom(...WORDS, 'alpha bravo', 'lunch') }),
);
const narrowArb = fc.array(fc.tuple(term, fc.boolean()), { maxLength: 3 });
const viewerArb = fc.nat({ max: PEOPLE - 1 });

/** The narrow as a client sends it, with people's emails; undefined when it is Zulip's BAD_NARROW. */
async function resolve(viewer: TestUser, raw: Array<[{ operator: string; operand: unknown }, boolean]>) {
  const narrow = raw.map(([x, negated]) => ({
    operator: x.operator,
    operand: typeof x.operand === 'string' && x.operand.startsWith('user:') ? people[Number(x.operand.slice(5))]!.email
      : Array.isArray(x.operand) ? x.operand.map((u) => people[Number(String(u).slice(5))]!.email) : x.operand,
    negated: negated && x.operator !== 'search' && x.operator !== 'streams',
  }));
  try {
    const resolved = await resolveNarrow(t.app.ctx.store.db, viewer.row, parseNarrow(narrow));
    return { narrow, resolved, pm: await loadPmLookups(t.app.ctx.store.db, resolved.terms, viewer.row) };
  } catch (err) {
    assert.ok(err instanceof ApiError && err.code === 'BAD_NARROW', String(err));
    return undefined;
  }
}

test('property: SQL narrow results equal the in-memory predicate over all visible messages', async () => {
  await fc.assert(fc.asyncProperty(viewerArb, narrowArb, async (who, raw) => {
    const viewer = people[who]!;
    const r = await resolve(viewer, raw);
    if (!r) return;
    const sqlIds = (await narrowQuery(t.app.ctx.store.db, t.app.ctx.store.dialect, viewer.row, r.resolved, r.pm).orderBy('message.id').execute()).map((x) => x.id);
    assert.deepEqual(sqlIds, (await expectedRows(viewer, r.resolved)).map((x) => x.id), JSON.stringify(r.narrow));
  }), { numRuns: 250 });
});

/** The largest message id PostgreSQL compares (fetch.ts clamps anchors to it): "after the newest". */
const MAX_ID = 2_147_483_647;

/**
 * An anchor: at or next to the viewer's first or last message (their id range, which
 * SQLite's reads stop at), or anywhere from before the first message to after the last.
 */
const anchorArb = fc.oneof(
  fc.record({ at: fc.constantFrom('first' as const, 'last' as const), offset: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ at: fc.constant('id' as const), offset: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(MAX_ID)) }),
);
/** Narrows as above, and as many again led by a positive is: (the partial index a walk of one's own rows takes). */
const isTerm = fc.record({ operator: fc.constant('is'), operand: fc.constantFrom('private', 'starred', 'mentioned', 'unread') });
const windowNarrowArb = fc.oneof(narrowArb, fc.tuple(isTerm, fc.array(fc.tuple(term, fc.boolean()), { maxLength: 2 }))
  .map(([lead, rest]): Array<[{ operator: string; operand: unknown }, boolean]> => [[lead, false], ...rest]));
/** Every viewer, the sparse and the empty reader as often as the four busy ones together. */
const windowViewerArb = fc.oneof(fc.nat({ max: 3 }), fc.constantFrom(SPARSE, EMPTY));
const sideArb = fc.record({ op: fc.constantFrom<Side['op']>('<', '<=', '>', '>='), limit: fc.integer({ min: 1, max: 6 }) });

/**
 * Which walk src/store/narrow-sql.ts takes on SQLite (walksOwnRows there): the viewer's own rows
 * when the narrow opens no stream history and no positive term is one the message table's
 * indexes answer; else messages, between the viewer's bounds unless history is opened.
 * Counted only to show that the generated cases take every path.
 */
const MESSAGE_INDEXED = new Set(['stream', 'sender', 'pm-with', 'dm-including', 'group-pm-with', 'id', 'search']);
function pathOf(narrow: ResolvedNarrow): 'own rows' | 'bounded messages' | 'stream history' {
  if (narrow.historyStreamIds.length > 0) return 'stream history';
  return narrow.terms.some((x) => !x.negated && MESSAGE_INDEXED.has(x.op)) ? 'bounded messages' : 'own rows';
}
/** The partial index a walk of one's own rows takes there (ownIndexFor): the first flag the narrow requires, of these. */
function ownIndexOf(narrow: ResolvedNarrow): string {
  const is = new Set(narrow.terms.flatMap((x) => (x.op === 'is' && !x.negated ? [x.what] : [])));
  return ['starred', 'mentioned', 'private', 'unread'].find((f) => is.has(f as 'starred')) ?? 'read and unread';
}

test('property: every window around an anchor, and the first unread, equal the predicate\'s, for sparse and empty readers too', async () => {
  const db = t.app.ctx.store.db;
  const dialect = t.app.ctx.store.dialect;
  const seen = new Map<string, number>();
  const count = (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1);
  await fc.assert(fc.asyncProperty(windowViewerArb, windowNarrowArb, anchorArb, sideArb, async (who, raw, anchorAt, side) => {
    const viewer = people[who]!;
    const r = await resolve(viewer, raw);
    if (!r) return;
    // Only where recipient rows are keyed by message are walks bounded, as reads/messages.ts does.
    const bounds = await dialect.userBounds(db, viewer.id);
    const ownIds = [...(await viewerFlags(viewer)).keys()];
    const first = ownIds.length ? Math.min(...ownIds) : null;
    const last = ownIds.length ? Math.max(...ownIds) : null;
    const base = anchorAt.at === 'first' ? first : anchorAt.at === 'last' ? last : 0;
    const anchor = Math.max(0, (base ?? 0) + anchorAt.offset);

    const all = await expectedRows(viewer, r.resolved);
    const beyond = { '<': (id: number) => id < anchor, '<=': (id: number) => id <= anchor, '>': (id: number) => id > anchor, '>=': (id: number) => id >= anchor }[side.op];
    const matching = all.filter((x) => beyond(x.id));
    const expected = (side.op.startsWith('<') ? matching.reverse() : matching).slice(0, side.limit);
    const rows = await narrowWindow(db, dialect, viewer.row, r.resolved, r.pm, { ...side, anchor }, bounds);
    const label = JSON.stringify({ viewer: who, narrow: r.narrow, anchor, side, bounds });
    assert.deepEqual(rows.map((x) => ({ id: x.id, flags: x.flags === null ? null : Number(x.flags) })), expected, label);

    const firstUnread = all.find((x) => x.flags !== null && (x.flags & FLAG_BITS.read) === 0)?.id;
    assert.equal(await narrowFirstUnread(db, dialect, viewer.row, r.resolved, r.pm, bounds), firstUnread, label);

    const reader = who === EMPTY ? 'empty' : who === SPARSE ? 'sparse' : 'busy';
    const where = first === null ? 'none' : anchor < first ? 'before first' : anchor > last! ? 'after last' : anchor === first || anchor === last ? 'at a bound' : 'inside';
    count(`${reader} reader, ${pathOf(r.resolved)}`);
    if (pathOf(r.resolved) === 'own rows' && who !== EMPTY) count(`own rows through ${ownIndexOf(r.resolved)}`);
    count(`anchor ${where}`);
  }), { numRuns: 400 });
  // The cases above reached every path for every kind of reader, each partial index, and
  // anchors on every side of the bounds. The seed differs from run to run; each of these
  // comes up a dozen times or more in a run, so that none is missed by chance.
  const expected = [
    ...['busy', 'sparse', 'empty'].flatMap((reader) => ['own rows', 'bounded messages', 'stream history'].map((path) => `${reader} reader, ${path}`)),
    ...['starred', 'mentioned', 'private', 'unread', 'read and unread'].map((index) => `own rows through ${index}`),
    ...['before first', 'after last', 'at a bound', 'inside', 'none'].map((where) => `anchor ${where}`),
  ];
  for (const key of expected) assert.ok(seen.has(key), `no case of ${key}: ${JSON.stringify([...seen])}`);
});
