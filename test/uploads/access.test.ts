import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, createAcme, ACME_HOST, basic, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { uploadOne, fetchUpload } from '../helpers/multipart.js';

/**
 * Who may fetch an upload (Zulip's validate_attachment_request): its uploader, and whoever
 * may read a message that links it. Unknown files are 404, refused ones 403; no
 * credentials, 401.
 */
let t: TestApp;
let u: Record<'alice' | 'bob' | 'carol' | 'guest', TestUser>;

before(async () => {
  t = await testApp();
  u = await t.createUsers(people('alice', 'bob', 'carol', 'guest'));
  await createStreams(t, {
    secret: { inviteOnly: true, historyPublicToSubscribers: true, subscribers: [u.alice, u.carol] },
    open: [u.alice],
  });
});
after(() => t.close());

const status = async (uri: string, as: TestUser | null) => (await fetchUpload(t, uri, as)).status;

test('a file linked only from a private stream: its subscribers may fetch it, others get 403', async () => {
  const uri = await uploadOne(t, u.alice, 'secret.txt', 'classified');
  // Before any message links it, only the uploader may.
  assert.equal(await status(uri, u.alice), 200);
  assert.equal(await status(uri, u.carol), 403);
  await sendMessage(t, u.alice, { type: 'stream', to: 'secret', topic: 't', content: `[secret.txt](${uri})` });
  assert.equal(await status(uri, u.carol), 200);
  const refused = await fetchUpload(t, uri, u.bob);
  assert.equal(refused.status, 403);
  assert.equal(refused.body, '<p>You are not authorized to view this file.</p>');
  assert.equal(await status(uri, u.guest), 403);
  assert.equal(await status(`/api/v1${uri}`, u.bob), 403);
});

test('a file linked from a public stream: every member, not a guest who is not subscribed', async () => {
  const uri = await uploadOne(t, u.alice, 'open.txt');
  await sendMessage(t, u.alice, { type: 'stream', to: 'open', topic: 't', content: `see http://parley.test${uri}` });
  assert.equal(await status(uri, u.bob), 200);
  assert.equal(await status(uri, u.guest), 403);
});

test('a file in a private message: its recipients only', async () => {
  const uri = await uploadOne(t, u.alice, 'pm.txt');
  await sendMessage(t, u.alice, { type: 'private', to: [u.bob.id], content: `[pm](${uri})` });
  assert.equal(await status(uri, u.bob), 200);
  assert.equal(await status(uri, u.carol), 403);
});

test('pasting a link to a file one may not see opens it to nobody', async () => {
  const uri = await uploadOne(t, u.alice, 'mine.txt');
  await sendMessage(t, u.bob, { type: 'stream', to: 'open', topic: 't', content: `[stolen](${uri})` });
  assert.equal(await status(uri, u.carol), 403);
  assert.equal(await status(uri, u.bob), 403);
});

test('anonymous requests are refused with 401; unknown files are 404', async () => {
  const uri = await uploadOne(t, u.alice, 'anon.txt');
  const anon = await fetchUpload(t, uri, null);
  assert.equal(anon.status, 401);
  assert.equal(JSON.parse(anon.body).msg, 'Not logged in: API authentication or user session required');
  assert.equal(await status(`/api/v1${uri}`, null), 401);
  const bad = await t.app.http.inject({ method: 'GET', url: uri, headers: { host: 'parley.test', authorization: basic(u.alice.email, 'x'.repeat(32)) } });
  assert.equal(bad.statusCode, 401);
  const missing = await fetchUpload(t, `/user_uploads/${t.realm.id}/nope/none.txt`, u.alice);
  assert.equal(missing.status, 404);
  assert.equal(missing.body, '<p>File not found.</p>');
});

test("another organization's file is not found there", async () => {
  const uri = await uploadOne(t, u.alice, 'ours.txt');
  const acme = await createAcme(t);
  const r = await t.app.http.inject({ method: 'GET', url: uri, headers: { host: ACME_HOST, authorization: basic(acme.owner.email, acme.owner.apiKey) } });
  assert.equal(r.statusCode, 404);
});

test('an edit that drops the link closes the file again; one that adds it opens it', async () => {
  const uri = await uploadOne(t, u.alice, 'edit.txt');
  const id = await sendMessage(t, u.alice, { type: 'stream', to: 'open', topic: 't', content: `[f](${uri})` });
  assert.equal(await status(uri, u.bob), 200);
  assert.equal((await t.api('PATCH', `/api/v1/messages/${id}`, { as: u.alice, params: { content: 'no file now' } })).status, 200);
  assert.equal(await status(uri, u.bob), 403);
  assert.equal((await t.api('PATCH', `/api/v1/messages/${id}`, { as: u.alice, params: { content: `back: [f](${uri})` } })).status, 200);
  assert.equal(await status(uri, u.bob), 200);
});
