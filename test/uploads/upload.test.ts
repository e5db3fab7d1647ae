import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { postMultipart, uploadOne, fetchUpload } from '../helpers/multipart.js';

/** POST /user_uploads: the file streams to storage; Zulip's errors, in Zulip's order. */
let t: TestApp;
let u: Record<'alice' | 'bob', TestUser>;
const URL = '/api/v1/user_uploads';

before(async () => {
  // A 1 MiB limit keeps the size tests small.
  t = await testApp({ maxFileUploadSizeMib: 1 });
  u = await t.createUsers(people('alice', 'bob'));
});
after(() => t.close());

test('an upload answers its uri, under any field name, and its uploader can fetch it', async () => {
  const r = await postMultipart(t, URL, u.alice, [{ field: 'whatever', filename: 'My Report (final).txt', content: 'the report' }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result, 'success');
  assert.match(r.body.uri, new RegExp(`^/user_uploads/${t.realm.id}/[A-Za-z0-9_-]{24}/My-Report-final.txt$`));
  // Feature level 272 adds `url`, the same; 122 answers uri only.
  assert.equal(r.body.url, FEATURE_LEVEL >= 272 ? r.body.uri : undefined);
  const got = await fetchUpload(t, r.body.uri, u.alice);
  assert.equal(got.status, 200);
  assert.equal(got.body, 'the report');
  assert.equal(got.headers['content-type'], 'text/plain');
  assert.match(String(got.headers['content-disposition']), /^attachment; filename="My Report \(final\).txt"/);
  // Also under /api/v1.
  assert.equal((await fetchUpload(t, `/api/v1${r.body.uri}`, u.alice)).body, 'the report');
});

test('images are served inline with their type', async () => {
  const uri = await uploadOne(t, u.alice, 'pic.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  const got = await fetchUpload(t, uri, u.alice);
  assert.equal(got.headers['content-type'], 'image/png');
  assert.match(String(got.headers['content-disposition']), /^inline;/);
});

test('ordinary fields beside the file are ignored', async () => {
  const r = await postMultipart(t, URL, u.alice, [{ field: 'note', content: 'x' }, { field: 'file', filename: 'a.txt', content: 'a' }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
});

test('no file: You must specify a file to upload', async () => {
  for (const r of [
    await postMultipart(t, URL, u.alice, [{ field: 'note', content: 'x' }]),
    await t.api('POST', URL, { as: u.alice, params: { note: 'x' } }),
    await t.api('POST', URL, { as: u.alice }),
  ]) {
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: 'error', msg: 'You must specify a file to upload', code: 'BAD_REQUEST' });
  }
});

test('two files: You may only upload one file at a time, and neither is kept', async () => {
  const before = (await t.api('GET', '/api/v1/attachments', { as: u.bob })).body.attachments.length;
  const r = await postMultipart(t, URL, u.bob, [{ field: 'a', filename: 'a.txt', content: 'a' }, { field: 'b', filename: 'b.txt', content: 'b' }]);
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'You may only upload one file at a time');
  assert.equal((await t.api('GET', '/api/v1/attachments', { as: u.bob })).body.attachments.length, before);
});

test('the size limit: exactly the limit is taken, one byte more is refused with Zulip\'s message', async () => {
  const mib = 1024 * 1024;
  const ok = await postMultipart(t, URL, u.bob, [{ field: 'f', filename: 'big.bin', content: Buffer.alloc(mib, 1) }]);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal((await fetchUpload(t, ok.body.uri, u.bob)).body.length, mib);
  const r = await postMultipart(t, URL, u.bob, [{ field: 'f', filename: 'bigger.bin', content: Buffer.alloc(mib + 1, 1) }]);
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: 'Uploaded file is larger than the allowed limit of 1 MiB', code: 'BAD_REQUEST' });
  const mine = (await t.api('GET', '/api/v1/attachments', { as: u.bob })).body.attachments;
  assert.ok(!mine.some((a: any) => a.name === 'bigger.bin'));
});

test('register reports the limit', async () => {
  const reg = await t.api('POST', '/api/v1/register', { as: u.alice, params: { fetch_event_types: ['realm'] } });
  assert.equal(reg.body.max_file_upload_size_mib, 1);
});

test('uploading requires authentication', async () => {
  const r = await postMultipart(t, URL, null, [{ field: 'f', filename: 'a.txt', content: 'a' }]);
  assert.equal(r.status, 401);
});

test('names are sanitised as Zulip does; an empty name still gets a file', async () => {
  const uri = await uploadOne(t, u.alice, 'ünï cödé  -- ok!.txt');
  assert.ok(uri.endsWith('/ünï-cödé-ok.txt'), uri);
  assert.equal((await fetchUpload(t, encodeURI(uri), u.alice)).status, 200);
  const odd = await uploadOne(t, u.alice, '!!!');
  assert.ok(odd.endsWith('/uploaded-file'), odd);
});

test('from feature level 272 the answer has url beside uri (the same path); the app still reads uri', async () => {
  const late = await testApp({ featureLevel: 277 });
  try {
    const { carol } = await late.createUsers(people('carol'));
    const r = await postMultipart(late, URL, carol, [{ field: 'file', filename: 'a.txt', content: 'x' }]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), ['msg', 'result', 'uri', 'url']);
    assert.match(r.body.uri, /^\/user_uploads\/\d+\/[A-Za-z0-9_-]{24}\/a.txt$/);
    assert.equal(r.body.url, r.body.uri);
    assert.equal((await fetchUpload(late, r.body.url, carol)).body, 'x');
  } finally {
    await late.close();
  }
});
