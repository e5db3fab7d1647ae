import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { decodesAsPythonBase64 } from '../../src/actions/push-tokens.js';

/**
 * Push device tokens (Zulip's zerver/views/push_notifications.py): each user's own, stored
 * although this server sends no pushes yet, with Zulip's validation and error strings.
 */
let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
after(() => t.close());

const APNS = '/api/v1/users/me/apns_device_token';
const FCM = '/api/v1/users/me/android_gcm_reg_id';
// zulip-flutter sends the APNs token as hex, which base64 also decodes.
const HEX_TOKEN = 'a1b2c3d4'.repeat(8);

const rowsOf = (u: TestUser) => t.app.ctx.store.db.selectFrom('push_device').select(['kind', 'token', 'ios_app_id'])
  .where('user_id', '=', u.id).orderBy('id').execute();
const error = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

test('POST apns_device_token and android_gcm_reg_id store the user\'s tokens; adding again changes nothing', async () => {
  for (let i = 0; i < 2; i++) {
    const a = await t.api('POST', APNS, { as: alice, params: { token: HEX_TOKEN, appid: 'org.zulip.Zulip.dev' } });
    assert.deepEqual(a.body, { result: 'success', msg: '' });
    const f = await t.api('POST', FCM, { as: alice, params: { token: 'fcm:token-1' } });
    assert.deepEqual(f.body, { result: 'success', msg: '' });
  }
  assert.deepEqual(await rowsOf(alice), [
    { kind: 1, token: HEX_TOKEN, ios_app_id: 'org.zulip.Zulip.dev' },
    { kind: 2, token: 'fcm:token-1', ios_app_id: null },
  ]);
  // Another user may register the same device token: each user has their own row.
  assert.equal((await t.api('POST', FCM, { as: bob, params: { token: 'fcm:token-1' } })).status, 200);
  assert.deepEqual(await rowsOf(bob), [{ kind: 2, token: 'fcm:token-1', ios_app_id: null }]);
});

test('appid: Zulip\'s pattern; a client from before level 223 may leave it out (Zulip\'s former default)', async () => {
  const bad = await t.api('POST', APNS, { as: bob, params: { token: HEX_TOKEN, appid: 'org zulip' } });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, error('appid has invalid format'));
  const old = await t.api('POST', APNS, { as: bob, params: { token: 'b2xkLWNsaWVudA==' } });
  assert.equal(old.status, 200, JSON.stringify(old.body));
  assert.deepEqual((await rowsOf(bob)).find((r) => r.kind === 1), { kind: 1, token: 'b2xkLWNsaWVudA==', ios_app_id: 'org.zulip.Zulip' });
});

test('token validation: "Empty or invalid length token", and for APNs "Invalid APNS token"', async () => {
  for (const [url, token] of [[APNS, ''], [FCM, ''], [APNS, 'a'.repeat(4097)], [FCM, 'a'.repeat(4097)]] as const) {
    for (const method of ['POST', 'DELETE']) {
      const r = await t.api(method, url, { as: alice, params: { token, appid: 'org.zulip.Zulip' } });
      assert.equal(r.status, 400, `${method} ${url}`);
      assert.deepEqual(r.body, error('Empty or invalid length token'));
    }
  }
  for (const token of ['abc', 'a', 'zzzzz', 'tökenö==']) {
    for (const method of ['POST', 'DELETE']) {
      const r = await t.api(method, APNS, { as: alice, params: { token, appid: 'org.zulip.Zulip' } });
      assert.deepEqual(r.body, error('Invalid APNS token'), `${method} ${token}`);
    }
  }
  // An FCM token is any non-empty text of at most 4096 characters.
  assert.equal((await t.api('POST', FCM, { as: alice, params: { token: 'x' } })).status, 200);
  assert.equal((await t.api('DELETE', FCM, { as: alice, params: { token: 'x' } })).status, 200);
  const missing = await t.api('POST', FCM, { as: alice, params: {} });
  assert.deepEqual(missing.body, { result: 'error', msg: "Missing 'token' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'token' });
});

test('Python\'s lenient base64: padding ends the input, characters outside the alphabet are skipped', () => {
  for (const ok of ['', 'YQ==', 'YWI=', 'YWJj', 'YQ==junk', 'Y Q = =', HEX_TOKEN, 'a-b_c+d/xy']) assert.equal(decodesAsPythonBase64(ok), true, ok);
  for (const bad of ['Y', 'YQ', 'YQ=', 'YWJjZ', 'é', 'YWJj\u00ff']) assert.equal(decodesAsPythonBase64(bad), false, bad);
});

test('DELETE removes only the user\'s own token of that kind, else "Token does not exist"', async () => {
  await t.api('POST', FCM, { as: alice, params: { token: 'shared-token' } });
  await t.api('POST', FCM, { as: bob, params: { token: 'shared-token' } });
  // The same text registered as the other kind is another token.
  const wrongKind = await t.api('DELETE', APNS, { as: alice, params: { token: 'c2hhcmVk' } });
  assert.deepEqual(wrongKind.body, error('Token does not exist'));
  const ok = await t.api('DELETE', FCM, { as: alice, params: { token: 'shared-token' } });
  assert.deepEqual(ok.body, { result: 'success', msg: '' });
  assert.ok(!(await rowsOf(alice)).some((r) => r.token === 'shared-token'));
  assert.ok((await rowsOf(bob)).some((r) => r.token === 'shared-token'), 'another user\'s registration stays');
  const again = await t.api('DELETE', FCM, { as: alice, params: { token: 'shared-token' } });
  assert.equal(again.status, 400);
  assert.deepEqual(again.body, error('Token does not exist'));
  assert.equal((await t.api('DELETE', APNS, { as: alice, params: { token: HEX_TOKEN } })).status, 200);
  assert.ok(!(await rowsOf(alice)).some((r) => r.kind === 1));
});

test('regenerating the API key clears the user\'s tokens (Zulip\'s clear_push_device_tokens)', async () => {
  const carol = await t.createUser({ name: 'Carol' });
  await t.api('POST', FCM, { as: carol, params: { token: 'carol-device' } });
  await t.api('POST', APNS, { as: carol, params: { token: HEX_TOKEN, appid: 'org.zulip.Zulip' } });
  assert.equal((await rowsOf(carol)).length, 2);
  const r = await t.api('POST', '/api/v1/users/me/api_key/regenerate', { as: carol });
  assert.equal(r.status, 200);
  assert.deepEqual(await rowsOf(carol), []);
  assert.ok((await rowsOf(bob)).length > 0, 'nobody else\'s');
});

test('bots are refused (human_users_only), before their parameters are read', async () => {
  const bot = await t.createBot(alice, { fullName: 'Push Bot', shortName: 'pushbot' });
  for (const [method, url] of [['POST', APNS], ['DELETE', APNS], ['POST', FCM], ['DELETE', FCM]] as const) {
    const r = await t.api(method, url, { as: bot, params: {} });
    assert.equal(r.status, 400, `${method} ${url}`);
    assert.deepEqual(r.body, error('This endpoint does not accept bot requests.'));
  }
});

test('authentication is required', async () => {
  for (const [method, url] of [['POST', APNS], ['DELETE', APNS], ['POST', FCM], ['DELETE', FCM]] as const) {
    const r = await t.api(method, url, { as: null, params: { token: 'x', appid: 'a' } });
    assert.equal(r.status, 401, `${method} ${url}`);
    assert.equal(r.body.result, 'error');
  }
});
