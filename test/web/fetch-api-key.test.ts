/**
 * POST /json/fetch_api_key, the web app's "Manage your API key" (Zulip's json_fetch_api_key):
 * the signed-in user's key and real address for the password asked again; a wrong password is
 * "Password is incorrect."; no session, no key. /api/v1/fetch_api_key stays the username and
 * password one.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, OWNER_EMAIL, OWNER_PASSWORD, type TestApp } from '../helpers/app.js';
import { signIn, webCall } from '../helpers/web.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

test('the signed-in user gets their key with their password, never with a wrong one or without a session', async () => {
  const session = await signIn(t, OWNER_EMAIL, OWNER_PASSWORD);
  const ok = await webCall(t, 'POST', '/json/fetch_api_key', { session, params: { password: OWNER_PASSWORD } });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { result: 'success', msg: '', api_key: t.owner.apiKey, email: OWNER_EMAIL });

  const wrong = await webCall(t, 'POST', '/json/fetch_api_key', { session, params: { password: 'not-the-password' } });
  assert.equal(wrong.status, 400);
  assert.deepEqual([wrong.body.code, wrong.body.msg], ['BAD_REQUEST', 'Password is incorrect.']);
  assert.ok(!JSON.stringify(wrong.body).includes(t.owner.apiKey));
  const none = await webCall(t, 'POST', '/json/fetch_api_key', { session, params: {} });
  assert.equal(none.status, 400);

  const noCsrf = await webCall(t, 'POST', '/json/fetch_api_key', { session, csrf: null, params: { password: OWNER_PASSWORD } });
  assert.equal(noCsrf.status, 403);
  const anonymous = await webCall(t, 'POST', '/json/fetch_api_key', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(anonymous.status, 401);
  assert.ok(!JSON.stringify(anonymous.body).includes(t.owner.apiKey));

  // The API's own stays username and password, without a session.
  const api = await webCall(t, 'POST', '/api/v1/fetch_api_key', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(api.status, 200);
  assert.equal(api.body.api_key, t.owner.apiKey);
});
