import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, OWNER_EMAIL, OWNER_PASSWORD, basic, FEATURE_LEVEL } from '../helpers/app.js';

let t: TestApp;
before(async () => { t = await testApp(); });
after(async () => { await t.close(); });

test('GET /server_settings needs no auth and ignores a bad header', async () => {
  for (const headers of [{} as Record<string, string>, { authorization: 'Basic garbage' }, { authorization: basic('nobody@x', 'bad') }]) {
    const r = await t.api('GET', '/api/v1/server_settings', { as: null, headers });
    assert.equal(r.status, 200);
    assert.equal(r.body.result, 'success');
    assert.equal(r.body.msg, '');
    assert.equal(r.body.service_feature_level, FEATURE_LEVEL);
    assert.equal(r.body.zulip_feature_level, FEATURE_LEVEL);
    assert.equal(typeof r.body.zulip_version, 'string');
    assert.equal(typeof r.body.zulip_merge_base, 'string');
    assert.equal(r.body.service_merge_base, r.body.zulip_merge_base);
    assert.equal(r.body.realm_uri, 'http://parley.test');
    assert.equal(r.body.realm_name, 'Parley Test');
    assert.equal(r.body.email_auth_enabled, true);
    assert.equal(r.body.require_email_format_usernames, true);
    assert.equal(r.body.push_notifications_enabled, false);
    assert.equal(r.body.realm_web_public_access_enabled, false);
    assert.equal(r.body.authentication_methods.password, true);
    assert.deepEqual(r.body.external_authentication_methods, []);
    assert.equal(r.body.is_incompatible, false);
  }
});

test('double slashes in the path work like single ones', async () => {
  const r = await t.api('GET', '//api/v1/server_settings', { as: null });
  assert.equal(r.status, 200);
  assert.equal(r.body.result, 'success');
});

test('unknown endpoints answer a JSON 404', async () => {
  const r = await t.api('GET', '/api/v1/no/such/thing');
  assert.equal(r.status, 404);
  assert.equal(r.body.result, 'error');
});

test('POST /fetch_api_key exchanges a password for the API key', async () => {
  const r = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(r.status, 200);
  assert.equal(r.body.api_key, t.owner.apiKey);
  assert.equal(r.body.email, OWNER_EMAIL);
  assert.equal(r.body.user_id, t.owner.id);
});

test('POST /fetch_api_key: a wrong password is a 401 (the limits on failures: test/ratelimit/sign-in.test.ts)', async () => {
  const u = await t.createUser({ password: 'right-password-1' });
  const r = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: u.email, password: 'wrong' } });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
});

test('POST /fetch_api_key: missing arguments', async () => {
  const r = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: OWNER_EMAIL } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: "Missing 'password' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'password' });
});
