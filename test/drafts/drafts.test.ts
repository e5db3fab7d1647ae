import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, createAcme, people, basic, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { cacheSignal } from '../../src/cache/signal.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeleteAllDrafts } from '../../src/actions/drafts.js';

// Synchronised drafts end to end over HTTP: the four endpoints, every error Zulip gives,
// ownership, the enable_drafts_synchronization setting, the drafts events and register.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let gone: TestUser;
let general: number;
let secret: number;
let stranger: number;

before(async () => {
  t = await testApp();
  ({ alice, bob, carol, dave: gone } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  const streams = await createStreams(t, { general: [alice, bob], secret: { inviteOnly: true, subscribers: [bob] } });
  general = streams.general.id;
  secret = streams.secret.id;
  assert.equal((await t.api('DELETE', `/api/v1/users/${gone.id}`)).status, 200);
  stranger = (await createAcme(t)).owner.id;
});
after(() => t.close());

type Draft = { type: string; to: number[]; topic: string; content: string; timestamp?: number; [k: string]: unknown };

const create = (as: TestUser, drafts: unknown) => t.api('POST', '/api/v1/drafts', { as, params: { drafts } });
const edit = (as: TestUser, id: number | string, draft: unknown) => t.api('PATCH', `/api/v1/drafts/${id}`, { as, params: { draft } });
const remove = (as: TestUser, id: number | string) => t.api('DELETE', `/api/v1/drafts/${id}`, { as });
const list = async (as: TestUser) => {
  const r = await t.api('GET', '/api/v1/drafts', { as });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { result: string; msg: string; count: number; drafts: Array<Draft & { id: number; timestamp: number }> };
};
const createOk = async (as: TestUser, drafts: Draft[]): Promise<number[]> => {
  const r = await create(as, drafts);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.ids;
};
const clear = async (as: TestUser) => {
  for (const d of (await list(as)).drafts) assert.equal((await remove(as, d.id)).status, 200);
};

async function setSync(user: TestUser, on: boolean): Promise<void> {
  await t.app.ctx.store.db.updateTable('users').set({ settings: JSON.stringify({ enable_drafts_synchronization: on }) }).where('id', '=', user.id).execute();
  // Written behind the API's back (PATCH /settings is another change), so retire the cached identity by hand.
  cacheSignal.retire({ scopes: new Set(['users']) });
}

async function queue(as: TestUser): Promise<{ as: TestUser; id: string }> {
  const r = await t.api('POST', '/api/v1/register', { as, params: { event_types: ['drafts'] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { as, id: r.body.queue_id };
}
async function drain(q: { as: TestUser; id: string }): Promise<any[]> {
  const r = await t.api('GET', '/api/v1/events', { as: q.as, params: { queue_id: q.id, last_event_id: -1, dont_block: true } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const events = r.body.events.filter((e: any) => e.type !== 'heartbeat');
  if (r.body.events.length) await t.api('GET', '/api/v1/events', { as: q.as, params: { queue_id: q.id, last_event_id: r.body.events.at(-1).id, dont_block: true } });
  return events.map(({ id: _id, ...e }: any) => e);
}

const MISSING = { result: 'error', msg: 'Draft does not exist' };

test('POST /drafts answers ids in request order; GET /drafts lists them oldest first, with their count', async () => {
  const drafts: Draft[] = [
    { type: 'stream', to: [general], topic: 'sync drafts', content: "Let's add backend support for syncing drafts.", timestamp: 1595479019 },
    { type: 'private', to: [bob.id], topic: 'ignored for private drafts', content: 'one to one', timestamp: 1595479021 },
    { type: 'private', to: [carol.id, bob.id, bob.id], topic: '', content: 'a group', timestamp: 1595479020.75 },
    { type: 'private', to: [alice.id], topic: '', content: 'note to self', timestamp: 1595479022 },
    { type: 'private', to: [alice.id, bob.id], topic: '', content: 'self and one other', timestamp: 1595479023 },
    { type: 'private', to: [], topic: 'nobody yet', content: 'unaddressed private', timestamp: 1595479024 },
    { type: '', to: [general], topic: 'dropped', content: 'unaddressed', timestamp: 1595479025 },
  ];
  const ids = await createOk(alice, drafts);
  assert.equal(ids.length, 7);
  assert.deepEqual([...ids].sort((a, b) => a - b), ids, 'created in request order');
  const got = await list(alice);
  assert.equal(got.result, 'success');
  assert.equal(got.count, 7);
  assert.deepEqual(got.drafts, [
    { id: ids[0], type: 'stream', to: [general], topic: 'sync drafts', content: "Let's add backend support for syncing drafts.", timestamp: 1595479019 },
    // Whole seconds are shown, as Zulip shows them.
    { id: ids[2], type: 'private', to: [bob.id, carol.id].sort((a, b) => a - b), topic: '', content: 'a group', timestamp: 1595479020 },
    { id: ids[1], type: 'private', to: [bob.id], topic: '', content: 'one to one', timestamp: 1595479021 },
    { id: ids[3], type: 'private', to: [alice.id], topic: '', content: 'note to self', timestamp: 1595479022 },
    { id: ids[4], type: 'private', to: [bob.id], topic: '', content: 'self and one other', timestamp: 1595479023 },
    { id: ids[5], type: '', to: [], topic: '', content: 'unaddressed private', timestamp: 1595479024 },
    { id: ids[6], type: '', to: [], topic: '', content: 'unaddressed', timestamp: 1595479025 },
  ]);
  assert.deepEqual(await list(bob), { result: 'success', msg: '', count: 0, drafts: [] }, 'drafts are their owner\'s only');
  await clear(alice);
});

test('a missing timestamp is now; a long topic and a long body are truncated as a message\'s are', async () => {
  const before = Math.floor(Date.now() / 1000);
  const [id] = await createOk(alice, [{ type: 'stream', to: [general], topic: 't'.repeat(70), content: 'x'.repeat(10_050) }]);
  const after = Math.floor(Date.now() / 1000);
  const [d] = (await list(alice)).drafts;
  assert.equal(d!.id, id);
  assert.ok(d!.timestamp >= before && d!.timestamp <= after, `${d!.timestamp} in [${before}, ${after}]`);
  assert.equal(d!.topic, `${'t'.repeat(57)}...`);
  assert.ok(d!.content.endsWith('\n[message truncated]'));
  assert.equal(Buffer.byteLength(d!.content), 10_000);
  // A NUL past the truncation point is cut away with the rest, as in Zulip.
  assert.equal((await create(alice, [{ type: 'stream', to: [general], topic: `${'t'.repeat(65)}\u0000`, content: 'c' }])).status, 200);
  // Only stream drafts keep (and check) a topic.
  assert.equal((await create(alice, [{ type: 'private', to: [bob.id], topic: 'nul \u0000 ignored', content: 'c' }])).status, 200);
  await clear(alice);
});

test('every POST /drafts error, with its code, and nothing created by a batch with one bad draft', async () => {
  const ok: Draft = { type: 'stream', to: [general], topic: 'fine', content: 'fine', timestamp: 1595479019 };
  const cases: Array<[unknown, string]> = [
    ['not json', 'Argument "drafts" is not valid JSON.'],
    [{ type: 'stream' }, 'drafts is not a list'],
    [[ok, 5], 'drafts[1] is not a dict'],
    [[{ to: [], topic: '', content: 'c' }], 'type key is missing from drafts[0]'],
    [[{ type: 'bad', content: 'c' }], 'Invalid drafts[0]["type"]'],
    [[{ type: 1, to: [], topic: '', content: 'c' }], 'drafts[0]["type"] is not a string'],
    [[{ type: '', topic: '', content: 'c' }], 'to key is missing from drafts[0]'],
    [[{ type: '', to: 5, topic: '', content: 'c' }], 'drafts[0]["to"] is not a list'],
    [[{ type: '', to: [1, 'a'], topic: '', content: 'c' }], 'drafts[0]["to"][1] is not an integer'],
    [[{ type: '', to: [], content: 'c' }], 'topic key is missing from drafts[0]'],
    [[{ type: '', to: [], topic: null, content: 'c' }], 'drafts[0]["topic"] is not a string'],
    [[{ type: '', to: [], topic: '' }], 'content key is missing from drafts[0]'],
    [[{ type: '', to: [], topic: '', content: 5 }], 'drafts[0]["content"] is not a string'],
    [[{ type: '', to: [], topic: '', content: '  \n' }], 'drafts[0]["content"] cannot be blank.'],
    [[{ ...ok, timestamp: '1595479019' }], 'drafts[0]["timestamp"] is not an allowed_type'],
    [[{ ...ok, id: 1 }], 'Unexpected arguments: id'],
    [[ok, { ...ok, timestamp: -10.1 }], 'Timestamp must not be negative.'],
    [[{ ...ok, timestamp: 1e15 }], 'Invalid timestamp'],
    [[ok, { ...ok, content: 'Some regular \u0000 content here' }], 'Content must not contain null bytes'],
    [[{ ...ok, topic: 'thinking about \u0000' }], 'Topic must not contain null bytes'],
    [[{ ...ok, to: [] }], 'Must specify exactly 1 stream ID for stream messages'],
    [[{ ...ok, to: [general, secret] }], 'Must specify exactly 1 stream ID for stream messages'],
    [[ok, { ...ok, to: [987654] }], 'Invalid stream id'],
    [[{ ...ok, to: [99999999999999] }], 'Invalid stream id'],
    // A private stream Alice is not in is answered like a missing one.
    [[{ ...ok, to: [secret] }], 'Invalid stream id'],
    [[ok, { ...ok, type: 'private', to: [bob.id, 99999999999999] }], 'Invalid user ID 99999999999999'],
    // Another organization's users are unknown here.
    [[{ ...ok, type: 'private', to: [stranger] }], `Invalid user ID ${stranger}`],
    [[{ ...ok, type: 'private', to: [bob.id, gone.id] }], `'${gone.email}' is no longer using Zulip.`],
  ];
  const q = await queue(alice);
  for (const [drafts, msg] of cases) {
    const r = await create(alice, drafts);
    assert.equal(r.status, 400, `${JSON.stringify(drafts)}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, { result: 'error', msg, code: 'BAD_REQUEST' }, JSON.stringify(drafts));
  }
  const missing = await t.api('POST', '/api/v1/drafts', { as: alice, params: {} });
  assert.deepEqual(missing.body, { result: 'error', msg: "Missing 'drafts' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'drafts' });
  assert.equal((await list(alice)).count, 0, 'no draft of a failed batch was stored');
  assert.deepEqual(await drain(q), [], 'and no event went out');
});

test('PATCH replaces the draft; a missing draft or another user\'s is "Draft does not exist", 404 without a code', async () => {
  const [id] = await createOk(alice, [{ type: 'stream', to: [general], topic: 'drafts', content: 'The API should be good', timestamp: 1595505700 }]);
  const replacement = { type: 'private', to: [bob.id, carol.id], topic: 'dropped', content: 'The API needs to be simple.', timestamp: 1595505800 };
  const r = await edit(alice, id!, replacement);
  assert.deepEqual([r.status, r.body], [200, { result: 'success', msg: '' }]);
  const expected = { id, type: 'private', to: [bob.id, carol.id].sort((a, b) => a - b), topic: '', content: 'The API needs to be simple.', timestamp: 1595505800 };
  assert.deepEqual((await list(alice)).drafts, [expected]);

  for (const [as, draftId] of [[alice, 987654], [alice, 99999999999999], [bob, id!], [carol, id!]] as Array<[TestUser, number]>) {
    const miss = await edit(as, draftId, { type: '', to: [], topic: '', content: 'hijacked' });
    assert.equal(miss.status, 404, JSON.stringify(miss.body));
    assert.deepEqual(miss.body, MISSING, 'no code on this error');
  }
  assert.deepEqual((await list(alice)).drafts, [expected], 'nobody else changed it');

  // The draft's syntax is checked before it is looked up; its meaning after.
  assert.deepEqual((await edit(alice, 987654, { type: 'nope', to: [], topic: '', content: 'c' })).body,
    { result: 'error', msg: 'Invalid draft["type"]', code: 'BAD_REQUEST' });
  assert.deepEqual((await edit(alice, id!, { ...replacement, id })).body, { result: 'error', msg: 'Unexpected arguments: id', code: 'BAD_REQUEST' });
  assert.deepEqual((await edit(alice, id!, [replacement])).body, { result: 'error', msg: 'draft is not a dict', code: 'BAD_REQUEST' });
  const stream = await edit(alice, id!, { type: 'stream', to: [], topic: 't', content: 'c' });
  assert.deepEqual([stream.status, stream.body], [400, { result: 'error', msg: 'Must specify exactly 1 stream ID for stream messages', code: 'BAD_REQUEST' }]);
  assert.deepEqual((await t.api('PATCH', `/api/v1/drafts/${id}`, { as: alice, params: {} })).body,
    { result: 'error', msg: "Missing 'draft' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'draft' });
  assert.equal((await edit(alice, 'abc', replacement)).status, 400);
  assert.deepEqual((await list(alice)).drafts, [expected]);
  await clear(alice);
});

test('DELETE removes one owned draft; a missing draft or another user\'s is "Draft does not exist", 404 without a code', async () => {
  const [keep, doomed] = await createOk(alice, [
    { type: '', to: [], topic: '', content: 'keep', timestamp: 100 },
    { type: '', to: [], topic: '', content: 'doomed', timestamp: 200 },
  ]);
  for (const [as, draftId] of [[bob, doomed!], [alice, 987654], [alice, 99999999999999]] as Array<[TestUser, number]>) {
    const r = await remove(as, draftId);
    assert.deepEqual([r.status, r.body], [404, MISSING]);
  }
  assert.equal((await list(alice)).count, 2);
  const removed = await remove(alice, doomed!);
  assert.deepEqual([removed.status, removed.body], [200, { result: 'success', msg: '' }]);
  assert.deepEqual((await list(alice)).drafts.map((d) => d.id), [keep]);
  assert.deepEqual([(await remove(alice, doomed!)).status, (await remove(alice, doomed!)).body], [404, MISSING]);
  await clear(alice);
});

test('drafts events reach every queue of the owner, and nobody else, in Zulip\'s shapes', async () => {
  const [a1, a2, b] = [await queue(alice), await queue(alice), await queue(bob)];
  const [id] = await createOk(alice, [{ type: 'stream', to: [general], topic: 'ev', content: 'first', timestamp: 1000 }]);
  const added = { type: 'drafts', op: 'add', drafts: [{ id, type: 'stream', to: [general], topic: 'ev', content: 'first', timestamp: 1000 }] };
  await edit(alice, id!, { type: 'private', to: [bob.id], topic: '', content: 'second', timestamp: 2000 });
  const updated = { type: 'drafts', op: 'update', draft: { id, type: 'private', to: [bob.id], topic: '', content: 'second', timestamp: 2000 } };
  await remove(alice, id!);
  const removed = { type: 'drafts', op: 'remove', draft_id: id };
  for (const q of [a1, a2]) assert.deepEqual(await drain(q), [added, updated, removed]);
  assert.deepEqual(await drain(b), [], 'another user hears nothing of them');
  // Refused changes send nothing.
  await edit(bob, 987654, { type: '', to: [], topic: '', content: 'x' });
  await remove(bob, 987654);
  assert.deepEqual(await drain(a1), []);
});

test('register lists the drafts newest first, with their ids, in the shape of GET /drafts', async () => {
  const ids = await createOk(alice, [
    { type: '', to: [], topic: '', content: 'old', timestamp: 10 },
    { type: 'stream', to: [general], topic: 'new', content: 'new', timestamp: 30 },
    { type: 'private', to: [carol.id], topic: '', content: 'middle', timestamp: 20 },
    { type: '', to: [], topic: '', content: 'middle too', timestamp: 20 },
  ]);
  const r = await t.api('POST', '/api/v1/register', { as: alice, params: { fetch_event_types: ['drafts'], event_types: ['drafts'] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.drafts, [
    { id: ids[1], type: 'stream', to: [general], topic: 'new', content: 'new', timestamp: 30 },
    { id: ids[3], type: '', to: [], topic: '', content: 'middle too', timestamp: 20 },
    { id: ids[2], type: 'private', to: [carol.id], topic: '', content: 'middle', timestamp: 20 },
    { id: ids[0], type: '', to: [], topic: '', content: 'old', timestamp: 10 },
  ]);
  assert.deepEqual((await list(alice)).drafts.map((d) => d.id), [ids[0], ids[2], ids[3], ids[1]]);
  const bobs = await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['drafts'] } });
  assert.deepEqual(bobs.body.drafts, []);
  await clear(alice);
});

test('with enable_drafts_synchronization off every drafts endpoint refuses, before looking at its parameters', async () => {
  const [id] = await createOk(carol, [{ type: '', to: [], topic: '', content: 'kept', timestamp: 5 }]);
  await setSync(carol, false);
  const refused = { result: 'error', msg: 'User has disabled synchronizing drafts.', code: 'BAD_REQUEST' };
  for (const r of [
    await t.api('GET', '/api/v1/drafts', { as: carol }),
    await create(carol, [{ type: '', to: [], topic: '', content: 'x' }]),
    await t.api('POST', '/api/v1/drafts', { as: carol, params: {} }),
    await edit(carol, id!, { type: '', to: [], topic: '', content: 'x' }),
    await edit(carol, 987654, {}),
    await remove(carol, id!),
  ]) assert.deepEqual([r.status, r.body], [400, refused]);
  await setSync(carol, true);
  assert.deepEqual((await list(carol)).drafts.map((d) => d.id), [id]);
});

test('doDeleteAllDrafts (the setting turned off) deletes the user\'s drafts only, and tells no client', async () => {
  await createOk(carol, [{ type: '', to: [], topic: '', content: 'one' }, { type: 'private', to: [bob.id], topic: '', content: 'two' }]);
  const [bobs] = await createOk(bob, [{ type: '', to: [], topic: '', content: 'bob keeps this' }]);
  const [qc, qb] = [await queue(carol), await queue(bob)];
  const n = await transact(t.app.ctx, (tx) => doDeleteAllDrafts(tx, carol.id));
  assert.ok(n >= 2);
  assert.equal((await list(carol)).count, 0);
  assert.deepEqual((await list(bob)).drafts.map((d) => d.id), [bobs]);
  assert.deepEqual(await drain(qc), []);
  assert.deepEqual(await drain(qb), []);
  await clear(bob);
});

test('the encodings clients use: a multipart POST, PATCH and DELETE parameters in the query string', async () => {
  // Python sends form bodies (the other tests); zulip-js would send POST as multipart and the rest in the query string.
  const b = 'draftboundary';
  const drafts = JSON.stringify([{ type: 'private', to: [bob.id], topic: '', content: 'multipart', timestamp: 7 }]);
  const form = `--${b}\r\nContent-Disposition: form-data; name="drafts"\r\n\r\n${drafts}\r\n--${b}--\r\n`;
  const res = await t.app.http.inject({ method: 'POST', url: '/api/v1/drafts', payload: form,
    headers: { host: HOST, authorization: basic(alice.email, alice.apiKey), 'content-type': `multipart/form-data; boundary=${b}` } });
  assert.equal(res.statusCode, 200, res.body);
  const [id] = res.json().ids;
  const patched = await t.api('PATCH', `/api/v1/drafts/${id}`, { as: alice, query: { draft: { type: '', to: [], topic: '', content: 'queried', timestamp: 8 } } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual((await list(alice)).drafts, [{ id, type: '', to: [], topic: '', content: 'queried', timestamp: 8 }]);
  assert.equal((await t.api('DELETE', `/api/v1/drafts/${id}?dummy=1`, { as: alice })).status, 200);
  assert.equal((await list(alice)).count, 0);
});

test('authentication is required', async () => {
  for (const [method, url] of [['GET', '/drafts'], ['POST', '/drafts'], ['PATCH', '/drafts/1'], ['DELETE', '/drafts/1']] as const) {
    const r = await t.api(method, `/api/v1${url}`, { as: null, params: { drafts: [], draft: { type: '', to: [], topic: '', content: 'x' } } });
    assert.equal(r.status, 401, `${method} ${url}`);
    assert.equal(r.body.result, 'error');
  }
});
