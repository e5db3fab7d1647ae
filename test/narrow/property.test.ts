import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { transact } from '../../src/actions/transaction.js';
import { createStreamWithSubscribers } from '../../src/actions/stream-create.js';
import { parseNarrow } from '../../src/narrow/parse.js';
import { resolveNarrow } from '../../src/narrow/resolve.js';
import { loadPmLookups, narrowQuery } from '../../src/narrow/sql.js';
import { matchesNarrow } from '../../src/narrow/match.js';
import { loadRecipients } from '../../src/reads/messages.js';
import type { InternalMessage } from '../../src/narrow/types.js';
import { ApiError } from '../../src/errors.js';
import { FLAG_BITS } from '../../src/lib/message-flags.js';

/**
 * The SQL of GET /messages and the in-memory predicate of the event queues must agree:
 * for random messages and random narrows, the query's result equals the predicate applied
 * to every message the viewer may see.
 */
let t: TestApp;
let people: TestUser[];
const WORDS = ['alpha', 'bravo', 'delta', 'kilo', 'lima', 'papa', 'zulu'];
const TOPICS = ['lunch', 'Deploy', '\u2714 done', 'misc'];
const STREAMS = ['pub1', 'pub2', 'priv'];

before(async () => {
  t = await testApp();
  people = [t.owner, await t.createUser({ name: 'Ann One' }), await t.createUser({ name: 'Ben Two' }), await t.createUser({ name: 'Cy Three' })];
  const [o, a, b, c] = people.map((p) => p.row);
  await transact(t.app.ctx, async (tx) => {
    await createStreamWithSubscribers(tx, t.realm, 'pub1', [o!, a!, b!]);
    await createStreamWithSubscribers(tx, t.realm, 'pub2', [a!, c!]);
    await createStreamWithSubscribers(tx, t.realm, { name: 'priv', inviteOnly: true, historyPublicToSubscribers: true }, [o!, b!]);
  });
  const subscribed: Record<string, number[]> = { pub1: [0, 1, 2], pub2: [1, 3], priv: [0, 2] };
  const sends = fc.sample(fc.record({
    sender: fc.nat({ max: 3 }), stream: fc.option(fc.constantFrom(...STREAMS), { nil: undefined }), pm: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
    topic: fc.constantFrom(...TOPICS), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), link: fc.boolean(), mention: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
  }), { numRuns: 40, seed: 4242 });
  for (const s of sends) {
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
  // Some messages read, some starred, for the flag operators.
  await t.app.ctx.store.db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', FLAG_BITS.read) })).where('message_id', '<', 15).execute();
  await t.app.ctx.store.db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', FLAG_BITS.starred) })).where('message_id', 'in', [3, 8, 21, 30]).execute();
  await t.app.ctx.store.db.insertInto('muted_topic').values({ user_id: people[1]!.id, stream_id: (await t.app.ctx.store.db.selectFrom('stream').select('id').where('name', '=', 'pub1').executeTakeFirstOrThrow()).id, topic: 'lunch', topic_lower: 'lunch', date_muted: 1 }).execute();
});
after(() => t.close());

async function expectedIds(viewer: TestUser, terms: Awaited<ReturnType<typeof resolveNarrow>>): Promise<number[]> {
  const db = t.app.ctx.store.db;
  const all = await db.selectFrom('message').selectAll().orderBy('id').execute();
  const recipients = await loadRecipients(db, all);
  const flags = new Map((await db.selectFrom('user_message').select(['message_id', 'flags']).where('user_id', '=', viewer.id).execute()).map((r) => [r.message_id, r.flags]));
  const out: number[] = [];
  for (const m of all) {
    const mine = flags.has(m.id);
    if (!mine && !(m.stream_id !== null && terms.historyStreamIds.includes(m.stream_id))) continue;
    const info = recipients.get(m.recipient_id);
    const pmIds = m.stream_id === null ? [...new Set([...(info?.members ?? []).map((u) => u.id), m.sender_id])] : [];
    const im: InternalMessage = {
      id: m.id, sender_id: m.sender_id, stream_id: m.stream_id, topic: m.topic, pm_user_ids: pmIds, content: m.content,
      has_link: m.has_link === 1, has_image: m.has_image === 1, has_attachment: m.has_attachment === 1,
    };
    if (matchesNarrow(terms.terms, im, mine ? flags.get(m.id)! : null)) out.push(m.id);
  }
  return out;
}

const term = fc.oneof(
  fc.record({ operator: fc.constant('stream'), operand: fc.constantFrom(...STREAMS) }),
  fc.record({ operator: fc.constant('topic'), operand: fc.constantFrom(...TOPICS, 'LUNCH') }),
  fc.record({ operator: fc.constant('sender'), operand: fc.nat({ max: 3 }).map((i) => `user:${i}`) }),
  fc.record({ operator: fc.constant('pm-with'), operand: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 2 }).map((a) => a.map((i) => `user:${i}`)) }),
  fc.record({ operator: fc.constantFrom('dm-including', 'group-pm-with'), operand: fc.nat({ max: 3 }).map((i) => `user:${i}`) }),
  fc.record({ operator: fc.constant('is'), operand: fc.constantFrom('private', 'starred', 'mentioned', 'unread', 'resolved', 'alerted') }),
  fc.record({ operator: fc.constant('has'), operand: fc.constantFrom('link', 'image', 'attachment') }),
  fc.record({ operator: fc.constant('in'), operand: fc.constantFrom('home', 'all') }),
  fc.record({ operator: fc.constant('streams'), operand: fc.constant('public') }),
  fc.record({ operator: fc.constant('id'), operand: fc.integer({ min: 1, max: 45 }) }),
  fc.record({ operator: fc.constant('search'), operand: fc.constantFrom(...WORDS, 'alpha bravo', 'lunch') }),
);
const narrowArb = fc.array(fc.tuple(term, fc.boolean()), { maxLength: 3 });

test('property: SQL narrow results equal the in-memory predicate over all visible messages', async () => {
  await fc.assert(fc.asyncProperty(fc.nat({ max: 3 }), narrowArb, async (who, raw) => {
    const viewer = people[who]!;
    const narrow = raw.map(([x, negated]) => ({
      operator: x.operator,
      operand: typeof x.operand === 'string' && x.operand.startsWith('user:') ? people[Number(x.operand.slice(5))]!.email
        : Array.isArray(x.operand) ? x.operand.map((u) => people[Number(String(u).slice(5))]!.email) : x.operand,
      negated: negated && x.operator !== 'search' && x.operator !== 'streams',
    }));
    let resolved;
    try {
      resolved = await resolveNarrow(t.app.ctx.store.db, viewer.row, parseNarrow(narrow));
    } catch (err) {
      assert.ok(err instanceof ApiError && err.code === 'BAD_NARROW', String(err));
      return;
    }
    const pm = await loadPmLookups(t.app.ctx.store.db, resolved.terms, viewer.row);
    const sqlIds = (await narrowQuery(t.app.ctx.store.db, t.app.ctx.store.dialect, viewer.row, resolved, pm).orderBy('message.id').execute()).map((r) => r.id);
    assert.deepEqual(sqlIds, await expectedIds(viewer, resolved), JSON.stringify(narrow));
  }), { numRuns: 250 });
});
