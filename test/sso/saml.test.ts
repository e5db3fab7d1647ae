/**
 * SAML 2.0 sign-in (issue 34) against samlify acting as the IdP: the web, phone and desktop
 * endings, auto-signup, and every refusal (unsigned, foreign signer, audience, expiry,
 * replay, unsolicited, deactivated) leaving no session, no account and no key.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { HOST, ACME_HOST, createAcme } from '../helpers/app.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateRealm } from '../../src/actions/realm-create.js';
import { realms } from '../../src/store/repos/realms.js';
import { makeKeyPair } from './saml-idp.js';
import { samlWorld, sessionCookie, assertRefused, type SamlWorld } from './saml-helpers.js';

let w: SamlWorld;
before(async () => {
  w = await samlWorld();
});
after(() => w?.t.close());

const get = (url: string, headers: Record<string, string> = {}) => w.t.app.http.inject({ method: 'GET', url, headers: { host: HOST, ...headers } });

async function signIn(email: string, start = '/accounts/login/social/saml/test') {
  const req = await w.begin(start);
  return w.post(await w.idp.respond(req, email), req.relayState);
}

test('server_settings lists the IdP as Zulip lists SAML; the SP metadata names the entity id, the assertion consumer and signed assertions', async () => {
  const s = await w.t.api('GET', '/api/v1/server_settings', { as: null });
  assert.equal(s.body.authentication_methods.saml, true);
  const m = s.body.external_authentication_methods.find((x: { name: string }) => x.name === 'saml:test');
  assert.deepEqual(m, { name: 'saml:test', display_name: 'Test IdP', display_icon: null, login_url: '/accounts/login/social/saml/test', signup_url: '/accounts/register/social/saml/test' });
  const meta = await get('/saml/metadata.xml');
  assert.match(String(meta.headers['content-type']), /xml/);
  assert.match(meta.body, /entityID="http:\/\/parley\.test"/);
  assert.match(meta.body, /WantAssertionsSigned="true"/);
  assert.match(meta.body, /Binding="urn:oasis:names:tc:SAML:2\.0:bindings:HTTP-POST" Location="http:\/\/parley\.test\/complete\/saml\/"/);
});

test('web: the button redirects to the IdP with an AuthnRequest; its signed answer opens a session and returns to next', async () => {
  const alice = await w.t.createUser({ email: 'alice@parley.test', name: 'Alice' });
  const req = await w.begin('/accounts/login/social/saml/test?next=/%23narrow/stream/1');
  assert.equal(req.acsUrl, 'http://parley.test/complete/saml/');
  assert.equal(req.signed, false);
  const res = await w.post(await w.idp.respond(req, 'alice@parley.test'), req.relayState);
  assert.equal(res.statusCode, 302, res.body);
  assert.equal(res.headers.location, 'http://parley.test/#narrow/stream/1');
  const cookie = sessionCookie(res);
  assert.ok(cookie);
  const me = await get('/json/users/me', { cookie: `parley_session=${cookie}` });
  assert.equal(me.statusCode, 200, me.body);
  assert.equal(JSON.parse(me.body).user_id, alice.id);
});

test('phone: mobile_flow_otp ends in zulip://login with the API key under the pad, as the app decodes it', async () => {
  const bob = await w.t.createUser({ email: 'bob@parley.test', name: 'Bob' });
  const otp = crypto.randomBytes(32).toString('hex');
  const res = await signIn('bob@parley.test', `/accounts/login/social/saml/test?mobile_flow_otp=${otp}`);
  assert.equal(res.statusCode, 302, res.body);
  const loc = new URL(String(res.headers.location));
  assert.equal(loc.protocol, 'zulip:');
  assert.equal(loc.host, 'login');
  assert.equal(loc.searchParams.get('email'), 'bob@parley.test');
  assert.equal(loc.searchParams.get('user_id'), String(bob.id));
  assert.equal(loc.searchParams.get('realm'), 'http://parley.test');
  const enc = loc.searchParams.get('otp_encrypted_api_key')!;
  const hex = [...enc].map((d, i) => (parseInt(d, 16) ^ parseInt(otp[i]!, 16)).toString(16)).join('');
  const apiKey = Buffer.from(hex, 'hex').toString('utf8');
  assert.equal(apiKey, bob.apiKey);
  const me = await w.t.api('GET', '/api/v1/users/me', { as: { ...bob, apiKey } });
  assert.equal(me.body.user_id, bob.id);
  assert.equal(sessionCookie(res), undefined, 'the phone gets its key, not a browser session');
});

test('desktop: the app gets the desktop login page; the browser flow hands it an encrypted login token that opens a session', async () => {
  const carol = await w.t.createUser({ email: 'carol@parley.test', name: 'Carol' });
  const inApp = await get('/accounts/login/social/saml/test', { 'user-agent': 'Mozilla/5.0 ZulipElectron/5.12.0' });
  assert.equal(inApp.statusCode, 200);
  assert.match(inApp.body, /desktop-login\.js/);
  const key = crypto.randomBytes(32);
  const res = await signIn('carol@parley.test', `/accounts/login/social/saml/test?desktop_flow_otp=${key.toString('hex')}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(sessionCookie(res), undefined);
  const data = Buffer.from(/id="desktop-data" readonly value="([0-9a-f]+)"/.exec(res.body)![1]!, 'hex');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
  decipher.setAuthTag(data.subarray(data.length - 16));
  const token = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]).toString('utf8');
  const login = await get(`/accounts/login/subdomain/${token}`);
  assert.equal(login.statusCode, 302, login.body);
  const me = await get('/json/users/me', { cookie: `parley_session=${sessionCookie(login)}` });
  assert.equal(JSON.parse(me.body).user_id, carol.id);
});

test('auto-signup off: an unknown person is refused and no account is made; on: the account is made with the assertion\'s name', async () => {
  assertRefused(await signIn('newbie@parley.test'), 403, /There is no account for newbie@parley\.test/);
  assert.equal(await w.accounts('newbie@parley.test'), 0);
  const res = await signIn('newbie@parley.test', '/accounts/register/social/saml/open');
  assert.equal(res.statusCode, 302, res.body);
  assert.ok(sessionCookie(res));
  const row = await w.t.app.ctx.store.db.selectFrom('users').selectAll().where('delivery_email', '=', 'newbie@parley.test').executeTakeFirstOrThrow();
  assert.equal(row.full_name, 'Sam Ell');
});

test('unknown IdP: 404 page; no redirect', async () => {
  assertRefused(await get('/accounts/login/social/saml/nope'), 404, /not configured/);
});

/** A refusal of the answer: the page, and still no session, no key and no account for the person. */
async function refusedAnswer(email: string, bends: Parameters<SamlWorld['idp']['respond']>[2], status: number, words: RegExp) {
  const req = await w.begin('/accounts/login/social/saml/open?mobile_flow_otp=' + crypto.randomBytes(32).toString('hex'));
  const res = await w.post(await w.idp.respond(req, email, bends), req.relayState);
  assertRefused(res, status, words);
  assert.equal(await w.accounts(email), 0, 'no account (even with auto-signup)');
}

test('an unsigned response is refused', async () => {
  await refusedAnswer('u1@parley.test', { unsigned: true }, 400, /could not be verified/);
});

test('a response signed around an unsigned assertion is refused (assertions must be signed)', async () => {
  await refusedAnswer('u2@parley.test', { onlyResponseSigned: true }, 400, /could not be verified/);
});

test('an assertion signed by another key is refused', async () => {
  await refusedAnswer('u3@parley.test', { signer: makeKeyPair(w.dir, 'rogue') }, 400, /could not be verified/);
});

test('an assertion for another audience is refused', async () => {
  await refusedAnswer('u4@parley.test', { audience: 'https://other-sp.example' }, 400, /could not be verified/);
});

test('an expired assertion is refused', async () => {
  await refusedAnswer('u5@parley.test', { issuedMinutesAgo: 20, validForMinutes: -10 }, 400, /has expired/);
});

test('an assertion from another issuer (same certificate) is refused', async () => {
  await refusedAnswer('u6@parley.test', { issuer: 'https://evil-idp.example' }, 400, /another identity provider/);
});

test('replay: the same POST again is refused, and the same assertion for a new request too', async () => {
  const dave = await w.t.createUser({ email: 'dave@parley.test', name: 'Dave' });
  const req = await w.begin();
  const assertionId = `_a${crypto.randomBytes(16).toString('hex')}`;
  const samlResponse = await w.idp.respond(req, dave.email, { assertionId });
  assert.equal((await w.post(samlResponse, req.relayState)).statusCode, 302);
  assertRefused(await w.post(samlResponse, req.relayState), 400, /expired or was already used/);
  // An IdP (or someone holding its answer) sending the assertion again for a new request.
  const again = await w.begin();
  assertRefused(await w.post(await w.idp.respond(again, dave.email, { assertionId }), again.relayState), 400, /This answer from your identity provider was already used/);
});

test('unsolicited: no RelayState, an unknown one, another request\'s answer, or no InResponseTo are refused', async () => {
  const erin = await w.t.createUser({ email: 'erin@parley.test', name: 'Erin' });
  const req = await w.begin();
  const good = await w.idp.respond(req, erin.email);
  assertRefused(await w.post(good, undefined), 400, /did not begin in this browser/);
  assertRefused(await w.post(good, 'A'.repeat(32)), 400, /expired or was already used/);
  // A response to request A posted with request B's RelayState (a response made for someone else).
  const other = await w.begin();
  assertRefused(await w.post(good, other.relayState), 400, /could not be verified/);
  // IdP-initiated (no InResponseTo) with a live flow.
  const third = await w.begin();
  assertRefused(await w.post(await w.idp.respond(third, erin.email, { inResponseTo: '' }), third.relayState), 400, /could not be verified/);
  const missing = await w.begin();
  assertRefused(await w.post(undefined, missing.relayState), 400, /sent no SAML response/);
});

test('another organization: its own assertion consumer in the metadata; a flow begun here is refused there', async () => {
  const acme = await createAcme(w.t);
  const meta = await get('/saml/metadata.xml', { host: ACME_HOST });
  assert.match(meta.body, /Location="http:\/\/acme\.parley\.test\/complete\/saml\/"/);
  const req = await w.begin();
  const res = await w.t.app.http.inject({
    method: 'POST', url: '/complete/saml/', headers: { host: ACME_HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ SAMLResponse: await w.idp.respond(req, acme.owner.email), RelayState: req.relayState }).toString(),
  });
  assertRefused(res, 400, /expired or was already used/);
});

test('a deactivated user is refused', async () => {
  const frank = await w.t.createUser({ email: 'frank@parley.test', name: 'Frank' });
  assert.equal((await w.t.api('DELETE', `/api/v1/users/${frank.id}`)).status, 200);
  assertRefused(await signIn(frank.email), 403, /has been deactivated/);
});

test('a deactivated organization is refused (last: it ends the organization)', async () => {
  const gina = await w.t.createUser({ email: 'gina@parley.test', name: 'Gina' });
  const req = await w.begin();
  await transact(w.t.app.ctx, async (tx) => doDeactivateRealm(tx, (await realms.findById(tx.db, w.t.realm.id))!));
  assertRefused(await w.post(await w.idp.respond(req, gina.email), req.relayState), 403, /organization has been deactivated/);
});
