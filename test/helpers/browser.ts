/**
 * Browser tests: playwright-core drives the machine's Chromium (Debian's `chromium`; never a
 * downloaded one) headless against a server listening on a free port. When no Chromium is
 * found the tests skip with a plain reason, and test/run.ts says so at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { until } from './until.js';

import { CHROMIUM, NO_BROWSER } from './chromium.js';

export { CHROMIUM, NO_BROWSER };
/** node:test's `skip` option: false, or why. */
export const SKIP: string | false = CHROMIUM ? false : NO_BROWSER;

export const OUTPUT = path.resolve('test-output', 'screenshots');

// /work/shared/docs/toolchain.md's flags; the profile is a fresh temporary one per launch.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

export async function launch(): Promise<Browser> {
  await ensureWebBuilt();
  return chromium.launch({ executablePath: CHROMIUM!, headless: true, args: FLAGS });
}

/** web/dist as the sources say, built once even when several test processes start together. */
export async function ensureWebBuilt(): Promise<void> {
  const web = await import('../../scripts/web-build.mjs');
  if (!web.isStale()) return;
  const lock = path.resolve('web', '.build-lock');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      await until(() => !fs.existsSync(lock), { timeoutMs: 120_000, message: 'another process building web/' });
    }
  }
  try {
    if (web.isStale() && !(await web.build())) throw new Error('the web app did not build');
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** What must never happen on a page: uncaught errors, dialogs (alert/confirm from content), console errors. */
export function watch(page: Page): { errors: string[]; dialogs: string[] } {
  const seen = { errors: [] as string[], dialogs: [] as string[] };
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  // Console noise (a 401 while signed out is expected) goes to the test's log, for post-mortems.
  page.on('console', (m) => { if (m.type() === 'error' || process.env.PARLEY_BROWSER_LOG) process.stderr.write(`[browser ${m.type()}] ${m.text()}\n`); });
  page.on('response', (r) => { if (r.status() >= 400 || (process.env.PARLEY_BROWSER_LOG && r.url().includes('/json/'))) process.stderr.write(`[browser http] ${r.status()} ${r.request().method()} ${r.url()}\n`); });
  // PARLEY_BROWSER_LOG=2: the event queue's answers too, timestamped.
  if (process.env.PARLEY_BROWSER_LOG === '2') page.on('response', async (r) => { if (r.url().includes('/json/events')) process.stderr.write(`[events] ${Date.now() % 100000} ${(await r.text().catch(() => '')).slice(0, 300)}\n`); });
  page.on('dialog', (d) => {
    seen.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return seen;
}

export async function signInPage(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.app').waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: path.join(OUTPUT, `${name}.png`) });
}

/** axe-core's serious and critical findings on the page as it is. */
export async function axeProblems(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
}
