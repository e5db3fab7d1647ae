import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, basic, HOST, createAcme, ACME_HOST } from '../helpers/app.js';
import { untilLoginRefused } from '../helpers/epoch.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateRealm } from '../../src/actions/realm-create.js';
import { realms } from '../../src/store/repos/realms.js';

let t: TestApp;
before(async () => { t = await testApp(); });
after(async () => { await t.close(); });

const ME = '/api/v1/users/me';

test('no Authorization header is a 401', async () => {
  const r = await t.api('GET', ME, { as: null });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { result: 'error', msg: 'Missing authorization header for basic auth', code: 'UNAUTHORIZED' });
});

test('malformed Authorization headers are 401s', async () => {
  for (const h of ['Basic', 'Basic a b', 'Basic ' + Buffer.from('no-colon').toString('base64')]) {
    const r = await t.api('GET', ME, { as: null, headers: { authorization: h } });
    assert.equal(r.status, 401, h);
    assert.equal(r.body.msg, 'Invalid authorization header for basic auth');
  }
  const r = await t.api('GET', ME, { as: null, headers: { authorization: 'Bearer abc' } });
  assert.equal(r.status, 401);
  assert.equal(r.body.msg, 'This endpoint requires HTTP basic authentication.');
});

test('a wrong key or unknown email is a 401 Invalid API key', async () => {
  for (const h of [basic(t.owner.email, 'x'.repeat(32)), basic('nobody@parley.test', t.owner.apiKey)]) {
    const r = await t.api('GET', ME, { as: null, headers: { authorization: h } });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' });
  }
  // Zulip's has_api_key_format: not 32 letters and digits is malformed, whoever it names.
  for (const key of ['', 'short', `${t.owner.apiKey}x`, `${t.owner.apiKey.slice(0, 31)}-`]) {
    const r = await t.api('GET', ME, { as: null, headers: { authorization: basic(t.owner.email, key) } });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: 'error', msg: 'Malformed API key', code: 'INVALID_API_KEY' });
  }
});

test('NUL bytes in credentials, user lookups and logins are ordinary failures on both engines', async () => {
  const r = await t.api('GET', ME, { as: null, headers: { authorization: basic('a\u0000b@parley.test', t.owner.apiKey) } });
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'INVALID_API_KEY');
  const lookup = await t.api('GET', '/api/v1/users/x%00y@parley.test');
  assert.equal(lookup.status, 400);
  assert.equal(lookup.body.msg, 'No such user');
  const login = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: 'a\u0000b@parley.test', password: 'x' } });
  assert.equal(login.status, 401);
});

test('a user id past the 32-bit id range is simply no such user on both engines', async () => {
  for (const id of ['99999999999', '2147483648', '0']) {
    const r = await t.api('GET', `/api/v1/users/${id}`);
    assert.equal(r.status, 400, id);
    assert.equal(r.body.msg, 'No such user');
  }
});

test('the email in basic auth is case-insensitive', async () => {
  const r = await t.api('GET', ME, { as: null, headers: { authorization: basic(t.owner.email.toUpperCase(), t.owner.apiKey) } });
  assert.equal(r.status, 200);
  assert.equal(r.body.user_id, t.owner.id);
});

test('a deactivated user gets 401 USER_DEACTIVATED everywhere', async () => {
  const u = await t.createUser();
  assert.equal((await t.api('GET', ME, { as: u })).status, 200);
  assert.equal((await t.api('DELETE', `/api/v1/users/${u.id}`)).status, 200);
  for (const [m, p] of [['GET', ME], ['GET', '/api/v1/users'], ['POST', '/api/v1/bots']] as const) {
    const r = await t.api(m, p, { as: u, params: m === 'POST' ? { full_name: 'B', short_name: 'b' } : undefined });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
  }
  const f = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: u.email, password: 'whatever' } });
  assert.equal(f.status, 401);
});

test('organizations are picked by Host subdomain and a deactivated one answers 401', async () => {
  const { realm, owner } = await createAcme(t);
  const acme = ACME_HOST;
  const ok = await t.api('GET', ME, { as: owner, host: acme });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.email, 'boss@acme.test');
  // The same credentials do not work on another organization's host.
  const wrongHost = await t.api('GET', ME, { as: owner });
  assert.equal(wrongHost.status, 401);
  const settings = await t.api('GET', '/api/v1/server_settings', { as: null, host: acme });
  assert.equal(settings.body.realm_name, 'Acme');
  assert.equal(settings.body.realm_uri, `http://${acme}`);

  await transact(t.app.ctx, async (tx) => doDeactivateRealm(tx, (await realms.findById(tx.db, realm.id))!));
  const r = await t.api('GET', ME, { as: owner, host: acme });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { result: 'error', msg: 'This organization has been deactivated', code: 'REALM_DEACTIVATED' });
  const f = await t.api('POST', '/api/v1/fetch_api_key', { as: null, host: acme, params: { username: 'boss@acme.test', password: 'pw-123456' } });
  assert.equal(f.status, 401);
  assert.equal(f.body.code, 'REALM_DEACTIVATED');
});

test('an unknown subdomain is a 404 for public and authenticated endpoints', async () => {
  const r = await t.api('GET', '/api/v1/server_settings', { as: null, host: `nope.${HOST}` });
  assert.equal(r.status, 404);
  assert.deepEqual(r.body, { result: 'error', msg: 'Invalid subdomain', code: 'NONEXISTENT_SUBDOMAIN' });
  const me = await t.api('GET', ME, { host: `nope.${HOST}` });
  assert.equal(me.status, 401);
});

test('a regenerated API key replaces the old one at once, even right after the old one was used', async () => {
  const u = await t.createUser();
  assert.equal((await t.api('GET', ME, { as: u })).status, 200);
  const r = await t.api('POST', '/api/v1/users/me/api_key/regenerate', { as: u });
  assert.equal(r.status, 200);
  const old = await t.api('GET', ME, { as: u });
  assert.equal(old.status, 401);
  assert.equal(old.body.code, 'INVALID_API_KEY');
  assert.equal((await t.api('GET', ME, { as: { ...u, apiKey: r.body.api_key } })).status, 200);
});

test('a change made outside this process (the CLI, another node) is honoured within a second or so', async () => {
  const u = await t.createUser();
  assert.equal((await t.api('GET', ME, { as: u })).status, 200);
  // Written straight to the store, as another process would, bypassing this process's actions.
  await t.app.ctx.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', u.id).execute();
  const r = await untilLoginRefused(t, u);
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'USER_DEACTIVATED');
});

test('GET /users/me answers change at once when the user changes, though the answer is cached', async () => {
  const u = await t.createUser({ name: 'Before Rename' });
  assert.equal((await t.api('GET', ME, { as: u })).body.full_name, 'Before Rename');
  assert.equal((await t.api('PATCH', `/api/v1/users/${u.id}`, { params: { full_name: 'After Rename' } })).status, 200);
  assert.equal((await t.api('GET', ME, { as: u })).body.full_name, 'After Rename');
  assert.equal((await t.api('PATCH', `/api/v1/users/${u.id}`, { params: { role: 200 } })).status, 200);
  assert.equal((await t.api('GET', ME, { as: u })).body.is_admin, true);
});
