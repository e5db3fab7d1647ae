/**
 * The web app in German (issue 35): a user whose `default_language` is "de" sees the left
 * sidebar, the compose box, the settings panel and the keyboard shortcuts in German, at desktop
 * width and at 360 px; switching the language in the settings re-renders the main screen in
 * German at once. And on phones, each message's buttons and reaction pills are 40 px touch
 * targets, shown by a tap on the message (no hover on a touch screen).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { httpClient, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let anna: TestUser, ben: TestUser, cleo: TestUser;
const PASSWORD = 'i18n-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ anna, ben, cleo } = await t.createUsers({
    anna: { name: 'Anna Weber', password: PASSWORD }, ben: { name: 'Ben Jones', password: PASSWORD }, cleo: { name: 'Cleo Park', password: PASSWORD },
  }));
  await createStreams(t, { general: [anna, ben, cleo] });
  base = await t.listen();
  assert.equal((await api(anna, 'PATCH', '/settings', { default_language: 'de' })).status, 200);
  await api(ben, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'hallo', content: 'Guten Morgen zusammen' });
  const mine = await api(cleo, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'hallo', content: 'A message of my own' });
  await api(ben, 'POST', `/messages/${mine.body.id as number}/reactions`, { emoji_name: 'smile' });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

/** The top bar's text buttons: behind the menu on a phone. */
async function topButton(page: Page, menuName: string, name: string) {
  const menu = page.getByRole('button', { name: menuName, exact: true });
  if (await menu.isVisible()) await menu.click();
  return page.getByRole('button', { name, exact: true });
}

for (const [width, label] of [[1280, 'desktop'], [360, 'phone']] as const) {
  test(`a German user sees the main screens in German (${label})`, { skip: SKIP, timeout: 90_000 }, async () => {
    const context = await browser.newContext({ viewport: { width, height: width === 360 ? 740 : 800 } });
    const page = await context.newPage();
    const seen = watch(page);
    await signInPage(page, base, anna.email, PASSWORD);
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    await page.locator('.message', { hasText: 'Guten Morgen zusammen' }).waitFor();
    await page.getByRole('heading', { name: 'Alle Nachrichten' }).waitFor();

    // The left sidebar (a panel on a phone).
    if (width === 360) await page.getByRole('button', { name: 'Streams und Ansichten' }).click();
    const left = page.getByRole('navigation', { name: 'Ansichten, Streams und Unterhaltungen' });
    await left.getByText('Erwähnungen').waitFor();
    await left.getByText('Markiert', { exact: true }).waitFor();
    await left.getByText('Private Nachrichten').waitFor();
    await left.getByRole('button', { name: 'Streams durchsuchen oder erstellen' }).waitFor();
    await screenshot(page, `i18n-de-left-${label}`);
    assert.deepEqual(await axeProblems(page), []);
    if (width === 360) {
      await page.keyboard.press('Escape');
      await until(async () => !(await left.isVisible()), { message: 'the panel closed' });
    }

    // The compose box.
    await page.getByRole('button', { name: 'Neues Thema' }).click();
    const compose = page.getByRole('form', { name: 'Nachricht verfassen' });
    await compose.getByLabel('Thema', { exact: true }).waitFor();
    await compose.getByRole('button', { name: 'Senden' }).waitFor();
    assert.equal(await compose.getByLabel('Nachricht', { exact: true }).getAttribute('placeholder'), 'Nachricht (Eingabe zum Senden, Umschalt+Eingabe für eine neue Zeile)');
    await screenshot(page, `i18n-de-compose-${label}`);
    assert.deepEqual(await axeProblems(page), []);
    await compose.getByRole('button', { name: 'Eingabefeld schließen' }).click();
    await page.getByRole('button', { name: 'Neues Thema' }).waitFor();

    // The keyboard shortcuts.
    await (await topButton(page, 'Menü', 'Tastenkürzel')).click();
    const help = page.getByRole('dialog', { name: 'Tastenkürzel' });
    await help.getByText('Auf die ausgewählte Nachricht antworten').waitFor();
    await help.getByText('r oder Eingabe').waitFor();
    await screenshot(page, `i18n-de-help-${label}`);
    assert.deepEqual(await axeProblems(page), []);
    await help.getByRole('button', { name: 'Schließen' }).click();
    await help.waitFor({ state: 'detached' });

    // The settings panel.
    await (await topButton(page, 'Menü', 'Anna Weber')).click();
    const settings = page.getByRole('dialog', { name: 'Einstellungen' });
    await settings.getByRole('button', { name: 'Präferenzen' }).click();
    await settings.getByLabel('Sprache').waitFor();
    await screenshot(page, `i18n-de-settings-${label}`);
    assert.deepEqual(await axeProblems(page), []);
    assert.deepEqual(seen, { errors: [], dialogs: [] });
    await context.close();
  });
}

test('switching the language to German in the settings re-renders the main screen in German', { skip: SKIP, timeout: 60_000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, ben.email, PASSWORD);
  await page.getByRole('heading', { name: 'All messages' }).waitFor();
  await page.locator('#top-actions').getByRole('button', { name: 'Ben Jones', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('button', { name: 'Preferences', exact: true }).click();
  await dialog.getByLabel('Language').selectOption('de');
  await page.getByRole('dialog', { name: 'Einstellungen' }).waitFor();
  await until(async () => (await api(ben, 'POST', '/register', { client_capabilities: { user_settings_object: true } })).body.user_settings.default_language === 'de', { message: 'saved on the server' });
  await page.keyboard.press('Escape');
  // Behind the panel, the main screen is German too: the sidebar, the title, the compose box.
  await page.getByRole('heading', { name: 'Alle Nachrichten' }).waitFor();
  await page.getByRole('navigation', { name: 'Ansichten, Streams und Unterhaltungen' }).getByText('Private Nachrichten').waitFor();
  await page.getByRole('button', { name: 'Neues Thema' }).waitFor();
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();
  await screenshot(page, 'i18n-switched-de');
  assert.deepEqual(await axeProblems(page), []);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await api(ben, 'PATCH', '/settings', { default_language: 'en' });
  await context.close();
});

test('at 360 px a tap on a message shows its buttons, each (and each reaction pill) at least 40×40 px', { skip: SKIP, timeout: 60_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, cleo.email, PASSWORD);
  for (const text of ['Guten Morgen zusammen', 'A message of my own']) {
    const row = page.locator('.message', { hasText: text });
    await row.locator('.content').tap();
    await until(async () => (await row.getAttribute('class'))!.includes('selected'), { message: `${text}: selected by a tap` });
    const buttons = row.locator('.actions button');
    await buttons.first().waitFor();
    const n = await buttons.count();
    assert.ok(n >= (text.startsWith('A message') ? 5 : 3), `${text}: ${n} buttons`);
    for (let i = 0; i < n; i++) {
      const box = (await buttons.nth(i).boundingBox())!;
      const name = await buttons.nth(i).getAttribute('aria-label');
      assert.ok(box.width >= 40 && box.height >= 40, `${text}: ${name} is ${box.width}×${box.height}`);
      assert.ok(box.x >= 0 && box.x + box.width <= 360, `${text}: ${name} on the screen`);
    }
  }
  const pill = page.locator('.message', { hasText: 'A message of my own' }).locator('.reaction').first();
  const box = (await pill.boundingBox())!;
  assert.ok(box.width >= 40 && box.height >= 40, `the reaction pill is ${box.width}×${box.height}`);
  // The star works by a tap, and the server has it.
  const mine = page.locator('.message', { hasText: 'A message of my own' });
  await mine.getByRole('button', { name: 'Star', exact: true }).tap();
  await mine.getByRole('button', { name: 'Unstar', exact: true }).waitFor();
  const id = Number(await mine.getAttribute('data-id'));
  await until(async () => ((await api(cleo, 'GET', `/messages/${id}`)).body.message?.flags as string[] | undefined)?.includes('starred') === true, { message: 'starred on the server' });
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scroll <= 360, `${scroll}px wide`);
  await screenshot(page, 'i18n-phone-message-buttons');
  assert.deepEqual(await axeProblems(page), []);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await context.close();
});
