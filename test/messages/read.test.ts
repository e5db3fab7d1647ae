import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
const ids: Record<string, number> = {};

const send = (as: TestUser, params: Record<string, unknown>) => sendMessage(t, as, params);
const fetch = (as: TestUser, query: Record<string, unknown>) => getMessages(t, as, query);
const idsOf = (r: ApiResult) => messageIds(r.body);

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, guest } = await t.createUsers(people('alice', 'bob', 'carol', 'guest')));
  await createStreams(t, { general: [alice, bob], design: [alice, bob, guest], secret: { inviteOnly: true, subscribers: [alice] } });
  ids.g1 = await send(alice, { type: 'stream', to: 'general', topic: 'lunch', content: 'pizza at noon' });
  ids.g2 = await send(bob, { type: 'stream', to: 'general', topic: 'Lunch', content: 'tacos instead? https://tacos.example.com' });
  ids.g3 = await send(alice, { type: 'stream', to: 'general', topic: 'deploy', content: 'deploying the release @**Bob Jones**' });
  ids.d1 = await send(bob, { type: 'stream', to: 'design', topic: 'mockups', content: 'new mockups uploaded' });
  ids.s1 = await send(alice, { type: 'stream', to: 'secret', topic: 'plans', content: 'secret pizza plans' });
  ids.p1 = await send(alice, { type: 'private', to: [bob.id], content: 'hey bob, pizza?' });
  ids.p2 = await send(bob, { type: 'private', to: [alice.id], content: 'sure' });
  ids.h1 = await send(alice, { type: 'private', to: [bob.id, carol.id], content: 'group chat' });
  ids.c1 = await send(carol, { type: 'private', to: [alice.id], content: 'carol to alice' });
});
after(() => t.close());

test('the default feed: everything the user received, sorted, with the response fields', async () => {
  const r = await fetch(bob, {});
  assert.equal(r.status, 200);
  assert.deepEqual(idsOf(r), [ids.g1, ids.g2, ids.g3, ids.d1, ids.p1, ids.p2, ids.h1]);
  assert.equal(r.body.anchor, 10000000000000000);
  assert.equal(r.body.found_newest, true);
  assert.equal(r.body.found_oldest, true);
  assert.equal(r.body.found_anchor, false);
  assert.equal(r.body.history_limited, false);
  assert.deepEqual(r.body.messages.find((m: any) => m.id === ids.g3).flags, ['mentioned']);
});

test('anchors: ids, oldest, first_unread, include_anchor, num_before/num_after and found_* flags', async () => {
  const mid = await fetch(bob, { anchor: ids.g3, num_before: 1, num_after: 1 });
  assert.deepEqual(idsOf(mid), [ids.g2, ids.g3, ids.d1]);
  assert.equal(mid.body.found_anchor, true);
  assert.equal(mid.body.found_oldest, false);
  assert.equal(mid.body.found_newest, false);
  const noAnchor = await fetch(bob, { anchor: ids.g3, num_before: 1, num_after: 1, include_anchor: false });
  assert.deepEqual(idsOf(noAnchor), [ids.g2, ids.d1]);
  assert.equal(noAnchor.body.found_anchor, false);
  const oldest = await fetch(bob, { anchor: 'oldest', num_before: 0, num_after: 2 });
  assert.deepEqual(idsOf(oldest), [ids.g1, ids.g2]);
  assert.equal(oldest.body.found_oldest, true);
  assert.equal(oldest.body.anchor, 0);
  // Bob has read nothing: the first unread is his first message.
  const unread = await fetch(bob, { anchor: 'first_unread', num_before: 0, num_after: 1 });
  assert.equal(unread.body.anchor, ids.g1);
  const legacy = await t.api('GET', '/api/v1/messages', { as: bob, params: { use_first_unread_anchor: true, num_before: 0, num_after: 1 } });
  assert.equal(legacy.body.anchor, ids.g1);
  // Nothing unread in a narrow: the anchor falls back to the newest.
  const none = await fetch(bob, { anchor: 'first_unread', num_before: 1, num_after: 1, narrow: [{ operator: 'stream', operand: 'general' }, { operator: 'topic', operand: 'nothing here' }] });
  assert.equal(none.body.anchor, 10000000000000000);
});

test('narrow operators alone, in the legacy pair form, combined and negated', async () => {
  const n = async (narrow: unknown, as = bob) => idsOf(await fetch(as, { narrow }));
  assert.deepEqual(await n([{ operator: 'stream', operand: 'general' }]), [ids.g1, ids.g2, ids.g3]);
  assert.deepEqual(await n([['stream', 'general']]), [ids.g1, ids.g2, ids.g3]);
  assert.deepEqual(await n([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'LUNCH' }]), [ids.g1, ids.g2]);
  assert.deepEqual(await n([{ operator: 'stream', operand: 'general' }, { operator: 'topic', operand: 'lunch', negated: true }]), [ids.g3]);
  assert.deepEqual(await n([{ operator: 'sender', operand: alice.email }]), [ids.g1, ids.g3, ids.p1, ids.h1]);
  assert.deepEqual(await n([{ operator: 'sender', operand: alice.id, negated: true }]), [ids.g2, ids.d1, ids.p2]);
  assert.deepEqual(await n([{ operator: 'pm-with', operand: alice.email }]), [ids.p1, ids.p2]);
  assert.deepEqual(await n([{ operator: 'dm', operand: [alice.id] }]), [ids.p1, ids.p2]);
  assert.deepEqual(await n([{ operator: 'pm-with', operand: `${alice.email},${carol.email}` }]), [ids.h1]);
  assert.deepEqual(await n([{ operator: 'group-pm-with', operand: carol.email }]), [ids.h1]);
  assert.deepEqual(await n([{ operator: 'dm-including', operand: carol.id }]), [ids.h1]);
  assert.deepEqual(await n([{ operator: 'is', operand: 'private' }]), [ids.p1, ids.p2, ids.h1]);
  assert.deepEqual(await n([{ operator: 'is', operand: 'dm', negated: true }]), [ids.g1, ids.g2, ids.g3, ids.d1]);
  assert.deepEqual(await n([{ operator: 'is', operand: 'mentioned' }]), [ids.g3]);
  assert.deepEqual(await n([{ operator: 'has', operand: 'link' }]), [ids.g2]);
  assert.deepEqual(await n([{ operator: 'id', operand: ids.d1 }]), [ids.d1]);
  assert.deepEqual(await n([{ operator: 'in', operand: 'all' }]), [ids.g1, ids.g2, ids.g3, ids.d1, ids.p1, ids.p2, ids.h1]);
  assert.deepEqual(await n([{ operator: 'search', operand: 'pizza' }]), [ids.g1, ids.p1]);
  assert.deepEqual(await n([{ operator: 'search', operand: 'pizza' }, { operator: 'is', operand: 'private' }]), [ids.p1]);
  assert.deepEqual(await n([{ operator: 'stream', operand: 'general' }, { operator: 'is', operand: 'unread' }]), [ids.g1, ids.g2, ids.g3]);
  assert.deepEqual(await n([{ operator: 'near', operand: ids.g1 }, { operator: 'stream', operand: 'design' }]), [ids.d1]);
});

test('search answers highlighted match_content and match_subject', async () => {
  const r = await fetch(bob, { narrow: [{ operator: 'search', operand: 'tacos' }] });
  const [m] = r.body.messages;
  assert.match(m.match_content, /<span class="highlight">tacos<\/span>/);
  assert.equal(m.match_subject, 'Lunch');
  const topic = await fetch(bob, { narrow: [{ operator: 'search', operand: 'lunch' }] });
  assert.equal(topic.body.messages[0].match_subject, '<span class="highlight">lunch</span>');
});

test('stream history: a public stream reads without subscribing (historical); a private one never', async () => {
  const r = await fetch(carol, { narrow: [{ operator: 'stream', operand: 'general' }] });
  assert.deepEqual(idsOf(r), [ids.g1, ids.g2, ids.g3]);
  assert.deepEqual(r.body.messages[0].flags, ['read', 'historical']);
  const hidden = await fetch(bob, { narrow: [{ operator: 'stream', operand: 'secret' }] });
  assert.equal(hidden.status, 400);
  assert.deepEqual(hidden.body, { result: 'error', msg: 'Invalid narrow operator: unknown stream secret', code: 'BAD_NARROW' });
  const missing = await fetch(bob, { narrow: [{ operator: 'stream', operand: 'no-such-stream' }] });
  assert.deepEqual(missing.body, { ...hidden.body, msg: 'Invalid narrow operator: unknown stream no-such-stream' }, 'hidden and missing streams look the same');
  const guestPublic = await fetch(guest, { narrow: [{ operator: 'stream', operand: 'general' }] });
  assert.equal(guestPublic.status, 400, 'guests do not see streams they are not in');
  const pub = await fetch(carol, { narrow: [{ operator: 'streams', operand: 'public' }] });
  assert.deepEqual(idsOf(pub), [ids.g1, ids.g2, ids.g3, ids.d1]);
});

test('privacy: no parameter combination shows a private message or private stream to an outsider', async () => {
  const outsiderViews = [
    {}, { narrow: [{ operator: 'search', operand: 'pizza' }] }, { narrow: [{ operator: 'is', operand: 'private' }] },
    { narrow: [{ operator: 'streams', operand: 'public' }] }, { narrow: [{ operator: 'sender', operand: alice.email }] },
    { narrow: [{ operator: 'id', operand: ids.s1 }] }, { narrow: [{ operator: 'id', operand: ids.p1 }] },
    { narrow: [{ operator: 'pm-with', operand: bob.email }] }, { anchor: ids.s1, num_before: 5, num_after: 5 },
    { narrow: [{ operator: 'stream', operand: 'general', negated: true }] },
  ];
  for (const q of outsiderViews) {
    const r = await fetch(carol, q);
    const seen = idsOf(r);
    for (const forbidden of [ids.s1, ids.p1, ids.p2]) assert.ok(!seen.includes(forbidden), `${JSON.stringify(q)} leaked ${forbidden}`);
  }
  const matches = await t.api('GET', '/api/v1/messages/matches_narrow', { as: carol, params: { msg_ids: [ids.s1, ids.p1, ids.g1], narrow: [] } });
  assert.deepEqual(Object.keys(matches.body.messages), [String(ids.g1)].filter(() => false), 'carol received none of these');
});

test('GET /messages/matches_narrow tells which of the given messages match', async () => {
  const r = await t.api('GET', '/api/v1/messages/matches_narrow', { as: bob, params: { msg_ids: [ids.g1, ids.g2, ids.g3], narrow: [{ operator: 'search', operand: 'pizza' }] } });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.body.messages), [String(ids.g1)]);
  assert.match(r.body.messages[ids.g1].match_content, /<span class="highlight">pizza<\/span>/);
  assert.equal(r.body.messages[ids.g1].match_subject, 'lunch');
});

test('errors: too many messages, bad anchors, bad narrows, missing parameters, no credentials', async () => {
  const many = await fetch(bob, { num_before: 3000, num_after: 2001 });
  assert.deepEqual(many.body, { result: 'error', msg: 'Too many messages requested (maximum 5000).', code: 'BAD_REQUEST' });
  assert.equal((await fetch(bob, { anchor: 'middle' })).body.msg, 'Invalid anchor');
  assert.equal((await t.api('GET', '/api/v1/messages', { as: bob, params: { num_before: 1, num_after: 1 } })).body.msg, "Missing 'anchor' argument.");
  assert.equal((await t.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_after: 1 } })).body.msg, "Missing 'num_before' argument");
  const unknown = await fetch(bob, { narrow: [{ operator: 'colour', operand: 'red' }] });
  assert.deepEqual(unknown.body, { result: 'error', msg: 'Invalid narrow operator: unknown operator colour', code: 'BAD_NARROW' });
  for (const name of ['constructor', '__proto__', 'toString']) {
    assert.equal((await fetch(bob, { narrow: [{ operator: name, operand: 'x' }] })).body.msg, `Invalid narrow operator: unknown operator ${name}`);
  }
  assert.equal((await fetch(bob, { narrow: [{ operator: 'is', operand: 'sparkly' }] })).body.msg, "Invalid narrow operator: unknown 'is' operand sparkly");
  assert.equal((await fetch(bob, { narrow: [{ operator: 'sender', operand: 'ghost@parley.test' }] })).body.msg, 'Invalid narrow operator: unknown user ghost@parley.test');
  // Zulip's narrow.py wording for the other operators' bad operands.
  const narrowError = async (operator: string, operand: unknown) => (await fetch(bob, { narrow: [{ operator, operand }] })).body.msg;
  assert.equal(await narrowError('pm-with', 'ghost@parley.test'), 'Invalid narrow operator: unknown user in ghost@parley.test');
  assert.equal(await narrowError('pm-with', `${alice.email},ghost@parley.test`), `Invalid narrow operator: unknown user in ${alice.email},ghost@parley.test`);
  assert.equal(await narrowError('pm-with', ''), 'Invalid narrow operator: unknown user in ');
  assert.equal(await narrowError('pm-with', []), 'Invalid narrow operator: unknown user in []');
  assert.equal(await narrowError('id', -3), 'Invalid narrow operator: Invalid message ID');
  assert.equal(await narrowError('id', 'abc'), 'Invalid narrow operator: Invalid message ID');
  assert.equal(await narrowError('streams', 'private'), 'Invalid narrow operator: unknown streams operand private');
  // A search with no words matches nothing; its negation, everything.
  for (const operand of ['', '*', '🙂']) {
    assert.deepEqual(idsOf(await fetch(bob, { narrow: [{ operator: 'search', operand }] })), []);
    assert.ok(idsOf(await fetch(bob, { narrow: [{ operator: 'search', operand, negated: true }] })).length > 0);
  }
  assert.equal((await fetch(bob, { narrow: '{"a":1}' })).status, 400);
  assert.equal((await fetch(bob, { narrow: 'not json' })).status, 400);
  assert.equal((await t.api('GET', '/api/v1/messages', { as: null, params: { anchor: 'newest', num_before: 1, num_after: 0 } })).status, 401);
});

test('first_unread skips muted streams and topics (a narrow to a stream keeps that stream); stream operands; anchor bounds', async () => {
  const u = await testApp();
  try {
    const { dan, erin } = await u.createUsers({ dan: { name: 'Dan' }, erin: { name: 'Erin' } });
    const loudId = (await createStreams(u, { quiet: [dan, erin], loud: [dan, erin] })).loud.id;
    // A stream whose name is the digits of another's id.
    const digitsId = (await createStreams(u, { [String(loudId)]: [dan, erin] }))[String(loudId)]!.id;
    const post = (to: string | string[], topic: string) => sendMessage(u, erin, { type: 'stream', to, topic, content: `${String(to)}/${topic}` });
    const q1 = await post('quiet', 'a');
    const l1 = await post('loud', 'muted topic');
    const l2 = await post('loud', 'fine');
    const quietId = (await u.api('GET', '/api/v1/get_stream_id', { as: dan, params: { stream: 'quiet' } })).body.stream_id;
    assert.equal((await u.api('POST', '/api/v1/users/me/subscriptions/properties', { as: dan, params: { subscription_data: [{ stream_id: quietId, property: 'is_muted', value: true }] } })).status, 200);
    assert.equal((await u.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as: dan, params: { stream_id: loudId, topic: 'muted topic', op: 'add' } })).status, 200);
    const firstUnread = async (narrow: unknown[]) =>
      (await u.api('GET', '/api/v1/messages', { as: dan, params: { anchor: 'first_unread', num_before: 0, num_after: 1, narrow } })).body.anchor;
    assert.equal(await firstUnread([]), l2, 'the muted stream and the muted topic are skipped');
    assert.equal(await firstUnread([['stream', 'quiet']]), q1, 'narrowed to a muted stream, its messages count');
    assert.equal(await firstUnread([['stream', 'loud']]), l2, "but that stream's muted topics still do not");
    assert.equal(await firstUnread([['stream', 'loud'], ['topic', 'muted topic']]), 10000000000000000);
    assert.ok(l1 > 0);
    // A string operand is a stream name, even when it is all digits; an integer is an ID.
    // (A `to` of digits is an ID, as in Zulip; a one-name list is a name.)
    const inDigits = await post([String(loudId)], 'x');
    const byName = await u.api('GET', '/api/v1/messages', { as: dan, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['stream', String(loudId)]] } });
    assert.deepEqual(idsOf(byName), [inDigits]);
    const byId = await u.api('GET', '/api/v1/messages', { as: dan, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'stream', operand: digitsId }] } });
    assert.deepEqual(idsOf(byId), [inDigits]);
    const loudById = await u.api('GET', '/api/v1/messages', { as: dan, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'stream', operand: loudId }] } });
    assert.deepEqual(idsOf(loudById), [l1, l2]);
    // Anchors past Zulip's "after everything" value are held to it.
    const far = await u.api('GET', '/api/v1/messages', { as: dan, params: { anchor: '99999999999999999999999', num_before: 1, num_after: 0 } });
    assert.equal(far.body.anchor, 10000000000000000);
    assert.deepEqual(idsOf(far), [inDigits]);
  } finally {
    await u.close();
  }
});

// Last in this file: it sends a message the exact-list tests above do not expect.
test('search highlighting never splits a character reference, and match_content is HTML even without apply_markdown', async () => {
  const id = await send(alice, { type: 'stream', to: 'general', topic: 'a <b> & "quote" tower', content: 'Salt & pepper **quotes**' });
  const r = await fetch(bob, { narrow: [{ operator: 'search', operand: 'quo' }] });
  const m = r.body.messages.find((x: { id: number }) => x.id === id);
  assert.equal(m.match_subject, 'a &lt;b&gt; &amp; &quot;<span class="highlight">quote</span>&quot; tower');
  assert.equal(m.match_content, '<p>Salt &amp; pepper <strong><span class="highlight">quotes</span></strong></p>');
  const amp = await fetch(bob, { narrow: [{ operator: 'search', operand: 'amp' }] });
  assert.ok(!amp.body.messages.some((x: { match_content: string }) => x.match_content.includes('&<span')), 'no highlight inside &amp;');
  const raw = await fetch(bob, { narrow: [{ operator: 'search', operand: 'pepper' }], apply_markdown: false });
  const rm = raw.body.messages.find((x: { id: number }) => x.id === id);
  assert.equal(rm.content, 'Salt & pepper **quotes**');
  assert.equal(rm.match_content, '<p>Salt &amp; <span class="highlight">pepper</span> <strong>quotes</strong></p>');
  const matched = await t.api('GET', '/api/v1/messages/matches_narrow', { as: bob, params: { msg_ids: [id], narrow: [{ operator: 'search', operand: 'quo' }] } });
  assert.equal(matched.body.messages[String(id)].match_subject, m.match_subject);
});
