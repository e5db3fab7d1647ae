import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { testApp, HOST, type TestApp } from '../helpers/app.js';
import { precompress } from '../../scripts/web-build.mjs';
import { ensureWebBuilt } from '../helpers/browser.js';

/** A script big enough to be compressed (over 1 KB), as Vite's minified output repeats itself. */
const BIG_JS = Array.from({ length: 200 }, (_, i) => `export const item${i} = () => render("row", ${i});`).join('\n');
/** Something that does not shrink: random bytes, named as a script. */
const RANDOM = crypto.randomBytes(4096);

/** A stand-in for Vite's output: index.html and hashed assets, compressed as the build does. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Parley app</title><script type="module" src="/assets/index-abc123.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  fs.writeFileSync(path.join(dir, 'assets', 'main-def456.js'), BIG_JS);
  fs.writeFileSync(path.join(dir, 'assets', 'style-789abc.css'), `.a{color:red}\n`.repeat(200));
  fs.writeFileSync(path.join(dir, 'assets', 'noise-000111.js'), RANDOM);
  fs.writeFileSync(path.join(dir, 'assets', 'logo-222333.png'), Buffer.alloc(4096, 1));
  precompress(path.join(dir, 'assets'));
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

/** An asset as a browser asks for it, with the encodings it takes (none: no Accept-Encoding header). */
const getEncoded = (app: TestApp, url: string, encoding?: string) =>
  app.app.http.inject({ method: 'GET', url, headers: { host: HOST, accept: '*/*', ...(encoding === undefined ? {} : { 'accept-encoding': encoding }) } });

const IMMUTABLE = /max-age=31536000.*immutable|immutable.*max-age=31536000/;

/** The asset answered in each encoding: the same file, compressed as asked, cached for a year. */
async function assertServedCompressed(app: TestApp, url: string, plain: Buffer): Promise<void> {
  const br = await getEncoded(app, url, 'gzip, deflate, br');
  assert.equal(br.statusCode, 200, url);
  assert.equal(br.headers['content-encoding'], 'br', url);
  assert.match(String(br.headers.vary), /accept-encoding/i);
  assert.match(br.headers['cache-control'] as string, IMMUTABLE);
  assert.ok(br.rawPayload.length < plain.length, `${url}: ${br.rawPayload.length} < ${plain.length}`);
  assert.ok(zlib.brotliDecompressSync(br.rawPayload).equals(plain), url);
  assert.equal(Number(br.headers['content-length']), br.rawPayload.length);

  const gz = await getEncoded(app, url, 'gzip');
  assert.equal(gz.statusCode, 200, url);
  assert.equal(gz.headers['content-encoding'], 'gzip', url);
  assert.match(String(gz.headers.vary), /accept-encoding/i);
  assert.match(gz.headers['cache-control'] as string, IMMUTABLE);
  assert.ok(zlib.gunzipSync(gz.rawPayload).equals(plain), url);

  for (const none of [undefined, 'identity']) {
    const res = await getEncoded(app, url, none);
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.headers['content-encoding'], undefined, `${url} with ${none}`);
    assert.match(String(res.headers.vary), /accept-encoding/i, 'shared caches keep the variants apart');
    assert.equal(Number(res.headers['content-length']), plain.length);
    assert.ok(res.rawPayload.equals(plain), url);
    assert.match(res.headers['cache-control'] as string, IMMUTABLE);
  }
}

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
  assert.match(res.headers['cache-control'] as string, IMMUTABLE);
  const missing = await get(t, '/assets/nope-123.js');
  assert.equal(missing.statusCode, 404);
  assert.equal((await get(t, '/assets/../index.html', '*/*')).statusCode, 404);
});

test('the build writes brotli and gzip copies of what shrinks; the server sends them by Accept-Encoding', async () => {
  const assets = path.join(webDir, 'assets');
  const names = fs.readdirSync(assets).sort();
  for (const f of ['main-def456.js', 'style-789abc.css']) {
    assert.ok(names.includes(`${f}.br`) && names.includes(`${f}.gz`), `${f}: ${names.join(' ')}`);
    const plain = fs.readFileSync(path.join(assets, f));
    assert.ok(zlib.brotliDecompressSync(fs.readFileSync(path.join(assets, `${f}.br`))).equals(plain));
    assert.ok(zlib.gunzipSync(fs.readFileSync(path.join(assets, `${f}.gz`))).equals(plain));
    await assertServedCompressed(t, `/assets/${f}`, plain);
  }
  // Under 1 KB, not shrinking, or not a compressible kind: the plain file alone.
  for (const f of ['index-abc123.js', 'noise-000111.js', 'logo-222333.png']) {
    assert.ok(!names.some((n) => n === `${f}.br` || n === `${f}.gz`), `${f}: ${names.join(' ')}`);
  }
  const small = await getEncoded(t, '/assets/index-abc123.js', 'gzip, deflate, br');
  assert.equal(small.headers['content-encoding'], undefined);
  assert.equal(small.body, 'console.log("app")');
  const css = await getEncoded(t, '/assets/style-789abc.css', 'br');
  assert.match(css.headers['content-type'] as string, /^text\/css/, 'the type is the plain file\'s');
  const js = await getEncoded(t, '/assets/main-def456.js', 'br');
  assert.match(js.headers['content-type'] as string, /javascript/);
  // The page itself stays revalidated on every load.
  const page = await t.app.http.inject({ method: 'GET', url: '/', headers: { host: HOST, accept: 'text/html', 'accept-encoding': 'gzip, br' } });
  assert.equal(page.statusCode, 200);
  assert.equal(page.headers['cache-control'], 'no-cache');
  assert.match(page.body, /Parley app/);
});

test('the real build: each compressible asset of web/dist is served compressed; the first-paint JavaScript over the wire', { timeout: 300_000 }, async () => {
  await ensureWebBuilt();
  const dist = path.resolve('web', 'dist');
  const real = await testApp({ webDir: dist });
  try {
    const assets = path.join(dist, 'assets');
    const files = fs.readdirSync(assets).filter((f) => /\.(js|css|json|svg|txt|html)$/.test(f));
    assert.ok(files.some((f) => f.endsWith('.js')), files.join(' '));
    for (const f of files) {
      const plain = fs.readFileSync(path.join(assets, f));
      if (plain.length < 1024) continue;
      assert.ok(fs.existsSync(path.join(assets, `${f}.br`)) && fs.existsSync(path.join(assets, `${f}.gz`)), f);
      await assertServedCompressed(real, `/assets/${f}`, plain);
    }
    // What the page loads before it paints: the scripts and module preloads index.html names.
    const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
    const firstPaint = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
    assert.ok(firstPaint.length > 0, html);
    const wire = { raw: 0, gzip: 0, br: 0 };
    for (const f of firstPaint) {
      wire.raw += fs.statSync(path.join(assets, f)).size;
      wire.gzip += (await getEncoded(real, `/assets/${f}`, 'gzip')).rawPayload.length;
      wire.br += (await getEncoded(real, `/assets/${f}`, 'br')).rawPayload.length;
    }
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    process.stderr.write(`first-paint JavaScript (${firstPaint.join(', ')}): ${kb(wire.raw)} raw, ${kb(wire.gzip)} gzip, ${kb(wire.br)} brotli over the wire\n`);
    assert.ok(wire.gzip < 100 * 1024, `first-paint JavaScript ${kb(wire.gzip)} gzipped, over 100 KB`);
    assert.ok(wire.br < wire.raw / 2, 'brotli at least halves it');
  } finally {
    await real.close();
  }
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
