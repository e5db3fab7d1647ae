import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, OWNER_EMAIL, OWNER_PASSWORD, type TestApp } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { webCall } from '../helpers/web.js';
import { parseSsoConfig, type SsoConfig } from '../../src/lib/sso-config.js';
import { isValidOtp, otpEncryptApiKey, desktopEncrypt } from '../../src/lib/otp.js';
import { saveSsoToken, useSsoSecretOnce, LOGIN_TOKEN_TTL_SECS } from '../../src/actions/sso-tokens.js';
import { signInExternally, SsoRefusal, type ExternalIdentity } from '../../src/actions/external-login.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateUser } from '../../src/actions/user-deactivate.js';
import { users } from '../../src/store/repos/users.js';
import { realms } from '../../src/store/repos/realms.js';
import { Role } from '../../src/lib/roles.js';
import crypto from 'node:crypto';

const OIDC = { issuer: 'https://id.example.com', clientId: 'parley', clientSecret: 's3cret', name: 'Example ID', icon: null, autoSignup: false, trustEmail: false };
const SAML = {
  file: '/dev/null',
  idps: [{
    name: 'okta', displayName: 'Okta', icon: 'https://example.com/okta.png', autoSignup: false, settings: {},
    endpoint: { metadataUrl: 'https://example.okta.com/metadata', entityId: null },
    attrs: { email: 'email', fullName: null, firstName: 'first_name', lastName: 'last_name' },
  }],
  sp: { entityId: null, privateKey: null, certificate: null, wantResponseSigned: false },
};
const LDAP = {
  url: 'ldaps://ldap.example.com', startTls: false, bindDn: null, bindPassword: null, userSearchBase: 'ou=people,dc=example,dc=com',
  userFilter: '(uid={username})', emailAttr: 'mail', nameAttr: 'cn', autoSignup: false, ca: null,
};

let t: TestApp;
let ssoOnly: TestApp;
before(async () => {
  t = await testApp();
  ssoOnly = await testApp({ sso: { passwordAuth: false, oidc: OIDC, saml: SAML, ldap: null } });
});
after(async () => {
  await t.close();
  await ssoOnly.close();
});

const identity = (email: string, more: Partial<ExternalIdentity> = {}): ExternalIdentity =>
  ({ backend: 'oidc', email, emailVerified: true, fullName: 'Pat Example', ...more });

async function refusal(p: Promise<unknown>): Promise<SsoRefusal> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SsoRefusal) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const userCount = async (app: TestApp) => (await app.app.ctx.store.db.selectFrom('users').select('id').execute()).length;

test('server_settings without single sign-on: passwords only, no buttons', async () => {
  const s = assertOk(await t.api('GET', '/api/v1/server_settings', { as: null }));
  assert.equal(s.authentication_methods.password, true);
  assert.equal(s.authentication_methods.email, true);
  assert.equal(s.authentication_methods['openid connect'], false);
  assert.deepEqual(s.external_authentication_methods, []);
  assert.equal(s.email_auth_enabled, true);
  assert.equal(s.require_email_format_usernames, true);
});

test('server_settings and register with OpenID Connect and SAML and passwords off: Zulip\'s buttons and booleans', async () => {
  const s = assertOk(await ssoOnly.api('GET', '/api/v1/server_settings', { as: null }));
  assert.equal(s.authentication_methods.password, false);
  assert.equal(s.authentication_methods.email, false);
  assert.equal(s.authentication_methods['openid connect'], true);
  assert.equal(s.authentication_methods.saml, true);
  assert.equal(s.authentication_methods.ldap, false);
  assert.equal(s.email_auth_enabled, false);
  assert.deepEqual(s.external_authentication_methods, [
    { name: 'oidc', display_name: 'Example ID', display_icon: null, login_url: '/accounts/login/social/oidc', signup_url: '/accounts/register/social/oidc' },
    { name: 'saml:okta', display_name: 'Okta', display_icon: 'https://example.com/okta.png', login_url: '/accounts/login/social/saml/okta', signup_url: '/accounts/register/social/saml/okta' },
  ]);
  const state = assertOk(await ssoOnly.api('POST', '/api/v1/register', { params: { fetch_event_types: JSON.stringify(['realm']) } }));
  const methods = state.realm_authentication_methods;
  const enabled = (k: string) => (typeof methods[k] === 'boolean' ? methods[k] : methods[k].enabled);
  assert.equal(enabled('Email'), false);
  assert.equal(enabled('OpenID Connect'), true);
  assert.equal(enabled('SAML'), true);
  assert.equal(enabled('LDAP'), false);
});

test('passwords off: POST /fetch_api_key and the web sign-in answer PASSWORD_AUTH_DISABLED, before any password is checked', async () => {
  const r = await ssoOnly.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assertError(r, 'Password authentication is disabled in this organization', 'PASSWORD_AUTH_DISABLED', 401);
  const web = await webCall(ssoOnly, 'POST', '/accounts/login', { params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(web.status, 401);
  assert.equal((web.body as { code: string }).code, 'PASSWORD_AUTH_DISABLED');
  assert.equal(web.cookies.length, 0, 'no session');
  // Passwords on: the same credentials work.
  assertOk(await t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: OWNER_EMAIL, password: OWNER_PASSWORD } }));
});

test('settings: a method is all or nothing, and passwords off needs another way in', () => {
  assert.deepEqual(parseSsoConfig({}), { passwordAuth: true, oidc: null, saml: null, ldap: null });
  assert.throws(() => parseSsoConfig({ PARLEY_OIDC_ISSUER: 'https://id.example.com' }), /PARLEY_OIDC_CLIENT_ID, PARLEY_OIDC_CLIENT_SECRET/);
  assert.throws(() => parseSsoConfig({ PARLEY_OIDC_ISSUER: 'id.example.com', PARLEY_OIDC_CLIENT_ID: 'a', PARLEY_OIDC_CLIENT_SECRET: 'b' }), /not a URL/);
  assert.throws(() => parseSsoConfig({ PARLEY_PASSWORD_AUTH: 'off' }), /no way to sign in/);
  assert.throws(() => parseSsoConfig({ PARLEY_PASSWORD_AUTH: 'maybe' }), /true or false/);
  assert.throws(() => parseSsoConfig({ PARLEY_LDAP_URL: 'http://ldap', PARLEY_LDAP_USER_SEARCH_BASE: 'dc=x' }), /ldap:\/\/ or ldaps:\/\//);
  assert.throws(() => parseSsoConfig({ PARLEY_LDAP_URL: 'ldap://ldap', PARLEY_LDAP_USER_SEARCH_BASE: 'dc=x', PARLEY_LDAP_USER_FILTER: '(uid=x)' }), /\{username\}/);
  const sso: SsoConfig = parseSsoConfig({
    PARLEY_PASSWORD_AUTH: 'off', PARLEY_OIDC_ISSUER: 'https://id.example.com/', PARLEY_OIDC_CLIENT_ID: 'a', PARLEY_OIDC_CLIENT_SECRET: 'b',
    PARLEY_OIDC_AUTO_SIGNUP: 'true', PARLEY_LDAP_URL: 'ldap://ldap.example.com', PARLEY_LDAP_USER_SEARCH_BASE: 'dc=example',
  });
  assert.equal(sso.passwordAuth, false);
  assert.equal(sso.oidc?.issuer, 'https://id.example.com');
  assert.equal(sso.oidc?.name, 'OpenID Connect');
  assert.equal(sso.oidc?.autoSignup, true);
  assert.equal(sso.ldap?.startTls, true, 'ldap:// means StartTLS by default');
  assert.equal(sso.ldap?.userFilter, '(uid={username})');
});

test("the apps' one-time pads: Zulip's hex XOR for the phone, AES-GCM for the desktop", () => {
  assert.equal(isValidOtp('ab'.repeat(32)), true);
  assert.equal(isValidOtp('ab'.repeat(31)), false);
  assert.equal(isValidOtp('zz'.repeat(32)), false);
  const key = 'a'.repeat(32);
  assert.equal(otpEncryptApiKey(key, '0'.repeat(64)), '61'.repeat(32));
  assert.equal(otpEncryptApiKey(key, 'f'.repeat(64)), '9e'.repeat(32));
  const pad = crypto.randomBytes(32).toString('hex');
  const encrypted = otpEncryptApiKey(key, pad);
  // The phone app: XOR back, then hex to text.
  const xored = [...encrypted].map((d, i) => (parseInt(d, 16) ^ parseInt(pad[i]!, 16)).toString(16)).join('');
  assert.equal(Buffer.from(xored, 'hex').toString(), key);
  const aes = crypto.randomBytes(32);
  const data = Buffer.from(desktopEncrypt('token-123', aes.toString('hex')), 'hex');
  const decipher = crypto.createDecipheriv('aes-256-gcm', aes, data.subarray(0, 12));
  decipher.setAuthTag(data.subarray(data.length - 16));
  assert.equal(Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]).toString(), 'token-123');
});

test('signing in externally: the account with that address, case aside', async () => {
  const u = await t.createUser({ email: 'Known.Person@parley.test', name: 'Known Person' });
  const user = await signInExternally(t.app.ctx, t.realm, identity('known.person@PARLEY.test'), { autoSignup: false });
  assert.equal(user.id, u.id);
});

test('refusals: unverified, unknown without auto-signup, deactivated, bots, a deactivated organization; none creates an account', async () => {
  const before = await userCount(t);
  assert.equal((await refusal(signInExternally(t.app.ctx, t.realm, identity(OWNER_EMAIL, { emailVerified: false }), { autoSignup: true }))).reason, 'unverified_email');
  const unknown = await refusal(signInExternally(t.app.ctx, t.realm, identity('nobody@parley.test'), { autoSignup: false }));
  assert.equal(unknown.reason, 'no_account');
  assert.match(unknown.message, /no account for nobody@parley\.test/);
  assert.equal((await refusal(signInExternally(t.app.ctx, t.realm, identity('not an address'), { autoSignup: true }))).reason, 'invalid_email');
  const gone = await t.createUser({ email: 'gone@parley.test' });
  await transact(t.app.ctx, async (tx) => doDeactivateUser(tx, (await users.findById(tx.db, gone.id))!));
  assert.equal((await refusal(signInExternally(t.app.ctx, t.realm, identity('gone@parley.test'), { autoSignup: true }))).reason, 'user_deactivated');
  const bot = await t.createBot(t.owner, { fullName: 'Helper', shortName: 'helper' });
  assert.equal((await refusal(signInExternally(t.app.ctx, t.realm, identity(bot.email), { autoSignup: true }))).reason, 'no_account');
  assert.equal(await userCount(t), before + 2, 'only the user and the bot this test made');

  const other = await testApp();
  try {
    await realms.update(other.app.ctx.store.db, other.realm.id, { deactivated: 1 });
    const realm = (await realms.findById(other.app.ctx.store.db, other.realm.id))!;
    assert.equal((await refusal(signInExternally(other.app.ctx, realm, identity(OWNER_EMAIL), { autoSignup: true }))).reason, 'realm_deactivated');
  } finally {
    await other.close();
  }
});

test("auto-signup makes a member named as the provider says (or after the address), once however many sign in at once", async () => {
  const [a, b] = await Promise.all([
    signInExternally(t.app.ctx, t.realm, identity('new.person@parley.test', { fullName: 'New "Person"' }), { autoSignup: true }),
    signInExternally(t.app.ctx, t.realm, identity('new.person@parley.test', { fullName: 'New "Person"' }), { autoSignup: true }),
  ]);
  assert.equal(a.id, b.id);
  assert.equal(a.full_name, 'New Person');
  assert.equal(a.role, Role.MEMBER);
  assert.equal(a.password_hash, null, 'no password: the provider signs them in');
  const c = await signInExternally(t.app.ctx, t.realm, identity('jo@parley.test', { fullName: null }), { autoSignup: true });
  assert.equal(c.full_name, 'jo');
  const me = assertOk(await t.api('GET', '/api/v1/users/me', { as: { id: a.id, email: a.email, apiKey: a.api_key } as never }));
  assert.equal(me.user_id, a.id);
});

test('someone invited by email gets the invitation\'s role at their first single sign-on, even without auto-signup', async () => {
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'welcome' }]) } }));
  const stream = (assertOk(await t.api('GET', '/api/v1/streams')).streams as Array<{ stream_id: number; name: string }>).find((s) => s.name === 'welcome')!;
  assertOk(await t.api('POST', '/api/v1/invites', { params: { invitee_emails: 'invited@parley.test', stream_ids: JSON.stringify([stream.stream_id]), invite_as: Role.MODERATOR } }));
  const user = await signInExternally(t.app.ctx, t.realm, identity('Invited@parley.test', { fullName: 'Invi Ted' }), { autoSignup: false });
  assert.equal(user.role, Role.MODERATOR);
  assert.equal(user.full_name, 'Invi Ted');
  const subs = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as: { id: user.id, email: user.email, apiKey: user.api_key } as never })).subscriptions as Array<{ stream_id: number }>;
  assert.deepEqual(subs.map((s) => s.stream_id), [stream.stream_id], "the invitation's streams");
  const pending = assertOk(await t.api('GET', '/api/v1/invites')).invites as Array<{ email: string }>;
  assert.ok(!pending.some((i) => i.email === 'invited@parley.test'), 'the invitation is used up');
});

test('/accounts/login/subdomain/<token>: a login token gives a session once; malformed, unknown, used and foreign tokens give none', async () => {
  const token = await saveSsoToken(t.app.ctx, 'login', t.realm.id, { userId: t.owner.id }, LOGIN_TOKEN_TTL_SECS);
  const ok = await webCall(t, 'GET', `/accounts/login/subdomain/${token}`);
  assert.equal(ok.status, 302);
  assert.equal(ok.headers.location, 'http://parley.test/');
  assert.ok(ok.cookies.some((c) => c.name === 'parley_session'));
  for (const bad of [token, 'short', 'x'.repeat(32), '../../etc/passwd'.padEnd(32, 'a')]) {
    const r = await webCall(t, 'GET', `/accounts/login/subdomain/${encodeURIComponent(bad)}`);
    assert.equal(r.status, 400, bad);
    assert.match(String(r.body), /Sign-in failed/);
    assert.equal(r.cookies.filter((c) => c.name === 'parley_session').length, 0);
  }
  // Made for another organization: refused here.
  const foreign = await saveSsoToken(t.app.ctx, 'login', t.realm.id + 1000, { userId: t.owner.id }, LOGIN_TOKEN_TTL_SECS);
  assert.equal((await webCall(t, 'GET', `/accounts/login/subdomain/${foreign}`)).status, 400);
  // A flow token is no login token.
  const flow = await saveSsoToken(t.app.ctx, 'flow', t.realm.id, { userId: t.owner.id }, 60);
  assert.equal((await webCall(t, 'GET', `/accounts/login/subdomain/${flow}`)).status, 400);
});

test('a deactivated account\'s login token gives no session', async () => {
  const u = await t.createUser({ email: 'late@parley.test' });
  const token = await saveSsoToken(t.app.ctx, 'login', t.realm.id, { userId: u.id }, LOGIN_TOKEN_TTL_SECS);
  await transact(t.app.ctx, async (tx) => doDeactivateUser(tx, (await users.findById(tx.db, u.id))!));
  const r = await webCall(t, 'GET', `/accounts/login/subdomain/${token}`);
  assert.equal(r.status, 403);
  assert.equal(r.cookies.filter((c) => c.name === 'parley_session').length, 0);
});

test('a secret used once is refused the second time (replayed assertions)', async () => {
  const expires = Math.floor(Date.now() / 1000) + 60;
  assert.equal(await useSsoSecretOnce(t.app.ctx, 'saml-assertion', t.realm.id, '_assertion-1', expires), true);
  assert.equal(await useSsoSecretOnce(t.app.ctx, 'saml-assertion', t.realm.id, '_assertion-1', expires), false);
  assert.equal(await useSsoSecretOnce(t.app.ctx, 'saml-assertion', t.realm.id, '_assertion-2', expires), true);
});

test('the desktop pages\' scripts are served as scripts', async () => {
  for (const path of ['/accounts/login/desktop-login.js', '/accounts/login/desktop-redirect.js']) {
    const r = await webCall(t, 'GET', path);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /javascript/);
  }
});

test("LDAP with passwords off: the password form stays (the directory's passwords), Parley's own are off, usernames need not be addresses", async () => {
  const ldapOnly = await testApp({ sso: { passwordAuth: false, oidc: null, saml: null, ldap: LDAP } });
  try {
    const s = assertOk(await ldapOnly.api('GET', '/api/v1/server_settings', { as: null }));
    assert.equal(s.authentication_methods.password, true);
    assert.equal(s.authentication_methods.email, false);
    assert.equal(s.authentication_methods.ldap, true);
    assert.equal(s.require_email_format_usernames, false);
    assert.deepEqual(s.external_authentication_methods, []);
  } finally {
    await ldapOnly.close();
  }
});
