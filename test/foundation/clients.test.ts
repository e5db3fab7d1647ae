import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zulip from 'zulip-js';
import { testApp, type TestApp, OWNER_EMAIL, OWNER_PASSWORD, basic, FEATURE_LEVEL } from '../helpers/app.js';

let t: TestApp;
let base: string;
before(async () => {
  t = await testApp();
  base = await t.listen();
});
after(async () => { await t.close(); });

test('zulip-js logs in with a password and reads GET /users/me', async () => {
  const client = await zulip({ username: OWNER_EMAIL, password: OWNER_PASSWORD, realm: base });
  const me = await client.users.me.getProfile();
  assert.equal(me.result, 'success');
  assert.equal(me.user_id, t.owner.id);
  assert.equal(me.email, OWNER_EMAIL);
  const settings = await client.server.settings();
  assert.equal(settings.zulip_feature_level, FEATURE_LEVEL);
});

test('zulip-js with a trailing-slash site (double slash paths) still works', async () => {
  const client = await zulip({ username: OWNER_EMAIL, apiKey: t.owner.apiKey, realm: `${base}/` });
  const me = await client.users.me.getProfile();
  assert.equal(me.user_id, t.owner.id);
});

test('multipart bodies are read like form bodies, and unknown parameters are ignored', async () => {
  // Built by hand: zulip-js replaces the global FormData with the form-data package.
  const fields = { full_name: 'Multi Part Bot', short_name: 'multipart', dont_block: 'true', totally_unknown: '{"x":1}' };
  const b = 'parleyboundary';
  const form = Object.entries(fields).map(([k, v]) => `--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + `--${b}--\r\n`;
  const res = await fetch(`${base}/api/v1/bots`, { method: 'POST', body: form,
    headers: { authorization: basic(t.owner.email, t.owner.apiKey), 'content-type': `multipart/form-data; boundary=${b}` } });
  const body = await res.json() as any;
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.result, 'success');
  assert.equal(typeof body.user_id, 'number');
});

test('query-string parameters are read for POST too, body wins over query', async () => {
  const res = await fetch(`${base}/api/v1/fetch_api_key?username=${encodeURIComponent(OWNER_EMAIL)}&password=wrong`, {
    method: 'POST', body: new URLSearchParams({ password: OWNER_PASSWORD }),
  });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as any).api_key, t.owner.apiKey);
});

test('a broken JSON or multipart body is a 400 in the error shape, not a 500', async () => {
  const auth = { authorization: basic(t.owner.email, t.owner.apiKey) };
  const bad = await fetch(`${base}/api/v1/bots`, { method: 'POST', body: '{"oops', headers: { ...auth, 'content-type': 'application/json' } });
  assert.equal(bad.status, 400);
  const b = (await bad.json()) as any;
  assert.equal(b.result, 'error');
  assert.equal(typeof b.msg, 'string');
  const mp = await fetch(`${base}/api/v1/bots`, { method: 'POST', body: '--x\r\nbroken', headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' } });
  assert.ok(mp.status >= 400 && mp.status < 500);
  assert.equal(((await mp.json()) as any).result, 'error');
});
