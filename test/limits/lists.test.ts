import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { LIST_LIMITS } from '../../src/lib/limits.js';
import { users } from '../../src/store/repos/users.js';
import { streams } from '../../src/store/repos/streams.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await testApp();
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  await createStreams(t, { Verona: [alice, bob] });
});
after(() => t.close());

const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);
const tooLong = (name: string, limit: number) => ({ result: 'error', msg: `${name} is too long (limit: ${limit} items)`, code: 'BAD_REQUEST' });

test('queries take lists far past the engines\' variable limits (SQLite 32,766, PostgreSQL 65,535)', async () => {
  const db = t.app.ctx.store.db;
  const many = [...ids(70_000, 1_000_000), alice.id, bob.id];
  assert.deepEqual((await users.listByIds(db, many)).map((u) => u.id).sort((a, b) => a - b), [alice.id, bob.id].sort((a, b) => a - b));
  const names = [...ids(70_000).map((i) => `no stream ${i}`), 'Verona'];
  assert.deepEqual((await streams.listByNames(db, t.realm.id, names)).map((s) => s.name), ['Verona']);
  const others = await db.selectFrom('users').select('id').where('id', 'not in', many).where('realm_id', '=', t.realm.id).execute();
  assert.ok(!others.some((u) => u.id === alice.id || u.id === bob.id));
});

test('a narrow of 40,000 user ids is refused with a clear error, not a 500', async () => {
  for (const operator of ['dm', 'pm-with']) {
    const narrow = JSON.stringify([{ operator, operand: ids(40_000) }]);
    const r = await t.api('GET', '/api/v1/messages', { as: alice, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, tooLong('narrow[0]["operand"]', LIST_LIMITS.narrowOperandItems));
  }
  const emails = ids(LIST_LIMITS.narrowOperandItems + 1).map((i) => `u${i}@x.test`).join(',');
  const r = await t.api('GET', '/api/v1/messages', { as: alice, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([['pm-with', emails]]) } });
  assert.deepEqual(r.body, tooLong('narrow[0]["operand"]', LIST_LIMITS.narrowOperandItems));
  const terms = JSON.stringify(Array.from({ length: LIST_LIMITS.narrowTerms + 1 }, () => ({ operator: 'stream', operand: 'Verona' })));
  const many = await t.api('GET', '/api/v1/messages', { as: alice, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: terms } });
  assert.deepEqual(many.body, tooLong('narrow', LIST_LIMITS.narrowTerms));
  const reg = await t.api('POST', '/api/v1/register', { as: alice, params: { narrow: JSON.stringify([['dm', ids(40_000)]]) } });
  assert.deepEqual(reg.body, tooLong('narrow[0]["operand"]', LIST_LIMITS.narrowOperandItems));
});

test('a narrow at the operand maximum answers (every id unknown: an empty conversation)', async () => {
  const narrow = JSON.stringify([{ operator: 'dm', operand: [bob.id, ...ids(LIST_LIMITS.narrowOperandItems - 1, 5_000_000)] }]);
  const r = await t.api('GET', '/api/v1/messages', { as: alice, params: { anchor: 'newest', num_before: 10, num_after: 0, narrow } });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'BAD_NARROW');
});

test('every list parameter has its maximum, refused with "<name> is too long (limit: N items)"', async () => {
  const streamDicts = (n: number) => JSON.stringify(ids(n).map((i) => ({ name: `s${i}` })));
  const cases: Array<[string, string, Record<string, unknown>, string, number]> = [
    ['POST', '/api/v1/users/me/subscriptions', { subscriptions: streamDicts(LIST_LIMITS.streams + 1) }, 'subscriptions', LIST_LIMITS.streams],
    ['POST', '/api/v1/users/me/subscriptions', { subscriptions: streamDicts(1), principals: JSON.stringify(ids(LIST_LIMITS.users + 1)) }, 'principals', LIST_LIMITS.users],
    ['DELETE', '/api/v1/users/me/subscriptions', { subscriptions: JSON.stringify(ids(LIST_LIMITS.streams + 1).map(String)) }, 'subscriptions', LIST_LIMITS.streams],
    ['DELETE', '/api/v1/users/me/subscriptions', { subscriptions: '["Verona"]', principals: JSON.stringify(ids(LIST_LIMITS.users + 1)) }, 'principals', LIST_LIMITS.users],
    ['PATCH', '/api/v1/users/me/subscriptions', { add: streamDicts(LIST_LIMITS.streams + 1) }, 'add', LIST_LIMITS.streams],
    ['PATCH', '/api/v1/users/me/subscriptions', { delete: JSON.stringify(ids(LIST_LIMITS.streams + 1).map(String)) }, 'delete', LIST_LIMITS.streams],
    ['POST', '/api/v1/users/me/subscriptions/properties', { subscription_data: JSON.stringify(ids(LIST_LIMITS.other + 1).map((i) => ({ stream_id: i, property: 'color', value: '#ffffff' }))) }, 'subscription_data', LIST_LIMITS.other],
    ['POST', '/api/v1/users/me/alert_words', { alert_words: JSON.stringify(ids(LIST_LIMITS.alertWords + 1).map((i) => `w${i}`)) }, 'alert_words', LIST_LIMITS.alertWords],
    ['DELETE', '/api/v1/users/me/alert_words', { alert_words: JSON.stringify(ids(LIST_LIMITS.alertWords + 1).map((i) => `w${i}`)) }, 'alert_words', LIST_LIMITS.alertWords],
    ['POST', '/api/v1/messages/flags', { messages: JSON.stringify(ids(40_000)), op: 'add', flag: 'starred' }, 'messages', LIST_LIMITS.messageIds],
    ['GET', '/api/v1/messages/matches_narrow', { msg_ids: JSON.stringify(ids(40_000)), narrow: '[]' }, 'msg_ids', LIST_LIMITS.messageIds],
    ['POST', '/api/v1/messages', { type: 'private', to: JSON.stringify(ids(LIST_LIMITS.recipients + 1)), content: 'x' }, 'to', LIST_LIMITS.recipients],
    ['POST', '/api/v1/messages', { type: 'private', to: ids(LIST_LIMITS.recipients + 1).map((i) => `u${i}@x.test`).join(','), content: 'x' }, 'to', LIST_LIMITS.recipients],
    ['POST', '/api/v1/typing', { op: 'start', to: JSON.stringify(ids(LIST_LIMITS.recipients + 1)) }, 'to', LIST_LIMITS.recipients],
    ['POST', '/api/v1/user_groups/create', { name: 'g', description: 'd', members: JSON.stringify(ids(LIST_LIMITS.users + 1)) }, 'members', LIST_LIMITS.users],
    ['POST', '/api/v1/user_groups/1/members', { add: JSON.stringify(ids(LIST_LIMITS.users + 1)) }, 'add', LIST_LIMITS.users],
    ['POST', '/api/v1/user_groups/1/members', { delete: JSON.stringify(ids(LIST_LIMITS.users + 1)) }, 'delete', LIST_LIMITS.users],
    ['POST', '/api/v1/drafts', { drafts: JSON.stringify(ids(LIST_LIMITS.other + 1).map(() => ({ type: '', to: [], topic: '', content: 'x' }))) }, 'drafts', LIST_LIMITS.other],
    ['POST', '/api/v1/drafts', { drafts: JSON.stringify([{ type: 'private', to: ids(LIST_LIMITS.recipients + 1), topic: '', content: 'x' }]) }, 'drafts[0]["to"]', LIST_LIMITS.recipients],
    ['PATCH', '/api/v1/realm/profile_fields', { order: JSON.stringify(ids(LIST_LIMITS.other + 1)) }, 'order', LIST_LIMITS.other],
    ['PATCH', '/api/v1/users/me/profile_data', { data: JSON.stringify(ids(LIST_LIMITS.other + 1).map((i) => ({ id: i, value: 'v' }))) }, 'data', LIST_LIMITS.other],
    ['DELETE', '/api/v1/users/me/profile_data', { data: JSON.stringify(ids(LIST_LIMITS.other + 1)) }, 'data', LIST_LIMITS.other],
    ['POST', '/api/v1/register', { event_types: JSON.stringify(ids(LIST_LIMITS.other + 1).map(String)) }, 'event_types', LIST_LIMITS.other],
    ['POST', '/api/v1/register', { fetch_event_types: JSON.stringify(ids(LIST_LIMITS.other + 1).map(String)) }, 'fetch_event_types', LIST_LIMITS.other],
  ];
  for (const [method, url, params, name, limit] of cases) {
    const r = await t.api(method, url, { as: t.owner, params });
    assert.equal(r.status, 400, `${method} ${url} ${name}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, tooLong(name, limit), `${method} ${url} ${name}`);
  }
});

test('lists at their maximum go through: 10,000 message ids are looked up (unknown: Zulip\'s error), 1,000 alert words', async () => {
  const r = await t.api('POST', '/api/v1/messages/flags', { as: alice, params: { messages: JSON.stringify(ids(LIST_LIMITS.messageIds)), op: 'add', flag: 'starred' } });
  assert.deepEqual(r.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
  const words = ids(LIST_LIMITS.alertWords).map((i) => `word${i}`);
  const added = await t.api('POST', '/api/v1/users/me/alert_words', { as: alice, params: { alert_words: JSON.stringify(words) } });
  assert.equal(added.status, 200);
  assert.equal(added.body.alert_words.length, LIST_LIMITS.alertWords);
  const removed = await t.api('DELETE', '/api/v1/users/me/alert_words', { as: alice, params: { alert_words: JSON.stringify(words) } });
  assert.deepEqual(removed.body.alert_words, []);
});
