import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { testApp, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { webCall } from '../helpers/web.js';
import { startIdp, Browser, signInThroughIdp, type TestIdp } from './oidc-idp.js';

let t: TestApp;
let idp: TestIdp;
let alice: TestUser;

before(async () => {
  idp = await startIdp({ redirectUris: [`http://${HOST}/complete/oidc/`] });
  t = await testApp({ sso: { passwordAuth: true, oidc: idp.oidc({ name: 'Acme SSO', autoSignup: true }), saml: null, ldap: null } });
  alice = await t.createUser({ name: 'Alice Smith', email: 'alice@example.com' });
  idp.accounts.set('alice', { email: 'Alice@Example.com', email_verified: true, name: 'Alice at the IdP' });
});
after(async () => {
  await t.close();
  await idp.close();
});

const START = `http://${HOST}/accounts/login/social/oidc`;
const otp = () => crypto.randomBytes(32).toString('hex');

/** The session a web sign-in left, as the web app then calls /json with it. */
function sessionCookies(b: Browser): string {
  const jar = b.jar.get(HOST)!;
  assert.ok(jar.get('parley_session'), 'a session cookie');
  return `parley_session=${jar.get('parley_session')}; parley_csrf=${jar.get('parley_csrf')}`;
}

async function me(cookie: string) {
  return webCall(t, 'GET', '/json/users/me', { session: { cookie, csrf: '', userId: 0 } });
}

test('server_settings lists the provider as Zulip lists generic OpenID Connect', async () => {
  const res = await t.api('GET', '/api/v1/server_settings', { as: null });
  assert.equal(res.body.authentication_methods['openid connect'], true);
  assert.deepEqual(res.body.external_authentication_methods.find((m: { name: string }) => m.name === 'oidc'), {
    name: 'oidc', display_name: 'Acme SSO', display_icon: null, login_url: '/accounts/login/social/oidc', signup_url: '/accounts/register/social/oidc',
  });
});

test('the start sends the browser to the provider with PKCE (S256), state, nonce and the realm redirect URI', async () => {
  const b = new Browser(t);
  const res = await b.get(START);
  assert.equal(res.status, 302);
  const auth = new URL(res.location!);
  assert.equal(auth.origin, idp.issuer);
  const q = auth.searchParams;
  assert.equal(q.get('client_id'), idp.clientId);
  assert.equal(q.get('redirect_uri'), `http://${HOST}/complete/oidc/`);
  assert.equal(q.get('response_type'), 'code');
  assert.deepEqual(q.get('scope')!.split(' ').sort(), ['email', 'openid', 'profile']);
  assert.equal(q.get('code_challenge_method'), 'S256');
  assert.match(q.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(q.get('state')!.length >= 32 && q.get('nonce')!.length >= 32, 'random state and nonce');
  const flow = res.setCookies.get('parley_sso_flow');
  assert.ok(flow, 'the flow is bound to this browser by a cookie');
  assert.ok(!q.toString().includes(flow), 'the flow cookie is not the state');
});

test('web sign-in: a session for the account with that verified email, then the page asked for', async () => {
  const b = new Browser(t);
  const run = await signInThroughIdp(b, `${START}?next=${encodeURIComponent('/#narrow/channel/1-general')}`, { login: 'alice' });
  assert.equal(run.callback!.status, 302);
  assert.equal(run.callback!.location, `http://${HOST}/#narrow/channel/1-general`);
  assert.equal(run.callback!.setCookies.get('parley_sso_flow'), '', 'the flow cookie is cleared');
  const res = await me(sessionCookies(b));
  assert.equal(res.status, 200);
  assert.equal(res.body.user_id, alice.id);
  assert.equal(res.body.full_name, 'Alice Smith', 'an existing account keeps its name');
});

test('the sign-up button signs an existing person in the same way', async () => {
  const b = new Browser(t);
  const run = await signInThroughIdp(b, `http://${HOST}/accounts/register/social/oidc`, { login: 'alice' });
  assert.equal(run.callback!.status, 302);
  assert.equal((await me(sessionCookies(b))).body.user_id, alice.id);
});

test('the phone app: zulip://login with the API key under the one-time pad, as the app decodes it', async () => {
  const pad = otp();
  const b = new Browser(t);
  const run = await signInThroughIdp(b, `${START}?mobile_flow_otp=${pad}`, { login: 'alice' });
  assert.equal(run.callback!.status, 302);
  assert.ok(!run.callback!.setCookies.has('parley_session'), 'no web session for the app');
  const redirect = new URL(run.callback!.location!);
  assert.equal(redirect.protocol, 'zulip:');
  assert.equal(redirect.host, 'login');
  const q = redirect.searchParams;
  assert.equal(q.get('email'), alice.email);
  assert.equal(q.get('user_id'), String(alice.id));
  assert.equal(q.get('realm'), `http://${HOST}`);
  // The app's otp_decrypt_api_key: hex digit by digit XOR the pad, then hex to text.
  const encrypted = q.get('otp_encrypted_api_key')!;
  const hex = [...encrypted].map((d, i) => (parseInt(d, 16) ^ parseInt(pad[i]!, 16)).toString(16)).join('');
  const apiKey = Buffer.from(hex, 'hex').toString('utf8');
  assert.notEqual(apiKey, encrypted);
  const res = await t.api('GET', '/api/v1/users/me', { as: { ...alice, apiKey } });
  assert.equal(res.status, 200);
  assert.equal(res.body.user_id, alice.id);
});

test('the desktop app: its window gets the hand-over page; the browser brings back a login token that works once', async () => {
  const app = new Browser(t, 'ZulipElectron/5.12.0 Mozilla/5.0 Chrome/128');
  const first = await app.get(START);
  assert.equal(first.status, 200);
  assert.match(first.body, /desktop-login\.js/);
  assert.ok(!first.setCookies.has('parley_sso_flow'), 'no flow begins in the app window');

  const key = crypto.randomBytes(32);
  const browser = new Browser(t);
  const run = await signInThroughIdp(browser, `${START}?desktop_flow_otp=${key.toString('hex')}`, { login: 'alice' });
  assert.equal(run.callback!.status, 200);
  assert.ok(!run.callback!.setCookies.has('parley_session'), 'the browser gets no session: the app does');
  const data = /id="desktop-data" readonly value="([0-9a-f]+)"/.exec(run.callback!.body)?.[1];
  assert.ok(data, 'the page holds desktop_data');
  const raw = Buffer.from(data, 'hex');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  const token = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');

  const login = await app.get(`http://${HOST}/accounts/login/subdomain/${token}`);
  assert.equal(login.status, 302);
  assert.equal((await me(sessionCookies(app))).body.user_id, alice.id);
  const again = await new Browser(t).get(`http://${HOST}/accounts/login/subdomain/${token}`);
  assert.equal(again.status, 400);
  assert.match(again.body, /expired or was already used/);
  assert.ok(!again.setCookies.has('parley_session'));
});

test('auto-signup: a verified person without an account gets one, named by the provider', async () => {
  idp.accounts.set('newbie', { email: 'newbie@example.com', email_verified: true, given_name: 'Nora', family_name: 'Newcomer' });
  const b = new Browser(t);
  const run = await signInThroughIdp(b, START, { login: 'newbie' });
  assert.equal(run.callback!.status, 302);
  const res = await me(sessionCookies(b));
  assert.equal(res.body.email, 'newbie@example.com');
  assert.equal(res.body.full_name, 'Nora Newcomer');
  // The second sign-in finds the same account.
  const again = new Browser(t);
  await signInThroughIdp(again, START, { login: 'newbie' });
  assert.equal((await me(sessionCookies(again))).body.user_id, res.body.user_id);
  const users = await t.api('GET', '/api/v1/users');
  assert.equal(users.body.members.filter((m: { email: string }) => m.email === 'newbie@example.com').length, 1);
});

test('auto-signup takes the provider\'s "name" claim when there is one', async () => {
  idp.accounts.set('named', { email: 'named@example.com', email_verified: true, name: 'Nadia Named', given_name: 'X', family_name: 'Y' });
  const b = new Browser(t);
  await signInThroughIdp(b, START, { login: 'named' });
  assert.equal((await me(sessionCookies(b))).body.full_name, 'Nadia Named');
});
