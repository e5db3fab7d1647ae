import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp, createAcme, HOST, ACME_HOST, type TestApp } from '../helpers/app.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateUser } from '../../src/actions/user-deactivate.js';
import { doDeactivateRealm } from '../../src/actions/realm-create.js';
import { realms } from '../../src/store/repos/realms.js';
import { startIdp, Browser, signInThroughIdp, type Page, type TestIdp } from './oidc-idp.js';

/**
 * Every way an OpenID Connect sign-in is refused: a clear page (or Zulip's API error for
 * a bad one-time pad), and no session cookie, no account, no API key.
 */

let t: TestApp;
let idp: TestIdp;
let acme: Awaited<ReturnType<typeof createAcme>>;
const START = `http://${HOST}/accounts/login/social/oidc`;
const CALLBACK = `http://${HOST}/complete/oidc/`;

before(async () => {
  // Claims in the ID token itself here (oidc.test.ts has them at userinfo).
  idp = await startIdp({ redirectUris: [CALLBACK, `http://${ACME_HOST}/complete/oidc/`], idTokenClaims: true });
  t = await testApp({ sso: { passwordAuth: true, oidc: idp.oidc(), saml: null, ldap: null } });
  await t.createUser({ name: 'Bob Jones', email: 'bob@example.com' });
  idp.accounts.set('bob', { email: 'bob@example.com', email_verified: true, name: 'Bob' });
  acme = await createAcme(t);
  idp.accounts.set('boss', { email: acme.owner.email, email_verified: true, name: 'Boss' });
});
after(async () => {
  await t.close();
  await idp.close();
});

async function accountCount(app: TestApp): Promise<number> {
  const row = await app.app.ctx.store.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A refusal page: its status and message, and nothing that signs anyone in. */
function assertRefused(page: Page | undefined, status: number, message: RegExp): void {
  assert.ok(page, 'Parley answered');
  assert.equal(page.status, status, page.body.slice(0, 600));
  assert.match(page.body, /Sign-in failed/);
  assert.match(page.body, message);
  assert.ok(!page.setCookies.get('parley_session'), 'no session cookie');
  assert.ok(!page.location?.startsWith('zulip:'), 'no API key for the phone app');
  assert.ok(!/desktop-data/.test(page.body), 'no login token for the desktop app');
}

/** What refusals logged during `fn` (the logger is silent in tests; its warn is watched instead). */
async function logged(app: TestApp, fn: () => Promise<void>): Promise<Array<Record<string, unknown>>> {
  const log = app.app.ctx.log;
  const warn = log.warn;
  const seen: Array<Record<string, unknown>> = [];
  log.warn = ((obj: unknown) => {
    if (obj && typeof obj === 'object') seen.push(obj as Record<string, unknown>);
  }) as typeof log.warn;
  try {
    await fn();
  } finally {
    log.warn = warn;
  }
  return seen;
}

/** Runs `attempt`, and checks that it created no account and left the browser without a session. */
async function noneCreated(app: TestApp, attempt: () => Promise<Browser>): Promise<void> {
  const before = await accountCount(app);
  const b = await attempt();
  assert.equal(await accountCount(app), before, 'no account created');
  assert.ok(![...b.jar.values()].some((jar) => jar.has('parley_session')), 'no session in the browser');
}

test('a person the provider vouches for but who has no account: refused without auto-signup', async () => {
  idp.accounts.set('stranger', { email: 'stranger@example.com', email_verified: true, name: 'Stranger' });
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, START, { login: 'stranger' });
    assertRefused(run.callback, 403, /There is no account for stranger@example\.com in Parley Test/);
    return b;
  });
});

test('an email the provider has not verified (false, or not said) is refused, also for the phone app', async () => {
  idp.accounts.set('unverified', { email: 'bob@example.com', email_verified: false, name: 'Bob' });
  idp.accounts.set('unsaid', { email: 'bob@example.com', name: 'Bob' });
  for (const login of ['unverified', 'unsaid']) {
    await noneCreated(t, async () => {
      const b = new Browser(t);
      const run = await signInThroughIdp(b, `${START}?mobile_flow_otp=${crypto.randomBytes(32).toString('hex')}`, { login });
      assertRefused(run.callback, 403, /has not verified your email address/);
      return b;
    });
  }
});

test('PARLEY_OIDC_TRUST_EMAIL: an address the provider does not qualify is believed; one it says is unverified is still refused', async () => {
  const trusting = await testApp({ sso: { passwordAuth: true, oidc: idp.oidc({ trustEmail: true }), saml: null, ldap: null } });
  try {
    const carol = await trusting.createUser({ name: 'Carol', email: 'carol@example.com' });
    idp.accounts.set('carol-unsaid', { email: 'carol@example.com', name: 'Carol' });
    idp.accounts.set('carol-unverified', { email: 'carol@example.com', email_verified: false, name: 'Carol' });
    const ok = await signInThroughIdp(new Browser(trusting), START, { login: 'carol-unsaid' });
    assert.equal(ok.callback?.status, 302);
    assert.ok(ok.callback?.setCookies.get('parley_session'), 'signed in');
    const sessions = await trusting.app.ctx.store.db.selectFrom('session').select('user_id').where('user_id', '=', carol.id).execute();
    assert.equal(sessions.length, 1, "Carol's session");
    await noneCreated(trusting, async () => {
      const b = new Browser(trusting);
      const run = await signInThroughIdp(b, START, { login: 'carol-unverified' });
      assertRefused(run.callback, 403, /has not verified your email address/);
      return b;
    });
  } finally {
    await trusting.close();
  }
});

test('a provider that gives no email address is refused', async () => {
  idp.accounts.set('nomail', { name: 'No Mail' });
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, START, { login: 'nomail' });
    assertRefused(run.callback, 400, /did not tell Parley your email address/);
    return b;
  });
});

test('a deactivated account is refused', async () => {
  const dave = await t.createUser({ name: 'Dave Long', email: 'dave@example.com' });
  await transact(t.app.ctx, (tx) => doDeactivateUser(tx, dave.row));
  idp.accounts.set('dave', { email: 'dave@example.com', email_verified: true, name: 'Dave' });
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, START, { login: 'dave' });
    assertRefused(run.callback, 403, /Your account dave@example\.com has been deactivated/);
    return b;
  });
});

test('a flow begun at another organization is refused at this one', async () => {
  const b = new Browser(t);
  const run = await signInThroughIdp(b, `http://${ACME_HOST}/accounts/login/social/oidc`, { login: 'boss', stopBeforeCallback: true });
  // Its cookie and the provider's answer, brought to this organization's redirect URI.
  const elsewhere = new Browser(t);
  elsewhere.jar.set(HOST, new Map([['parley_sso_flow', b.jar.get(ACME_HOST)!.get('parley_sso_flow')!]]));
  assertRefused(await elsewhere.get(`${CALLBACK}${run.callbackUrl!.search}`), 400, /expired or was already used/);
  // The attempt spent the flow: its own organization no longer takes it either.
  assertRefused(await b.get(run.callbackUrl!), 400, /expired or was already used/);
});

test('an organization deactivated while its member was at the provider is refused', async () => {
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, `http://${ACME_HOST}/accounts/login/social/oidc`, { login: 'boss', stopBeforeCallback: true });
    assert.equal(run.callbackUrl!.host, ACME_HOST, "the redirect URI is the organization's own");
    await transact(t.app.ctx, async (tx) => doDeactivateRealm(tx, (await realms.findById(tx.db, acme.realm.id))!));
    const page = await b.get(run.callbackUrl!);
    assertRefused(page, 403, /This organization has been deactivated/);
    return b;
  });
});

test('a wrong state, a missing state, or no flow cookie: refused', async () => {
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, START, { login: 'bob', stopBeforeCallback: true });
    const wrong = new URL(run.callbackUrl!);
    wrong.searchParams.set('state', 'x'.repeat(43));
    assertRefused(await b.get(wrong), 400, /did not begin in this browser/);

    const run2 = await signInThroughIdp(b, START, { login: 'bob', stopBeforeCallback: true });
    const missing = new URL(run2.callbackUrl!);
    missing.searchParams.delete('state');
    assertRefused(await b.get(missing), 400, /did not begin in this browser/);

    const run3 = await signInThroughIdp(b, START, { login: 'bob', stopBeforeCallback: true });
    // The provider's answer reaches a browser that did not begin the sign-in (login CSRF).
    const other = new Browser(t);
    assertRefused(await other.get(run3.callbackUrl!), 400, /did not begin in this browser/);
    return other;
  });
});

test('a replayed callback: the same flow twice, and the used code under a new flow', async () => {
  const b = new Browser(t);
  const run = await signInThroughIdp(b, START, { login: 'bob', stopBeforeCallback: true });
  const flowCookie = b.jar.get(HOST)!.get('parley_sso_flow')!;
  const first = await b.get(run.callbackUrl!);
  assert.equal(first.status, 302, 'the first answer signs in');
  assert.ok(first.setCookies.get('parley_session'));

  const attacker = new Browser(t);
  attacker.jar.set(HOST, new Map([['parley_sso_flow', flowCookie]]));
  const replay = await attacker.get(run.callbackUrl!);
  assertRefused(replay, 400, /expired or was already used/);

  // A new flow in the attacker's browser, its state put on the old code: the provider will not take the code twice.
  const fresh = await attacker.get(START);
  const state = new URL(fresh.location!).searchParams.get('state')!;
  const reused = new URL(run.callbackUrl!);
  reused.searchParams.set('state', state);
  assertRefused(await attacker.get(reused), 400, /refused to complete this sign-in \(invalid_grant\)/);
  assert.ok(!attacker.jar.get(HOST)!.has('parley_session'));
});

test('a nonce changed on the way to the provider: the ID token does not match the flow', async () => {
  await noneCreated(t, async () => {
    const b = new Browser(t);
    let callback: URL | undefined;
    const logs = await logged(t, async () => {
      const run = await signInThroughIdp(b, START, { login: 'bob', editAuthUrl: (u) => u.searchParams.set('nonce', 'planted-nonce-planted-nonce-planted-nonce') });
      assertRefused(run.callback, 400, /failed Parley&#39;s checks/);
      callback = run.callbackUrl;
    });
    assert.deepEqual(logs.map((l) => [l.reason, l.code, l.claim]), [['invalid_response', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'nonce']]);
    // Logged without secrets: neither the code, the state nor the nonces.
    const text = JSON.stringify(logs);
    for (const secret of [callback!.searchParams.get('code')!, callback!.searchParams.get('state')!, 'planted-nonce']) assert.ok(!text.includes(secret), text);
    return b;
  });
});

test('a PKCE challenge changed on the way: the provider refuses the code for this verifier', async () => {
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, START, {
      login: 'bob', editAuthUrl: (u) => u.searchParams.set('code_challenge', crypto.createHash('sha256').update('other').digest('base64url')),
    });
    assertRefused(run.callback, 400, /refused to complete this sign-in \(invalid_grant\)/);
    return b;
  });
});

test('cancelled at the provider (error=access_denied)', async () => {
  await noneCreated(t, async () => {
    const b = new Browser(t);
    const run = await signInThroughIdp(b, START, { login: 'bob', cancel: true });
    assert.equal(run.callbackUrl!.searchParams.get('error'), 'access_denied');
    assertRefused(run.callback, 400, /did not sign you in: the sign-in was cancelled or refused there/);
    return b;
  });
});

test("Zulip's Invalid OTP errors, before anything begins", async () => {
  const b = new Browser(t);
  for (const q of ['mobile_flow_otp=1234', 'desktop_flow_otp=zz', `mobile_flow_otp=${'g'.repeat(64)}`]) {
    const res = await b.get(`${START}?${q}`);
    assert.equal(res.status, 400, q);
    assert.deepEqual(JSON.parse(res.body), { result: 'error', msg: 'Invalid OTP', code: 'BAD_REQUEST' });
    assert.ok(!res.setCookies.has('parley_sso_flow'));
  }
  const pad = crypto.randomBytes(32).toString('hex');
  const both = await b.get(`http://${HOST}/accounts/register/social/oidc?mobile_flow_otp=${pad}&desktop_flow_otp=${pad}`);
  assert.equal(both.status, 400);
  assert.equal(JSON.parse(both.body).msg, "Can't use both mobile_flow_otp and desktop_flow_otp together.");
});

test('an ID token whose signature does not verify against the published keys is refused', async () => {
  const forged = await startIdp({ redirectUris: [CALLBACK], idTokenClaims: true, forgedJwks: true });
  // Auto-signup on: were the token taken, the account would be made.
  const t2 = await testApp({ sso: { passwordAuth: true, oidc: forged.oidc({ autoSignup: true }), saml: null, ldap: null } });
  try {
    forged.accounts.set('mallory', { email: 'mallory@example.com', email_verified: true, name: 'Mallory' });
    await noneCreated(t2, async () => {
      const b = new Browser(t2);
      const logs = await logged(t2, async () => {
        const run = await signInThroughIdp(b, START, { login: 'mallory' });
        assertRefused(run.callback, 400, /failed Parley&#39;s checks/);
      });
      assert.deepEqual(logs.map((l) => [l.reason, l.code, l.detail]), [['invalid_response', 'OAUTH_INVALID_RESPONSE', 'JWT signature verification failed']]);
      return b;
    });
  } finally {
    await t2.close();
    await forged.close();
  }
});

test('a provider that is down: a clear page; discovery is tried again on the next sign-in', async () => {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const issuer = `http://127.0.0.1:${port}`;
  const t3 = await testApp({ sso: { passwordAuth: true, oidc: { issuer, clientId: 'parley-test', clientSecret: 's', name: 'Down IdP', icon: null, autoSignup: false, trustEmail: false }, saml: null, ldap: null } });
  try {
    const b = new Browser(t3);
    const down = await b.get(START);
    assertRefused(down, 502, /Down IdP cannot be reached/);
    assert.ok(!down.setCookies.has('parley_sso_flow'), 'no flow begun');
    const up = await startIdp({ redirectUris: [CALLBACK], port });
    try {
      const res = await b.get(START);
      assert.equal(res.status, 302);
      assert.equal(new URL(res.location!).origin, issuer);
    } finally {
      await up.close();
    }
  } finally {
    await t3.close();
  }
});

test('not configured: the method\'s pages are 404 refusals', async () => {
  const t4 = await testApp();
  try {
    const b = new Browser(t4);
    for (const url of [START, `http://${HOST}/accounts/register/social/oidc`, `${CALLBACK}?code=x&state=y`]) {
      assertRefused(await b.get(url), 404, /not set up on this server/);
    }
  } finally {
    await t4.close();
  }
});
