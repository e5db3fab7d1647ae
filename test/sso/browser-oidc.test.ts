import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { testApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/pg.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, SKIP, watch } from '../helpers/browser.js';
import { startIdp, type TestIdp } from './oidc-idp.js';

/**
 * The web app's single sign-on in a real browser against a real OpenID provider: the button
 * on the sign-in page, the provider's pages, and back into the app signed in; a person the
 * organization does not know sees the refusal page and stays signed out.
 */

let idp: TestIdp;
let t: TestApp;
let base: string;
let browser: Browser;

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  // The provider sends the browser back to the address Parley is really served at.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  idp = await startIdp({ redirectUris: [`${base}/complete/oidc/`] });
  t = await testApp({ externalUrl: base, sso: { passwordAuth: false, oidc: idp.oidc({ name: 'Example ID' }), saml: null, ldap: null } });
  await t.app.http.listen({ port, host: '127.0.0.1' });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await idp?.close();
});

/** The provider's development pages: its login form (the login picks the account), then consent. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').waitFor();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.locator('button[type="submit"], input[type="submit"]').first().click();
  const consent = page.locator('button[autofocus], form button[type="submit"]').first();
  await Promise.race([consent.waitFor({ timeout: 10_000 }), page.waitForURL((u) => u.origin === base, { timeout: 10_000 })]).catch(() => undefined);
  if (new URL(page.url()).origin !== base) await consent.click();
}

test('sign in with the provider from the sign-in page, back into the app where one was', { skip: SKIP, timeout: 90_000 }, async () => {
  const u = await t.createUser({ name: 'Robin Example', email: 'robin@example.com' });
  idp.accounts.set('robin', { email: 'robin@example.com', email_verified: true, name: 'Robin' });
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
  const button = page.getByRole('link', { name: 'Sign in with Example ID' });
  await button.waitFor();
  // Passwords are off: no password form beside the button.
  assert.equal(await page.getByLabel('Password').count(), 0);
  assert.deepEqual(await axeProblems(page), []);
  await screenshot(page, 'sso-login');

  await button.click();
  await signInAtProvider(page, 'robin');
  await page.locator('.app').waitFor();
  assert.equal(new URL(page.url()).origin, base);
  const session = (await context.cookies()).find((c) => c.name === 'parley_session');
  assert.ok(session?.httpOnly, 'a web session');
  const me = await page.evaluate(async () => (await (await fetch('/json/users/me', { credentials: 'same-origin' })).json()) as { user_id: number });
  assert.equal(me.user_id, u.id);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a person without an account: the refusal page says so, and no session', { skip: SKIP, timeout: 90_000 }, async () => {
  idp.accounts.set('stranger', { email: 'stranger@example.com', email_verified: true, name: 'Stranger' });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.getByRole('link', { name: 'Sign in with Example ID' }).click();
  await signInAtProvider(page, 'stranger');
  await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
  assert.match(await page.getByRole('alert').innerText(), /no account for stranger@example\.com/);
  assert.equal((await context.cookies()).some((c) => c.name === 'parley_session'), false);
  await page.getByRole('link', { name: 'Back to the sign-in page' }).click();
  await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
  await context.close();
});
