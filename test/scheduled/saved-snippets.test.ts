import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { until } from '../helpers/until.js';

// Saved snippets (levels 297, 368) end to end: the four endpoints, Zulip's errors, privacy,
// the register key and the owner-only events.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
});
after(() => t.close());

const create = (as: TestUser, params: Record<string, unknown>) => t.api('POST', '/api/v1/saved_snippets', { as, params });
const list = async (as: TestUser) => {
  const r = await t.api('GET', '/api/v1/saved_snippets', { as });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.saved_snippets as Array<{ id: number; title: string; content: string; date_created: number }>;
};
const error = (r: { status: number; body: any }, msg: string, status = 400) => {
  assert.equal(r.body.msg, msg, JSON.stringify(r.body));
  assert.equal(r.status, status);
};

test('create (stripped), list in order made, edit, delete; another user\'s is missing to everyone else', async () => {
  const before = Math.floor(Date.now() / 1000);
  const a = await create(alice, { title: '  Greeting ', content: ' Hello! \n' });
  assert.equal(a.status, 200, JSON.stringify(a.body));
  const b = await create(alice, { title: 'Bye', content: 'Goodbye' });
  const got = await list(alice);
  assert.deepEqual(got.map(({ date_created: _d, ...s }) => s), [
    { id: a.body.saved_snippet_id, title: 'Greeting', content: 'Hello!' },
    { id: b.body.saved_snippet_id, title: 'Bye', content: 'Goodbye' },
  ]);
  assert.ok(got[0]!.date_created >= before && got[0]!.date_created <= Math.floor(Date.now() / 1000) + 1);
  assert.deepEqual(await list(bob), []);
  error(await t.api('PATCH', `/api/v1/saved_snippets/${a.body.saved_snippet_id}`, { as: bob, params: { title: 'mine' } }), 'Saved snippet does not exist.', 404);
  error(await t.api('DELETE', `/api/v1/saved_snippets/${a.body.saved_snippet_id}`, { as: bob }), 'Saved snippet does not exist.', 404);
  assert.equal((await t.api('PATCH', `/api/v1/saved_snippets/${a.body.saved_snippet_id}`, { as: alice, params: { content: 'Hi there' } })).status, 200);
  assert.deepEqual((await list(alice))[0]!.content, 'Hi there');
  assert.equal((await t.api('PATCH', `/api/v1/saved_snippets/${a.body.saved_snippet_id}`, { as: alice, params: {} })).status, 200, 'nothing to change is no error');
  assert.equal((await t.api('DELETE', `/api/v1/saved_snippets/${a.body.saved_snippet_id}`, { as: alice })).status, 200);
  error(await t.api('DELETE', `/api/v1/saved_snippets/${a.body.saved_snippet_id}`, { as: alice }), 'Saved snippet does not exist.', 404);
  assert.equal((await t.api('DELETE', `/api/v1/saved_snippets/${b.body.saved_snippet_id}`, { as: alice })).status, 200);
});

test('errors in Zulip\'s words; authentication', async () => {
  error(await create(alice, { title: '   ', content: 'x' }), 'title cannot be blank');
  error(await create(alice, { title: 'x', content: '' }), 'content cannot be blank');
  error(await create(alice, { title: 't'.repeat(61), content: 'x' }), 'title is too long (limit: 60 characters)');
  error(await create(alice, { title: 'x', content: 'c'.repeat(10_001) }), 'content is too long (limit: 10000 characters)');
  error(await create(alice, { content: 'x' }), "Missing 'title' argument");
  error(await t.api('PATCH', '/api/v1/saved_snippets/99999', { as: alice, params: { title: 'x' } }), 'Saved snippet does not exist.', 404);
  assert.equal((await create(alice, { title: 't'.repeat(60), content: 'ok' })).status, 200, 'sixty characters are allowed');
  assert.equal((await t.api('GET', '/api/v1/saved_snippets', { as: null })).status, 401);
  assert.equal((await t.api('POST', '/api/v1/saved_snippets', { as: null, params: { title: 'a', content: 'b' } })).status, 401);
  for (const s of await list(alice)) await t.api('DELETE', `/api/v1/saved_snippets/${s.id}`, { as: alice });
});

test('events to the owner\'s queues only; register saved_snippets from level 297 only', async () => {
  const qa = await t.api('POST', '/api/v1/register', { as: alice, params: { event_types: ['saved_snippets'] } });
  const qb = await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['saved_snippets'] } });
  const id = (await create(alice, { title: 'T', content: 'C' })).body.saved_snippet_id;
  await t.api('PATCH', `/api/v1/saved_snippets/${id}`, { as: alice, params: { title: 'T2' } });
  await t.api('DELETE', `/api/v1/saved_snippets/${id}`, { as: alice });
  const poll = async (q: any, as: TestUser) => ((await t.api('GET', '/api/v1/events', { as, params: { queue_id: q.body.queue_id, last_event_id: -1, dont_block: true } })).body.events as any[]).filter((e) => e.type !== 'heartbeat');
  const got = await until(async () => { const e = await poll(qa, alice); return e.length >= 3 && e; });
  assert.deepEqual(got.map((e: any) => [e.op, e.saved_snippet?.title ?? e.saved_snippet_id]), [['add', 'T'], ['update', 'T2'], ['remove', id]]);
  assert.deepEqual(await poll(qb, bob), []);
  const reg = await t.api('POST', '/api/v1/register', { as: alice, params: { fetch_event_types: ['saved_snippets'] } });
  assert.equal('saved_snippets' in reg.body, false, 'level 277 < 297');
  const later = await testApp({ featureLevel: 297 });
  try {
    await later.api('POST', '/api/v1/saved_snippets', { params: { title: 'A', content: 'B' } });
    const r = await later.api('POST', '/api/v1/register', { params: { fetch_event_types: ['saved_snippets'] } });
    assert.deepEqual(r.body.saved_snippets.map((s: any) => s.title), ['A']);
  } finally {
    await later.close();
  }
});
