import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testApp, HOST, type TestApp } from '../helpers/app.js';

/** A stand-in for Vite's output: index.html and one hashed asset. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Parley app</title><script type="module" src="/assets/index-abc123.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  return dir;
}

let t: TestApp;
let webDir: string;
before(async () => {
  webDir = fakeBuild();
  t = await testApp({ webDir });
});
after(async () => {
  await t.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

const get = (app: TestApp, url: string, accept = 'text/html,application/xhtml+xml') =>
  app.app.http.inject({ method: 'GET', url, headers: { host: HOST, accept } });

test('the app page is served at /, /login, /join/<key>/ and other page addresses, with a CSP', async () => {
  for (const url of ['/', '/login', '/join/abcdef123456/', '/join/abcdef123456', '/some/deep/link', '/?x=1']) {
    const res = await get(t, url);
    assert.equal(res.statusCode, 200, url);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /Parley app/, url);
    assert.match(res.headers['content-security-policy'] as string, /script-src 'self'/);
    assert.equal(res.headers['cache-control'], 'no-cache');
  }
  assert.equal((await get(t, '/login', '*/*')).statusCode, 200, 'the named pages answer whatever the Accept');
});

test('hashed assets are served with a long cache; a missing asset is a 404', async () => {
  const res = await get(t, '/assets/index-abc123.js', '*/*');
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, 'console.log("app")');
  assert.match(res.headers['cache-control'] as string, /max-age=31536000.*immutable|immutable.*max-age=31536000/);
  const missing = await get(t, '/assets/nope-123.js');
  assert.equal(missing.statusCode, 404);
  assert.equal((await get(t, '/assets/../index.html', '*/*')).statusCode, 404);
});

test("the API's folders keep their own answers", async () => {
  for (const url of ['/api/v1/no_such_route', '/json/no_such_route', '/accounts/nothing', '/user_uploads/nothing']) {
    const res = await get(t, url);
    assert.doesNotMatch(res.body, /Parley app/, url);
  }
  const api = await get(t, '/api/v1/no_such_route');
  assert.equal(api.statusCode, 404);
  assert.deepEqual(JSON.parse(api.body), { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  // Not a page request (a script's fetch): the JSON 404 as before.
  const script = await get(t, '/some/thing', 'application/json');
  assert.equal(script.statusCode, 404);
  assert.equal(JSON.parse(script.body).msg, 'Not Found');
  const post = await t.app.http.inject({ method: 'POST', url: '/somewhere', headers: { host: HOST, accept: 'text/html' } });
  assert.equal(post.statusCode, 404);
});

test('without a build, / says how to build the app', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-noweb-'));
  const s = await testApp({ webDir: path.join(empty, 'dist') });
  try {
    const res = await get(s, '/');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /not built/);
    assert.match(res.body, /npm run build/);
    assert.equal((await get(s, '/assets/index-abc123.js', '*/*')).statusCode, 404);
  } finally {
    await s.close();
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
