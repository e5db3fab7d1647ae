import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, createAcme, ACME_HOST, OWNER_EMAIL, OWNER_PASSWORD, basic, type TestApp } from '../helpers/app.js';
import { signIn, webCall, sessionOf } from '../helpers/web.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateUser, doReactivateUser } from '../../src/actions/user-deactivate.js';
import { realms } from '../../src/store/repos/realms.js';
import { sessionIdHash } from '../../src/lib/session-ids.js';
import { until } from '../helpers/until.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const cookieValue = (s: { cookie: string }) => /parley_session=([^;]+)/.exec(s.cookie)![1]!;
const sessionRows = () => t.app.ctx.store.db.selectFrom('session').selectAll().execute();

test('sign-in sets an HttpOnly SameSite session cookie and a readable CSRF cookie, and stores only a hash', async () => {
  const res = await webCall(t, 'POST', '/accounts/login', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { result: 'success', msg: '', user_id: t.owner.id });
  const session = res.cookies.find((c) => c.name === 'parley_session')!;
  const csrf = res.cookies.find((c) => c.name === 'parley_csrf')!;
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Lax');
  assert.equal(session.path, '/');
  assert.equal(session.secure, undefined, 'no Secure over plain http');
  assert.equal(session.maxAge, 14 * 86_400);
  assert.ok(session.value.length >= 40);
  assert.notEqual(csrf.httpOnly, true, 'the page reads the CSRF token');
  assert.equal(csrf.sameSite, 'Lax');
  const rows = (await sessionRows()).filter((r) => r.user_id === t.owner.id);
  assert.ok(rows.some((r) => r.id_hash === sessionIdHash(session.value)));
  assert.ok(rows.every((r) => r.id_hash !== session.value), 'the id itself is never stored');
  assert.ok(!JSON.stringify(res.body).includes(t.owner.apiKey), 'the API key stays on the server');
});

test('the cookie is Secure when the external URL is https, and its lifetime is configurable', async () => {
  const s = await testApp({ externalUrl: 'https://parley.test', sessionLifetimeSecs: 3600 });
  try {
    const res = await webCall(s, 'POST', '/accounts/login', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
    for (const name of ['parley_session', 'parley_csrf']) {
      const c = res.cookies.find((x) => x.name === name)!;
      assert.equal(c.secure, true, name);
      assert.equal(c.maxAge, 3600, name);
    }
  } finally {
    await s.close();
  }
});

test('a wrong password, an unknown user and missing fields are refused with the API wording', async () => {
  const u = await t.createUser({ password: 'right-password-1' });
  const wrong = await webCall(t, 'POST', '/accounts/login', { params: { username: u.email, password: 'nope' } });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
  assert.equal(wrong.cookies.length, 0);
  const unknown = await webCall(t, 'POST', '/accounts/login', { params: { username: 'nobody@parley.test', password: 'x' } });
  assert.equal(unknown.status, 401);
  const missing = await webCall(t, 'POST', '/accounts/login', { params: { username: u.email } });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.msg, "Missing 'password' argument");
});

test('failed sign-ins are limited like POST /fetch_api_key, and count together with it', async () => {
  const u = await t.createUser({ password: 'right-password-2' });
  for (let i = 0; i < 3; i++) await webCall(t, 'POST', '/accounts/login', { params: { username: u.email, password: 'bad' } });
  for (let i = 0; i < 2; i++) await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: u.email, password: 'bad' } });
  const limited = await webCall(t, 'POST', '/accounts/login', { params: { username: u.email, password: 'right-password-2' } });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.code, 'RATE_LIMIT_HIT');
});

test('/json routes answer with the session; GET needs no CSRF header; POST without it is refused', async () => {
  const s = await signIn(t, OWNER_EMAIL, OWNER_PASSWORD);
  const me = await webCall(t, 'GET', '/json/users/me', { session: s, csrf: null });
  assert.equal(me.status, 200);
  assert.equal(me.body.user_id, t.owner.id);
  const noCsrf = await webCall(t, 'POST', '/json/register', { session: s, csrf: null });
  assert.equal(noCsrf.status, 403);
  assert.deepEqual(noCsrf.body, { result: 'error', msg: 'CSRF error: CSRF token missing.', code: 'CSRF_FAILED', reason: 'CSRF token missing.' });
  const badCsrf = await webCall(t, 'POST', '/json/register', { session: s, csrf: 'x'.repeat(32) });
  assert.equal(badCsrf.status, 403);
  assert.equal(badCsrf.body.msg, 'CSRF error: CSRF token incorrect.');
  const reg = await webCall(t, 'POST', '/json/register', { session: s, params: { event_types: ['message'] } });
  assert.equal(reg.status, 200);
  assert.equal(typeof reg.body.queue_id, 'string');
  const sent = await webCall(t, 'POST', '/json/messages', { session: s, params: { type: 'private', to: [t.owner.id], content: 'note to self' } });
  assert.equal(sent.status, 200);
  const events = await webCall(t, 'GET', '/json/events', { session: s, params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
  assert.equal(events.status, 200);
  assert.ok(events.body.events.some((e: any) => e.type === 'message' && e.message.content.includes('note to self')));
});

test('without a session /json answers 401 (how the app learns to sign in), even for POST without a CSRF header', async () => {
  const none = await webCall(t, 'POST', '/json/register', {});
  assert.equal(none.status, 401);
  assert.deepEqual(none.body, { result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' });
  const forged = await webCall(t, 'GET', '/json/users/me', { session: { cookie: 'parley_session=forged', csrf: 'x', userId: 0 } });
  assert.equal(forged.status, 401);
  // Basic auth is the API's, not the web app's.
  const basicOnly = await webCall(t, 'GET', '/json/users/me', { headers: { authorization: basic(t.owner.email, t.owner.apiKey) } });
  assert.equal(basicOnly.status, 401);
});

test('/api/v1 ignores the session cookie', async () => {
  const s = await signIn(t, OWNER_EMAIL, OWNER_PASSWORD);
  const res = await webCall(t, 'GET', '/api/v1/users/me', { session: s });
  assert.equal(res.status, 401);
  assert.equal(res.body.msg, 'Missing authorization header for basic auth');
});

test('a session is good on its own organization only', async () => {
  const acme = await createAcme(t);
  const s = await signIn(t, OWNER_EMAIL, OWNER_PASSWORD);
  const there = await webCall(t, 'GET', '/json/users/me', { session: s, host: ACME_HOST });
  assert.equal(there.status, 401);
  const acmeSession = await signIn(t, acme.owner.email, 'pw-123456', ACME_HOST);
  assert.equal((await webCall(t, 'GET', '/json/users/me', { session: acmeSession, host: ACME_HOST })).body.user_id, acme.owner.id);
});

test('sign-out ends the session: the old cookie then answers 401, and both cookies are cleared', async () => {
  const s = await signIn(t, OWNER_EMAIL, OWNER_PASSWORD);
  assert.equal((await webCall(t, 'GET', '/json/users/me', { session: s })).status, 200);
  const noCsrf = await webCall(t, 'POST', '/accounts/logout', { session: s, csrf: null });
  assert.equal(noCsrf.status, 403);
  const out = await webCall(t, 'POST', '/accounts/logout', { session: s });
  assert.equal(out.status, 200);
  assert.deepEqual(out.body, { result: 'success', msg: '' });
  for (const name of ['parley_session', 'parley_csrf']) {
    const c = out.cookies.find((x) => x.name === name)!;
    assert.equal(c.value, '', name);
    assert.ok(c.expires!.getTime() < Date.now(), `${name} expires at once`);
  }
  const after = await webCall(t, 'GET', '/json/users/me', { session: s });
  assert.equal(after.status, 401);
  assert.equal((await webCall(t, 'POST', '/accounts/logout', { session: s })).status, 401);
});

test("a deactivated user's session is refused and deleted", async () => {
  const u = await t.createUser({ password: 'pw-deactivate-1' });
  const s = await signIn(t, u.email, 'pw-deactivate-1');
  const s2 = await signIn(t, u.email, 'pw-deactivate-1');
  assert.equal((await webCall(t, 'GET', '/json/users/me', { session: s })).status, 200);
  await transact(t.app.ctx, (tx) => doDeactivateUser(tx, u.row));
  const res = await webCall(t, 'GET', '/json/users/me', { session: s });
  assert.equal(res.status, 401);
  assert.deepEqual(res.body, { result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
  assert.equal((await sessionRows()).filter((r) => r.id_hash === sessionIdHash(cookieValue(s))).length, 0, 'the session is gone');
  // Another session of the same user, never used since: reactivation does not bring it back.
  await transact(t.app.ctx, (tx) => doReactivateUser(tx, t.realm, { ...u.row, is_active: 0 }));
  assert.equal((await webCall(t, 'GET', '/json/users/me', { session: s2 })).status, 401);
  assert.equal((await sessionRows()).filter((r) => r.user_id === u.id).length, 0);
  await transact(t.app.ctx, (tx) => doDeactivateUser(tx, { ...u.row, is_active: 1 }));
  const signIn2 = await webCall(t, 'POST', '/accounts/login', { params: { username: u.email, password: 'pw-deactivate-1' } });
  assert.equal(signIn2.status, 401);
  assert.equal(signIn2.body.code, 'USER_DEACTIVATED');
});

test("a deactivated organization's sessions are refused and deleted", async () => {
  const s = await testApp();
  try {
    const session = await signIn(s, OWNER_EMAIL, OWNER_PASSWORD);
    await realms.update(s.app.ctx.store.db, s.realm.id, { deactivated: 1 });
    const res = await webCall(s, 'GET', '/json/users/me', { session });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { result: 'error', msg: 'This organization has been deactivated', code: 'REALM_DEACTIVATED' });
    assert.equal((await s.app.ctx.store.db.selectFrom('session').selectAll().execute()).length, 0);
  } finally {
    await s.close();
  }
});

test('an expired session answers 401 and its row is removed', async () => {
  const s = await testApp({ sessionLifetimeSecs: 1 });
  try {
    const session = sessionOf(await webCall(s, 'POST', '/accounts/login', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } }));
    const row = (await s.app.ctx.store.db.selectFrom('session').selectAll().execute())[0]!;
    assert.equal(row.expires - row.created, 1);
    // Wait for the clock rather than a fixed sleep: the expiry is in whole seconds.
    const res = await until(async () => {
      const r = await webCall(s, 'GET', '/json/users/me', { session });
      return r.status === 401 && r;
    }, { timeoutMs: 5000 });
    assert.equal(res.body.msg, 'Not logged in: API authentication or user session required');
    assert.equal((await s.app.ctx.store.db.selectFrom('session').selectAll().execute()).length, 0);
  } finally {
    await s.close();
  }
});

test("uploaded files open in the browser with the session cookie, and not with another organization's", async () => {
  const { uploadOne } = await import('../helpers/multipart.js');
  const url = await uploadOne(t, t.owner, 'note.txt', 'for the browser');
  const s = await signIn(t, OWNER_EMAIL, OWNER_PASSWORD);
  const res = await webCall(t, 'GET', url, { session: s, csrf: null });
  assert.equal(res.status, 200);
  assert.equal(res.body, 'for the browser');
  assert.equal((await webCall(t, 'GET', url, {})).status, 401);
  assert.equal((await webCall(t, 'GET', url, { session: { cookie: 'parley_session=forged', csrf: '', userId: 0 } })).status, 401);
});
