import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { uploadOne, fetchUpload } from '../helpers/multipart.js';
import { attachments } from '../../src/store/repos/attachments.js';

/** GET /attachments (Zulip 5's shape, times in ms) and DELETE /attachments/{id}. */
let t: TestApp;
let u: Record<'alice' | 'bob', TestUser>;

before(async () => {
  t = await testApp();
  u = await t.createUsers(people('alice', 'bob'));
  await createStreams(t, { open: [u.alice, u.bob] });
});
after(() => t.close());

const list = async (as: TestUser) => (await t.api('GET', '/api/v1/attachments', { as })).body;

test("GET /attachments: the user's own files with the messages that link them", async () => {
  const uri = await uploadOne(t, u.alice, 'list.txt', 'twelve bytes');
  const before = Date.now();
  const id = await sendMessage(t, u.alice, { type: 'stream', to: 'open', topic: 't', content: `[list](${uri})` });
  const body = await list(u.alice);
  assert.equal(body.result, 'success');
  const a = body.attachments.find((x: any) => x.name === 'list.txt');
  assert.deepEqual(Object.keys(a).sort(), ['create_time', 'id', 'messages', 'name', 'path_id', 'size']);
  assert.equal(a.path_id, uri.slice('/user_uploads/'.length));
  assert.equal(a.size, 12);
  assert.ok(Math.abs(a.create_time - before) < 5000, 'milliseconds');
  assert.equal(a.messages.length, 1);
  assert.equal(a.messages[0].id, id);
  assert.ok(Math.abs(a.messages[0].date_sent - before) < 5000);
  assert.ok(body.upload_space_used >= 12);
  assert.deepEqual((await list(u.bob)).attachments, []);
});

test('deleting the last message that links a file leaves it unclaimed (collectable)', async () => {
  const uri = await uploadOne(t, u.alice, 'gone.txt');
  const id = await sendMessage(t, u.alice, { type: 'stream', to: 'open', topic: 't', content: `[gone](${uri})` });
  assert.equal((await t.api('DELETE', `/api/v1/messages/${id}`, { as: t.owner })).status, 200);
  const a = (await list(u.alice)).attachments.find((x: any) => x.name === 'gone.txt');
  assert.deepEqual(a.messages, []);
  const unclaimed = await attachments.listUnclaimed(t.app.ctx.store.db, Math.floor(Date.now() / 1000) + 1);
  assert.ok(unclaimed.some((x) => x.id === a.id));
  assert.equal((await fetchUpload(t, uri, u.bob)).status, 403);
});

test('DELETE /attachments/{id}: the owner removes the file and its bytes', async () => {
  const uri = await uploadOne(t, u.alice, 'del.txt');
  const a = (await list(u.alice)).attachments.find((x: any) => x.name === 'del.txt');
  const other = await t.api('DELETE', `/api/v1/attachments/${a.id}`, { as: u.bob });
  assert.deepEqual(other.body, { result: 'error', msg: 'Invalid attachment', code: 'BAD_REQUEST' });
  const r = await t.api('DELETE', `/api/v1/attachments/${a.id}`, { as: u.alice });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(!(await list(u.alice)).attachments.some((x: any) => x.id === a.id));
  assert.equal((await fetchUpload(t, uri, u.alice)).status, 404);
  assert.equal((await t.api('DELETE', `/api/v1/attachments/${a.id}`, { as: u.alice })).body.msg, 'Invalid attachment');
  assert.equal((await t.api('DELETE', '/api/v1/attachments/99999999999', { as: u.alice })).body.msg, 'Invalid attachment');
});

test('both endpoints require authentication', async () => {
  assert.equal((await t.api('GET', '/api/v1/attachments', { as: null })).status, 401);
  assert.equal((await t.api('DELETE', '/api/v1/attachments/1', { as: null })).status, 401);
});
