import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { flood } from '../helpers/multipart-flood.js';

/**
 * Issue 22: 40 multipart requests of 24 MB each, without a login, added 1 GB of RSS (every
 * part was collected into memory before authentication, on every route). Now each is
 * refused in the API's shape at its headers or its first part, long before its body is
 * sent, and the server holds none of it. (bench/multipart-flood.ts reports the RSS figure
 * with the server in its own process.)
 */
let t: TestApp;
let base: string;

before(async () => {
  t = await testApp();
  base = await t.listen();
});
after(() => t.close());

const MB = 1024 * 1024;

test('40 concurrent 24 MB multipart requests without credentials: each refused quickly in the API shape, unread', { timeout: 60_000 }, async () => {
  const rssBefore = process.memoryUsage().rss;
  const answers = await flood(base, ['/api/v1/messages', '/api/v1/user_uploads', '/api/v1/users/me/status', '/api/v1/realm/emoji/flood'], 40, 24 * MB);
  const rssAfter = process.memoryUsage().rss;
  for (const a of answers) {
    assert.ok([400, 401, 413].includes(a.status), `${a.status} ${a.body}`);
    const json = JSON.parse(a.body) as { result: string; code: string; msg: string };
    assert.equal(json.result, 'error');
    assert.equal(typeof json.code, 'string');
    // Refused long before the body was through (socket buffers hold a few MB at most).
    assert.ok(a.sent < 12 * MB, `${a.sent} bytes were sent before the answer: ${a.body}`);
  }
  // Uploads are refused for want of a login, other routes for the file part or the length.
  assert.ok(answers.some((a) => a.status === 401));
  assert.ok(answers.some((a) => a.status === 400 && a.body.includes('does not accept file uploads')));
  assert.ok(answers.some((a) => a.status === 413));
  // Generous for a shared process (GC timing); before, this grew by about a gigabyte.
  assert.ok(rssAfter - rssBefore < 150 * MB, `RSS grew by ${Math.round((rssAfter - rssBefore) / MB)} MB`);
  // And the server still answers.
  assert.equal((await t.api('GET', '/api/v1/users/me')).status, 200);
});
