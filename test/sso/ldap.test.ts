/**
 * Signing in with the organization's LDAP directory (issue 34), against a real OpenLDAP
 * (Debian's slapd) that the test starts: POST /fetch_api_key and the web's sign-in take the
 * directory username or an address, RFC 4515 escaping, auto-signup, refusals, the failure
 * budgets, PARLEY_PASSWORD_AUTH=off, a directory that is down, StartTLS and ldaps.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { testApp, basic, OWNER_EMAIL, OWNER_PASSWORD, type ApiResult, type TestApp } from '../helpers/app.js';
import { webCall, sessionOf } from '../helpers/web.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateUser } from '../../src/actions/user-deactivate.js';
import { users } from '../../src/store/repos/users.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { parseSsoConfig, type LdapConfig, type SsoConfig } from '../../src/lib/sso-config.js';
import { authenticateLdap, LdapUnavailable, userFilter } from '../../src/sso/ldap.js';
import { person, service, slapdMissing, startSlapd, SUFFIX, type Slapd } from './slapd.js';

const skip = slapdMissing() ?? false;
if (skip) console.log(`# LDAP tests skipped: ${skip}`);

const SERVICE_DN = `cn=parley,ou=services,${SUFFIX}`;
const SERVICE_PASSWORD = 'service-secret';
const ALICE_LDAP_PW = 'alice-directory-pw';
const ALICE_OWN_PW = 'alice-own-password';

let slapd: Slapd;
const apps: TestApp[] = [];

before(async () => {
  if (skip) return;
  slapd = await startSlapd([
    service('parley', SERVICE_PASSWORD),
    person('alice', 'Alice Directory', 'alice@parley.test', ALICE_LDAP_PW),
    person('alicia', 'Alicia Other', 'alicia@parley.test', 'alicia-pw'),
    person('nina', 'Nina Newcomer', 'nina@parley.test', 'nina-pw'),
    person('gone', 'Gone Person', 'gone@parley.test', 'gone-pw'),
    person('nomail', 'No Mail', null, 'nomail-pw'),
  ]);
});
after(async () => {
  for (const a of apps) await a.close();
  await slapd?.stop();
});

function ldapConfig(over: Partial<LdapConfig> = {}): LdapConfig {
  return {
    url: slapd.url, startTls: false, bindDn: SERVICE_DN, bindPassword: SERVICE_PASSWORD, userSearchBase: `ou=people,${SUFFIX}`,
    userFilter: '(uid={username})', emailAttr: 'mail', nameAttr: 'cn', autoSignup: false, ca: null, ...over,
  };
}

/** A server whose organization has Alice (own password too) and a deactivated Gone. */
async function ldapApp(ldap: Partial<LdapConfig> = {}, opts: { passwordAuth?: boolean; rateLimits?: string } = {}): Promise<TestApp> {
  const sso: SsoConfig = { passwordAuth: opts.passwordAuth ?? true, oidc: null, saml: null, ldap: ldapConfig(ldap) };
  const limits = opts.rateLimits === undefined ? {} : { rateLimiting: true, rateLimits: parseRateLimitRules(opts.rateLimits) };
  const t = await testApp({ sso, ...limits });
  apps.push(t);
  await t.createUser({ email: 'alice@parley.test', name: 'Alice Smith', password: ALICE_OWN_PW });
  const gone = await t.createUser({ email: 'gone@parley.test', name: 'Gone Person' });
  await transact(t.app.ctx, (tx) => doDeactivateUser(tx, gone.row));
  return t;
}

const fetchKey = (t: TestApp, username: string, password: string, remoteAddress?: string): Promise<ApiResult> =>
  t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username, password }, ...(remoteAddress ? { remoteAddress } : {}) });

const findUser = (t: TestApp, email: string) => users.findByDeliveryEmail(t.app.ctx.store.db, t.realm.id, email);

function assertFailed(r: ApiResult): void {
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
}

function assertDirectoryDown(r: { status: number; body: unknown }): void {
  assert.equal(r.status, 503, JSON.stringify(r.body));
  const body = r.body as { result: string; code: string; msg: string; api_key?: string };
  assert.equal(body.result, 'error');
  assert.equal(body.code, 'AUTHENTICATION_FAILED');
  assert.match(body.msg, /directory \(LDAP\) cannot check your password right now/);
  assert.equal(body.api_key, undefined);
}

/** The key works as the app uses it, and is that person's. */
async function assertKeyOf(t: TestApp, r: ApiResult, email: string): Promise<void> {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const row = (await findUser(t, email))!;
  assert.deepEqual(r.body, { result: 'success', msg: '', api_key: row.api_key, email, user_id: row.id });
  const me = await t.app.http.inject({ method: 'GET', url: '/api/v1/users/me', headers: { host: 'parley.test', authorization: basic(email, r.body.api_key) } });
  assert.equal(me.statusCode, 200);
  assert.equal(me.json().user_id, row.id);
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('fetch_api_key takes the directory username or the address, and Parley\'s own password first', { skip }, async () => {
  const t = await ldapApp();
  await assertKeyOf(t, await fetchKey(t, 'alice', ALICE_LDAP_PW), 'alice@parley.test');
  // Not in the filter's attribute: looked up by the address attribute.
  await assertKeyOf(t, await fetchKey(t, 'alice@parley.test', ALICE_LDAP_PW), 'alice@parley.test');
  // Zulip's order: EmailAuthBackend before LDAP.
  await assertKeyOf(t, await fetchKey(t, 'alice@parley.test', ALICE_OWN_PW), 'alice@parley.test');
  // The directory's own matching rule: uid is case-insensitive.
  await assertKeyOf(t, await fetchKey(t, 'ALICE', ALICE_LDAP_PW), 'alice@parley.test');
  // The directory's password is not Parley's, nor the other way round under the directory name.
  assertFailed(await fetchKey(t, 'alice', ALICE_OWN_PW));
  assertFailed(await fetchKey(t, 'alice', 'wrong'));
  // An empty password would be an unauthenticated bind, which the directory answers with success.
  assertFailed(await fetchKey(t, 'alice', ''));
  // The owner's own password still works beside the directory.
  assert.equal((await fetchKey(t, OWNER_EMAIL, OWNER_PASSWORD)).status, 200);
});

test('the web sign-in takes the directory username; a wrong password leaves no session', { skip }, async () => {
  const t = await ldapApp();
  const alice = (await findUser(t, 'alice@parley.test'))!;
  const res = await webCall(t, 'POST', '/accounts/login', { params: { username: 'alice', password: ALICE_LDAP_PW } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { result: 'success', msg: '', user_id: alice.id });
  const session = sessionOf(res);
  const me = await webCall(t, 'GET', '/json/users/me', { session });
  assert.equal(me.status, 200);
  assert.equal((me.body as { user_id: number }).user_id, alice.id);
  const wrong = await webCall(t, 'POST', '/accounts/login', { params: { username: 'alice', password: 'nope' } });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
  assert.equal(wrong.cookies.length, 0);
});

test('the username is escaped as RFC 4515 says: wildcards and filter syntax match nobody', { skip }, async () => {
  const t = await ldapApp();
  const config = ldapConfig();
  // Unescaped, each of these would find Alice's entry alone (or with others), and her password would then bind.
  for (const username of ['alic*', 'al*e', '*', ')(uid=*', 'alice)(uid=*', '*)(|(uid=alice', 'alice\0']) {
    assertFailed(await fetchKey(t, username, ALICE_LDAP_PW));
    assert.equal(await authenticateLdap(config, username, ALICE_LDAP_PW), null, username);
  }
  // The same through the address lookup.
  assertFailed(await fetchKey(t, 'alice@parley.*', ALICE_LDAP_PW));
  assert.equal(userFilter(config, 'prefix*'), '(uid=prefix\\2a)');
  assert.equal(userFilter(config, 'a(b)c\\d\0'), '(uid=a\\28b\\29c\\5cd\\00)');
});

test('a person the directory knows but Parley does not: refused without auto-signup, no account made', { skip }, async () => {
  const t = await ldapApp();
  const before = await t.app.ctx.store.db.selectFrom('users').select('id').execute();
  assertFailed(await fetchKey(t, 'nina', 'nina-pw'));
  const web = await webCall(t, 'POST', '/accounts/login', { params: { username: 'nina', password: 'nina-pw' } });
  assert.equal(web.status, 401);
  assert.equal(web.cookies.length, 0);
  assert.equal(await findUser(t, 'nina@parley.test'), undefined);
  assert.equal((await t.app.ctx.store.db.selectFrom('users').select('id').execute()).length, before.length);
});

test('auto-signup creates the account with the directory\'s name, once', { skip }, async () => {
  const t = await ldapApp({ autoSignup: true });
  assertFailed(await fetchKey(t, 'nina', 'wrong'));
  assert.equal(await findUser(t, 'nina@parley.test'), undefined, 'a wrong password creates nothing');
  const first = await fetchKey(t, 'nina', 'nina-pw');
  await assertKeyOf(t, first, 'nina@parley.test');
  const nina = (await findUser(t, 'nina@parley.test'))!;
  assert.equal(nina.full_name, 'Nina Newcomer');
  assert.equal(nina.password_hash, null, 'the directory keeps the password');
  const again = await fetchKey(t, 'nina@parley.test', 'nina-pw');
  assert.equal(again.body.user_id, nina.id);
  // Auto-signup does not bring back a deactivated account.
  const gone = await fetchKey(t, 'gone', 'gone-pw');
  assert.equal(gone.status, 401);
  assert.equal(gone.body.code, 'USER_DEACTIVATED');
});

test('a deactivated account is refused after the directory vouched for it, with no key', { skip }, async () => {
  const t = await ldapApp();
  const r = await fetchKey(t, 'gone', 'gone-pw');
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
  const web = await webCall(t, 'POST', '/accounts/login', { params: { username: 'gone', password: 'gone-pw' } });
  assert.equal(web.status, 401);
  assert.equal(web.cookies.length, 0);
  // A wrong password learns nothing about the account.
  assertFailed(await fetchKey(t, 'gone', 'wrong'));
});

test('PARLEY_PASSWORD_AUTH=off with LDAP: own passwords refused, the directory signs in', { skip }, async () => {
  const t = await ldapApp({}, { passwordAuth: false });
  assertFailed(await fetchKey(t, OWNER_EMAIL, OWNER_PASSWORD));
  assertFailed(await fetchKey(t, 'alice@parley.test', ALICE_OWN_PW));
  await assertKeyOf(t, await fetchKey(t, 'alice', ALICE_LDAP_PW), 'alice@parley.test');
  await assertKeyOf(t, await fetchKey(t, 'alice@parley.test', ALICE_LDAP_PW), 'alice@parley.test');
  const web = await webCall(t, 'POST', '/accounts/login', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(web.status, 401);
  assert.equal(web.cookies.length, 0);
  const settings = await t.api('GET', '/api/v1/server_settings', { as: null });
  assert.equal(settings.status, 200);
  assert.equal(settings.body.authentication_methods.password, true);
  assert.equal(settings.body.authentication_methods.email, false);
  assert.equal(settings.body.authentication_methods.ldap, true);
  assert.equal(settings.body.require_email_format_usernames, false);
});

test('failed directory sign-ins spend the per-username and per-address budgets', { skip }, async () => {
  const t = await ldapApp({}, { rateLimits: 'authenticate_by_ip=1800:7' });
  for (let i = 0; i < 5; i++) assertFailed(await fetchKey(t, 'alice', 'wrong', '10.1.1.1'));
  // Zulip's authenticate_by_username: 5 per 30 minutes, from any address, the right password too.
  const locked = await fetchKey(t, 'alice', ALICE_LDAP_PW, '10.2.2.2');
  assert.equal(locked.status, 429, JSON.stringify(locked.body));
  assert.equal(locked.body.code, 'RATE_LIMIT_HIT');
  // Two more failures under other names fill the address's 7.
  assertFailed(await fetchKey(t, 'nobody', 'x', '10.1.1.1'));
  assertFailed(await fetchKey(t, 'alic*', 'x', '10.1.1.1'));
  assert.equal((await fetchKey(t, 'alicia', 'alicia-pw', '10.1.1.1')).status, 429);
  // Elsewhere, other people still sign in (Alicia has no account: the generic failure).
  assertFailed(await fetchKey(t, 'alicia', 'alicia-pw', '10.3.3.3'));
});

test('a directory that is down, or refuses the service account, answers a clear error, not a 500', { skip }, async () => {
  const down = await ldapApp({ url: `ldap://127.0.0.1:${await closedPort()}` });
  assertDirectoryDown(await fetchKey(down, 'alice', ALICE_LDAP_PW));
  const web = await webCall(down, 'POST', '/accounts/login', { params: { username: 'alice', password: ALICE_LDAP_PW } });
  assertDirectoryDown(web);
  assert.equal(web.cookies.length, 0);
  // Parley's own passwords are tried first and need no directory.
  assert.equal((await fetchKey(down, 'alice@parley.test', ALICE_OWN_PW)).status, 200);

  const misconfigured = await ldapApp({ bindPassword: 'not-the-service-password' });
  assertDirectoryDown(await fetchKey(misconfigured, 'alice', ALICE_LDAP_PW));

  // What is logged says why, never with the person's password.
  await assert.rejects(authenticateLdap(ldapConfig({ bindPassword: 'not-the-service-password' }), 'alice', ALICE_LDAP_PW), (err: unknown) => {
    assert.ok(err instanceof LdapUnavailable);
    assert.match(err.message, /service account bind: InvalidCredentialsError/);
    assert.ok(!err.message.includes(ALICE_LDAP_PW) && !err.message.includes('not-the-service-password'));
    return true;
  });
  // An entry without an address is the directory's (or PARLEY_LDAP_EMAIL_ATTR's) problem, said so.
  await assert.rejects(authenticateLdap(ldapConfig(), 'nomail', 'nomail-pw'), /has no mail attribute/);
});

test('a directory failure is not counted as a wrong password', { skip }, async () => {
  const t = await ldapApp({ url: `ldap://127.0.0.1:${await closedPort()}` }, { rateLimits: 'authenticate_by_ip=1800:100' });
  for (let i = 0; i < 6; i++) assertDirectoryDown(await fetchKey(t, 'alice', ALICE_LDAP_PW));
  assert.equal((await fetchKey(t, 'alice@parley.test', ALICE_OWN_PW)).status, 200);
});

test('StartTLS on ldap:// and TLS on ldaps:// with the directory\'s CA; an untrusted certificate is refused', { skip }, async () => {
  const startTls = await ldapApp({ startTls: true, ca: slapd.ca });
  await assertKeyOf(startTls, await fetchKey(startTls, 'alice', ALICE_LDAP_PW), 'alice@parley.test');
  assert.deepEqual(await authenticateLdap(ldapConfig({ url: slapd.ldapsUrl, startTls: false, ca: slapd.ca }), 'alice', ALICE_LDAP_PW),
    { email: 'alice@parley.test', fullName: 'Alice Directory' });
  // Anonymous search (no PARLEY_LDAP_BIND_DN) over StartTLS.
  assert.deepEqual(await authenticateLdap(ldapConfig({ startTls: true, ca: slapd.ca, bindDn: null, bindPassword: null }), 'alice', ALICE_LDAP_PW),
    { email: 'alice@parley.test', fullName: 'Alice Directory' });
  const untrusted = await ldapApp({ startTls: true, ca: null });
  assertDirectoryDown(await fetchKey(untrusted, 'alice', ALICE_LDAP_PW));
  await assert.rejects(authenticateLdap(ldapConfig({ url: slapd.ldapsUrl, startTls: false, ca: null }), 'alice', ALICE_LDAP_PW), LdapUnavailable);
});

test('PARLEY_LDAP_CA_CERT is read at start, and a file that cannot be read stops the start', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ldap-ca-'));
  try {
    const file = path.join(dir, 'ca.pem');
    fs.writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const env = { PARLEY_LDAP_URL: 'ldap://ldap.example.com', PARLEY_LDAP_USER_SEARCH_BASE: 'ou=people,dc=example,dc=com' };
    const ldap = parseSsoConfig({ ...env, PARLEY_LDAP_CA_CERT: file }).ldap!;
    assert.equal(ldap.ca, fs.readFileSync(file, 'utf8'));
    assert.equal(ldap.startTls, true);
    assert.equal(parseSsoConfig(env).ldap!.ca, null);
    assert.throws(() => parseSsoConfig({ ...env, PARLEY_LDAP_CA_CERT: path.join(dir, 'missing.pem') }), /PARLEY_LDAP_CA_CERT: cannot read/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
