import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { basic, HOST, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { fetchUpload } from '../helpers/multipart.js';
import { EventLog } from '../helpers/events.js';
import { signIn } from '../helpers/web.js';

/** /api/v1/tus (feature level 295): tus 1.0.0 resumable uploads ending as ordinary attachments. */
let t: TestApp;
let u: Record<'alice' | 'bob', TestUser>;
const TUS = '/api/v1/tus';

before(async () => {
  t = await testApp({ featureLevel: 371, maxFileUploadSizeMib: 1 });
  u = await t.createUsers(people('alice', 'bob'));
});
after(() => t.close());

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function tus(method: string, url: string, as: TestUser | null, headers: Record<string, string> = {}, payload?: Buffer) {
  const h: Record<string, string> = { host: HOST, 'tus-resumable': '1.0.0', ...headers };
  if (as) h.authorization = basic(as.email, as.apiKey);
  if (payload) h['content-type'] ??= 'application/offset+octet-stream';
  const res = await t.app.http.inject({ method, url, headers: h, ...(payload ? { payload } : {}) } as InjectOptions);
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

const create = async (as: TestUser, length: number, name = 'notes.txt', type?: string) => {
  const meta = `filename ${b64(name)}${type ? `,filetype ${b64(type)}` : ''}`;
  const r = await tus('POST', TUS, as, { 'upload-length': String(length), 'upload-metadata': meta });
  assert.equal(r.status, 201, r.body);
  return String(r.headers.location);
};

test('OPTIONS tells the protocol version, extensions and the size limit', async () => {
  const r = await tus('OPTIONS', TUS, null, {});
  assert.equal(r.status, 204);
  assert.equal(r.headers['tus-version'], '1.0.0');
  assert.equal(r.headers['tus-extension'], 'creation,termination');
  assert.equal(r.headers['tus-max-size'], String(1024 * 1024));
});

test('an upload in two pieces, resumed after HEAD, becomes an attachment the uploader can fetch; the attachment event goes to the uploader', async () => {
  const log = new EventLog(t);
  const location = await create(u.alice, 11);
  assert.match(location, /^\/api\/v1\/tus\/[A-Za-z0-9_-]+$/);
  let r = await tus('PATCH', location, u.alice, { 'upload-offset': '0' }, Buffer.from('hello '));
  assert.equal(r.status, 204);
  assert.equal(r.headers['upload-offset'], '6');
  r = await tus('HEAD', location, u.alice);
  assert.equal(r.status, 200);
  assert.equal(r.headers['upload-offset'], '6');
  assert.equal(r.headers['upload-length'], '11');
  assert.equal(r.headers['cache-control'], 'no-store');
  // A piece at the wrong offset: 409, nothing stored.
  r = await tus('PATCH', location, u.alice, { 'upload-offset': '3' }, Buffer.from('xx'));
  assert.equal(r.status, 409);
  r = await tus('PATCH', location, u.alice, { 'upload-offset': '6' }, Buffer.from('world'));
  assert.equal(r.status, 200, r.body);
  const done = JSON.parse(r.body) as { url: string; filename: string };
  assert.equal(done.filename, 'notes.txt');
  assert.match(done.url, new RegExp(`^/user_uploads/${t.realm.id}/[A-Za-z0-9_-]+/notes.txt$`));
  const got = await fetchUpload(t, done.url, u.alice);
  assert.equal(got.status, 200);
  assert.equal(got.body, 'hello world');
  assert.equal(got.headers['content-type'], 'text/plain');
  const ev = log.find('attachment', 'add');
  assert.equal(ev.length, 1);
  assert.deepEqual(ev[0]!.userIds, [u.alice.id]);
  assert.equal(ev[0]!.event.attachment.name, 'notes.txt');
  assert.equal(ev[0]!.event.attachment.size, 11);
  // Finished: HEAD says so, and the listing has it.
  assert.equal((await tus('HEAD', location, u.alice)).headers['upload-offset'], '11');
  const listed = await t.api('GET', '/api/v1/attachments', { as: u.alice });
  assert.ok((listed.body as { attachments: Array<{ path_id: string }> }).attachments.some((a) => done.url.endsWith(a.path_id)));
});

test('the declared file type is kept; no name becomes uploaded-file', async () => {
  const location = await create(u.alice, 3, '', 'image/png');
  const r = await tus('PATCH', location, u.alice, { 'upload-offset': '0' }, Buffer.from('abc'));
  const done = JSON.parse(r.body) as { url: string; filename: string };
  assert.equal(done.filename, 'uploaded-file');
  assert.equal((await fetchUpload(t, done.url, u.alice)).headers['content-type'], 'image/png');
});

test('refusals: credentials, size, deferred length, version, content type, someone else\'s upload', async () => {
  let r = await tus('POST', TUS, null, { 'upload-length': '3' });
  assert.equal(r.status, 401);
  assert.deepEqual(JSON.parse(r.body), { message: 'Unauthenticated upload' });
  r = await tus('POST', TUS, u.alice, { 'upload-length': String(1024 * 1024 + 1) });
  assert.equal(r.status, 413);
  assert.deepEqual(JSON.parse(r.body), { message: 'Uploaded file is larger than the allowed limit of 1 MiB' });
  r = await tus('POST', TUS, u.alice, { 'upload-defer-length': '1' });
  assert.equal(r.status, 411);
  assert.deepEqual(JSON.parse(r.body), { message: 'SizeIsDeferred is not supported' });
  r = await tus('POST', TUS, u.alice, {});
  assert.equal(r.status, 400);
  const unversioned = await t.app.http.inject({ method: 'POST', url: TUS, headers: { host: HOST, authorization: basic(u.alice.email, u.alice.apiKey), 'upload-length': '3' } });
  assert.equal(unversioned.statusCode, 412);
  const location = await create(u.alice, 4);
  r = await tus('PATCH', location, u.alice, { 'upload-offset': '0', 'content-type': 'text/plain' }, Buffer.from('abcd'));
  assert.equal(r.status, 415);
  r = await tus('PATCH', location, u.alice, { 'upload-offset': '0' }, Buffer.from('abcdef'));
  assert.equal(r.status, 413);
  // Bob cannot see, continue or end Alice's upload.
  assert.equal((await tus('HEAD', location, u.bob)).status, 404);
  assert.equal((await tus('PATCH', location, u.bob, { 'upload-offset': '0' }, Buffer.from('abcd'))).status, 404);
  assert.equal((await tus('DELETE', location, u.bob)).status, 404);
  assert.equal((await tus('HEAD', location, null)).status, 401);
});

test('termination: DELETE ends an unfinished upload', async () => {
  const location = await create(u.bob, 10);
  assert.equal((await tus('PATCH', location, u.bob, { 'upload-offset': '0' }, Buffer.from('12345'))).status, 204);
  assert.equal((await tus('DELETE', location, u.bob)).status, 204);
  assert.equal((await tus('HEAD', location, u.bob)).status, 404);
});

test('a browser session may upload too, with its CSRF token', async () => {
  const carol = await t.createUser({ name: 'Carol Cookie', password: 'carol-cookie-pw-1' });
  const s = await signIn(t, carol.email, 'carol-cookie-pw-1');
  const res = await t.app.http.inject({
    method: 'POST', url: TUS, headers: { host: HOST, cookie: s.cookie, 'x-csrftoken': s.csrf, 'tus-resumable': '1.0.0', 'upload-length': '2', 'upload-metadata': `filename ${b64('s.txt')}` },
  });
  assert.equal(res.statusCode, 201, res.body);
  const forged = await t.app.http.inject({ method: 'POST', url: TUS, headers: { host: HOST, cookie: s.cookie, 'tus-resumable': '1.0.0', 'upload-length': '2' } });
  assert.equal(forged.statusCode, 401);
});
