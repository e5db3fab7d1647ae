import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, basic, HOST, FEATURE_LEVEL, type TestApp, type TestUser } from '../helpers/app.js';
import { isValidEmail } from '../../src/lib/email.js';
import { Role } from '../../src/lib/roles.js';

/**
 * Email addresses are validated as Zulip does (Django's validate_email) wherever one comes
 * in, and an address with control characters (NUL among them) is refused the same way on
 * SQLite as on PostgreSQL: before, SQLite stored "a\u0001b@x" and PostgreSQL failed on NUL.
 */
let t: TestApp;
let member: TestUser;

before(async () => {
  t = await testApp();
  member = await t.createUser({ role: Role.MEMBER });
});
after(() => t.close());

const BAD = ['nul\u0000@parley.test', 'ctl\u0001x@parley.test', 'del\u007fx@parley.test', 'new\nline@parley.test', 'tab\t@parley.test', 'nul@parl\u0000ey.test',
  'a b@parley.test', '"quoted"@parley.test', 'no-at-sign', '@parley.test', 'a@', 'a@b', 'a@-b.test', 'a@b-.test', 'a..b@parley.test', '.a@parley.test',
  'a@parley..test', 'a@999.1.1.1', 'a@[::g]', 'a@[1:2]', 'a@::1', `${'a'.repeat(250)}@x.test`, 'a@parley.t'];
const GOOD = ['first.last+tag@sub.parley.test', "o'brien@parley.test", 'x@localhost', 'x@[127.0.0.1]', 'x@[::1]', 'x@[2001:db8::7]', 'demo1@127.0.0.1', 'x@bücher.example', 'UPPER@Parley.Test', 'a-b_c@a-b.co'];

test('isValidEmail: Django\'s rules, no control characters', () => {
  for (const e of BAD) assert.equal(isValidEmail(e), false, JSON.stringify(e));
  for (const e of GOOD) assert.equal(isValidEmail(e), true, e);
});

test('POST /users: an invalid address is "Bad name or username", control characters included', async () => {
  for (const email of BAD) {
    const r = await t.api('POST', '/api/v1/users', { params: { email, password: 'pw-123456789', full_name: 'New Person' } });
    assert.equal(r.status, 400, `${JSON.stringify(email)}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, { result: 'error', msg: 'Bad name or username', code: 'BAD_REQUEST' }, JSON.stringify(email));
  }
  const ok = await t.api('POST', '/api/v1/users', { params: { email: 'first.last+tag@sub.parley.test', password: 'pw-123456789', full_name: 'New Person' } });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

test('PATCH /settings: a new address with control characters is "Invalid address."', async () => {
  for (const email of ['me\u0000@parley.test', 'me\u0001@parley.test', 'me@parley']) {
    const r = await t.api('PATCH', '/api/v1/settings', { as: member, params: { email } });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal((r.body as { msg: string }).msg, 'Invalid address.');
  }
});

test('fetch_api_key with control characters in the username: the ordinary failure, on either engine', async () => {
  for (const username of [`${t.owner.email}\u0000`, `${t.owner.email}\u0001`, `\u0000`]) {
    const r = await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username, password: 'whatever-1' } });
    assert.equal(r.status, 401, JSON.stringify(r.body));
    assert.equal((r.body as { code: string }).code, 'AUTHENTICATION_FAILED');
  }
});

test('basic auth with control characters in the email: Invalid API key, on either engine', async () => {
  for (const email of [`${member.email}\u0000`, `\u0001${member.email}`, `mem\u0000ber@${HOST}`]) {
    const r = await t.app.http.inject({ method: 'GET', url: '/api/v1/users/me', headers: { host: HOST, authorization: basic(email, member.apiKey) } });
    assert.equal(r.statusCode, 401, r.body);
    assert.equal(r.json().code, 'INVALID_API_KEY');
  }
});

test('principals, users/{email} and PM recipients with control characters: their not-found errors, never an engine\'s', async () => {
  const nul = `${member.email}\u0000`;
  const sub = await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'emails' }]), principals: JSON.stringify([nul]) } });
  // Unknown principals: 400 "No such user" from level 208, 403 UNAUTHORIZED_PRINCIPAL before.
  assert.equal(sub.status, FEATURE_LEVEL >= 208 ? 400 : 403, JSON.stringify(sub.body));
  if (FEATURE_LEVEL >= 208) assert.equal((sub.body as { msg: string }).msg, 'No such user');
  else assert.equal((sub.body as { code: string }).code, 'UNAUTHORIZED_PRINCIPAL');
  const user = await t.api('GET', `/api/v1/users/${encodeURIComponent(nul)}`);
  assert.equal(user.status, 400, JSON.stringify(user.body));
  assert.equal((user.body as { msg: string }).msg, 'No such user');
  const pm = await t.api('POST', '/api/v1/messages', { params: { type: 'private', to: JSON.stringify([nul]), content: 'hi' } });
  assert.equal(pm.status, 400, JSON.stringify(pm.body));
  assert.equal((pm.body as { msg: string }).msg, `Invalid email '${nul}'`);
});
