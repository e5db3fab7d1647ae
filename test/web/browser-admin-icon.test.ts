/**
 * Issue 35's organization icon and code playgrounds (web-icon): the icon in the Organization
 * profile (upload from a real file, remove) and beside the organization's name in the top
 * bar; the Code playgrounds tab (add, list, delete). The owner at desktop width, an
 * administrator at 360 px; each change checked through the API; axe-clean, no sideways scroll.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, Locator, Page } from 'playwright-core';
import { httpClient, OWNER_PASSWORD, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { scratchDir } from '../helpers/scratch.js';

let t: TestApp;
let base: string;
let browser: Browser;
let ada: TestUser;
let pngPath: string;
const PASSWORD = 'admin-icon-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const realmState = async () => (await api(t.owner, 'POST', '/register', { fetch_event_types: ['realm', 'realm_playgrounds'] })).body as
  { realm_icon_url: string; realm_icon_source: string; realm_playgrounds: Array<{ id: number; name: string; pygments_language: string; url_template?: string; url_prefix?: string }> };
const templated = () => t.app.ctx.config.featureLevel >= 196;

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ ada } = await t.createUsers({ ada: { name: 'Ada Admin', role: 200, password: PASSWORD } }));
  await createStreams(t, { general: [ada, t.owner] });
  base = await t.listen();
  browser = await launch();
  const dir = scratchDir('parley-admin-icon-');
  pngPath = path.join(dir, 'logo.png');
  await writeFile(pngPath, await sharp({ create: { width: 200, height: 120, channels: 4, background: '#2a7' } }).png().toBuffer());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function openPanel(page: Page): Promise<Locator> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('button', { name: 'Organization' }).click();
  const panel = page.getByRole('dialog', { name: 'Organization' });
  await panel.waitFor();
  return panel;
}

async function checked(page: Page, shot: string): Promise<void> {
  await screenshot(page, shot);
  assert.deepEqual(await axeProblems(page), [], `${shot}: axe`);
  const wide = await page.evaluate(() => {
    const p = document.querySelector('.admin-panel');
    return { doc: document.documentElement.scrollWidth - window.innerWidth, panel: p ? p.scrollWidth - p.clientWidth : 0 };
  });
  assert.ok(wide.doc <= 0 && wide.panel <= 0, `${shot}: no sideways scroll (${JSON.stringify(wide)})`);
}

async function iconFlow(page: Page, prefix: string): Promise<void> {
  const panel = await openPanel(page);
  await panel.getByRole('heading', { name: 'Organization icon', level: 3 }).waitFor();
  await checked(page, `${prefix}-icon-default`);
  await panel.locator('#org-icon-file').setInputFiles(pngPath);
  await panel.getByText('Organization icon uploaded.').waitFor();
  await until(async () => (await realmState()).realm_icon_source === 'U', { message: 'icon uploaded' });
  const uploaded = (await realmState()).realm_icon_url;
  assert.match(uploaded, /^\/user_avatars\/\d+\/realm\/icon\.png\?version=\d+$/);
  // The realm update_dict event brings the new URL to the preview and the top bar.
  await page.locator(`.org-icon-preview[src="${uploaded}"]`).waitFor();
  await page.locator(`.brand-icon[src="${uploaded}"]`).waitFor({ state: 'attached' });
  assert.ok(await page.locator('.org-icon-preview').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 100), 'the served icon loads, 100 px');
  await checked(page, `${prefix}-icon-uploaded`);
  await panel.getByRole('button', { name: 'Remove icon' }).click();
  await panel.getByText('Organization icon removed.').waitFor();
  await until(async () => (await realmState()).realm_icon_source === 'G', { message: 'icon removed' });
  await panel.getByRole('button', { name: 'Remove icon' }).waitFor({ state: 'detached' });
  assert.match(String(await page.locator('.brand-icon').getAttribute('src')), /gravatar/);
}

async function playgroundFlow(page: Page, prefix: string): Promise<void> {
  const panel = page.getByRole('dialog', { name: 'Organization' });
  await panel.getByRole('tab', { name: 'Code playgrounds' }).click();
  await panel.getByRole('heading', { name: 'Add a new code playground', level: 3 }).waitFor();
  await panel.getByText('There are no code playgrounds yet.').waitFor();
  await checked(page, `${prefix}-playgrounds-empty`);
  const urlLabel = templated() ? 'URL template' : 'URL prefix';
  // Refused: the server's own words are shown.
  await panel.getByLabel('Language').fill('Py$thon');
  await panel.getByLabel('Name', { exact: true }).fill('Bad');
  await panel.getByLabel(urlLabel).fill(templated() ? 'https://x.example.com/?c={code}' : 'https://x.example.com/?c=');
  await panel.getByRole('button', { name: 'Add code playground' }).click();
  await panel.getByText('Invalid characters in pygments language').waitFor();
  await panel.getByLabel('Language').fill('rust');
  await panel.getByLabel('Name', { exact: true }).fill('Rust playground');
  await panel.getByLabel(urlLabel).fill(templated() ? 'https://play.rust-lang.org/?code={code}' : 'https://play.rust-lang.org/?code=');
  await panel.getByRole('button', { name: 'Add code playground' }).click();
  await panel.getByText('Playground added.').waitFor();
  await until(async () => (await realmState()).realm_playgrounds.length === 1, { message: 'playground added' });
  const [p] = (await realmState()).realm_playgrounds;
  assert.equal(p!.name, 'Rust playground');
  assert.equal(p!.pygments_language, 'rust');
  assert.equal(p!.url_template ?? p!.url_prefix, templated() ? 'https://play.rust-lang.org/?code={code}' : 'https://play.rust-lang.org/?code=');
  await panel.getByRole('listitem').filter({ hasText: 'Rust playground' }).waitFor();
  await checked(page, `${prefix}-playgrounds-one`);
  await panel.getByRole('button', { name: 'Delete Rust playground' }).click();
  await panel.getByRole('button', { name: 'Delete Rust playground?' }).click();
  await panel.getByText('There are no code playgrounds yet.').waitFor();
  await until(async () => (await realmState()).realm_playgrounds.length === 0, { message: 'playground deleted' });
}

test('the owner at desktop width: icon upload and removal, code playgrounds added and deleted', { skip: SKIP, timeout: 180_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  const seen = watch(page);
  await signInPage(page, base, t.owner.email, OWNER_PASSWORD);
  await page.locator('.brand-icon').waitFor({ state: 'attached' });
  await iconFlow(page, 'admin-icon-desktop');
  await playgroundFlow(page, 'admin-icon-desktop');
  // Escape closes the panel and focus goes back to its entry.
  await page.keyboard.press('Escape');
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await page.context().close();
});

test('an administrator at 360 px: the same screens fit, touch targets at least 40 px', { skip: SKIP, timeout: 180_000 }, async () => {
  const page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  const seen = watch(page);
  await signInPage(page, base, ada.email, PASSWORD);
  const panel = await openPanel(page);
  await panel.getByRole('heading', { name: 'Organization icon', level: 3 }).waitFor();
  const box = await panel.locator('.org-icon-upload').boundingBox();
  assert.ok(box && box.height >= 40, `upload button height ${box?.height}`);
  await page.getByRole('button', { name: 'Close' }).click();
  await iconFlow(page, 'admin-icon-phone');
  await playgroundFlow(page, 'admin-icon-phone');
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await page.context().close();
});
