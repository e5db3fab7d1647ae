/**
 * Profile cards (Zulip's user card) and setting one's own status: the card from a sender's name
 * and from the user list, with role, local time, custom profile fields and status; the status
 * dialog (a preset, clearing), saved through the API and seen live in another person's browser.
 * At desktop width and at 360 px.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { asTestUser, FEATURE_LEVEL, httpClient, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let general: number;
let alicePage: Page, bobPage: Page;
let seenA: ReturnType<typeof watch>, seenB: ReturnType<typeof watch>;
const PASSWORD = 'people-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const eventually = (f: () => Promise<boolean>, message: string) => until(f, { message, timeoutMs: 15_000 });
const statusOf = async (u: TestUser) => (await api(u, 'GET', `/users/${u.id}/status`)).body.status as Record<string, unknown>;

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { ...people('alice').alice, password: PASSWORD }, bob: { ...people('bob').bob, password: PASSWORD } }));
  ({ general: { id: general } } = await createStreams(t, { general: [alice, bob, t.owner] }));
  base = await t.listen();
  const team = (await api(t.owner, 'POST', '/realm/profile_fields', { name: 'Team', field_type: 1, hint: 'Your team' })).body.id as number;
  const shift = (await api(t.owner, 'POST', '/realm/profile_fields', {
    name: 'Shift', field_type: 3, field_data: JSON.stringify({ early: { text: 'Early bird', order: '1' }, late: { text: 'Night owl', order: '2' } }),
  })).body.id as number;
  const buddy = (await api(t.owner, 'POST', '/realm/profile_fields', { name: 'Buddy', field_type: 6 })).body.id as number;
  const github = (await api(t.owner, 'POST', '/realm/profile_fields', { name: 'GitHub', field_type: 7, field_data: JSON.stringify({ subtype: 'github' }) })).body.id as number;
  const data = [{ id: team, value: 'Platform crew' }, { id: shift, value: 'late' }, { id: buddy, value: [bob.id] }, { id: github, value: 'alice-gh' }];
  assert.equal((await api(alice, 'PATCH', '/users/me/profile_data', { data: JSON.stringify(data) })).status, 200);
  assert.equal((await api(alice, 'PATCH', '/settings', { timezone: 'Asia/Tokyo' })).status, 200);
  const made = await api(alice, 'POST', '/bots', { full_name: 'Deploy Bot', short_name: 'deploy' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const deploy = asTestUser(await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', made.body.user_id as number).executeTakeFirstOrThrow());
  assert.equal((await api(deploy, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'cards', content: 'Beep from the bot' })).status, 200);
  await api(alice, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'cards', content: 'Hello from Alice' });
  await api(bob, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'cards', content: 'Hello from Bob' });
  browser = await launch();
  alicePage = await (await browser.newContext()).newPage();
  bobPage = await (await browser.newContext()).newPage();
  seenA = watch(alicePage);
  seenB = watch(bobPage);
  await signInPage(alicePage, base, alice.email, PASSWORD);
  await signInPage(bobPage, base, bob.email, PASSWORD);
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const card = (page: Page) => page.getByRole('dialog', { name: /Smith|Jones/ });

test('the profile card: from a sender\'s name, with role, local time, custom fields; Escape gives the focus back', { skip: SKIP, timeout: 90_000 }, async () => {
  await bobPage.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  const sender = bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('button.sender-card');
  await sender.click();
  const c = card(bobPage);
  await c.getByRole('heading', { name: /Alice Smith/ }).waitFor();
  await c.getByText('Platform crew').waitFor();
  await c.getByText('Night owl').waitFor();
  await c.getByText('Member', { exact: true }).waitFor();
  await c.locator('dd', { hasText: 'Bob Jones' }).waitFor();
  assert.equal(await c.getByRole('link', { name: 'alice-gh' }).getAttribute('href'), 'https://github.com/alice-gh');
  const local = await c.locator('.local-time').textContent();
  const tokyo = new Intl.DateTimeFormat([], { hour: 'numeric', minute: '2-digit', timeZone: 'Asia/Tokyo' }).format(new Date());
  assert.match(local ?? '', /^Local time: /);
  assert.ok(local!.includes(tokyo.slice(0, 2)), `${local} is Tokyo's time (${tokyo})`);
  await c.getByText(alice.email).waitFor();
  assert.deepEqual(await axeProblems(bobPage), []);
  await screenshot(bobPage, 'people-card');
  await bobPage.keyboard.press('Escape');
  await c.waitFor({ state: 'detached' });
  assert.equal(await sender.evaluate((el) => el === document.activeElement), true);

  // The user list's button, keyboard only: Enter opens the card; "View messages sent" narrows.
  const open = bobPage.getByRole('button', { name: 'View profile of Alice Smith' });
  await open.focus();
  await bobPage.keyboard.press('Enter');
  await c.getByRole('button', { name: 'View messages sent' }).click();
  await c.waitFor({ state: 'detached' });
  await until(() => bobPage.evaluate(() => decodeURIComponent(location.hash).includes('sender')), { message: 'narrowed to sender' });
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).waitFor();
  assert.equal(await bobPage.locator('.message', { hasText: 'Hello from Bob' }).count(), 0);

  // Zulip's u: the selected message's sender; "Send direct message" opens the compose box to them.
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('.content').click();
  await bobPage.keyboard.press('u');
  await c.getByRole('button', { name: 'Send direct message' }).click();
  await c.waitFor({ state: 'detached' });
  await bobPage.locator('textarea').first().waitFor();
  assert.deepEqual(seenB, { errors: [], dialogs: [] });
});

test('a bot\'s card: the role Bot and its owner', { skip: SKIP, timeout: 60_000 }, async () => {
  await bobPage.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  await bobPage.locator('.message', { hasText: 'Beep from the bot' }).locator('button.sender-card').click();
  const c = bobPage.getByRole('dialog', { name: /Deploy Bot/ });
  await c.getByText('Bot · Owner: Alice Smith').waitFor();
  await bobPage.mouse.click(5, 700); // a click outside closes it
  await c.waitFor({ state: 'detached' });
  assert.deepEqual(seenB, { errors: [], dialogs: [] });
});

test('own status: a preset saved through the API, seen live by another person, then cleared', { skip: SKIP, timeout: 90_000 }, async () => {
  await bobPage.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  await alicePage.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  await alicePage.getByRole('button', { name: 'Set status' }).click();
  const dialog = alicePage.getByRole('dialog', { name: 'Set status' });
  await dialog.getByRole('button', { name: /In a meeting/ }).click();
  assert.equal(await dialog.getByLabel('Status text').inputValue(), 'In a meeting');
  assert.deepEqual(await axeProblems(alicePage), []);
  await screenshot(alicePage, 'people-set-status');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
  await eventually(async () => (await statusOf(alice)).status_text === 'In a meeting', 'the status is saved');
  assert.equal((await statusOf(alice)).emoji_name, 'calendar');
  // Bob's browser: the emoji next to Alice in the feed and the user list, live; her card shows the text.
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('.status-emoji[aria-label="calendar"]').waitFor();
  await bobPage.locator('.right-sidebar .user-row', { hasText: 'Alice Smith' }).locator('.status-emoji').waitFor({ state: 'attached' });
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('button.sender-card').click();
  await card(bobPage).locator('.status-text', { hasText: 'In a meeting' }).waitFor();
  await screenshot(bobPage, 'people-card-status');
  await bobPage.keyboard.press('Escape');

  // A typed status, from the card of oneself, then cleared.
  await alicePage.locator('.message', { hasText: 'Hello from Alice' }).locator('button.sender-card').click();
  await card(alicePage).getByRole('button', { name: 'Set status' }).click();
  await dialog.getByLabel('Status text').fill('Lunch');
  // The emoji from the picker.
  await dialog.getByRole('button', { name: 'Status emoji: calendar' }).click();
  const picker = alicePage.getByRole('dialog', { name: 'Choose a status emoji' });
  await picker.getByLabel('Search emoji').fill('pizza');
  await picker.getByRole('button', { name: 'pizza', exact: true }).click();
  await picker.waitFor({ state: 'detached' });
  await dialog.getByRole('button', { name: 'Status emoji: pizza' }).waitFor();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await eventually(async () => (await statusOf(alice)).status_text === 'Lunch', 'the typed status is saved');
  assert.equal((await statusOf(alice)).emoji_name, 'pizza');
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('.status-emoji[aria-label="pizza"]').waitFor();
  await alicePage.getByRole('button', { name: 'Set status' }).click();
  await dialog.getByRole('button', { name: 'Clear status' }).click();
  await dialog.waitFor({ state: 'detached' });
  await eventually(async () => !(await statusOf(alice)).status_text && !(await statusOf(alice)).emoji_name, 'the status is cleared');
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('.status-emoji').waitFor({ state: 'detached' });
  assert.deepEqual(seenA, { errors: [], dialogs: [] });
  assert.deepEqual(seenB, { errors: [], dialogs: [] });
});

test('at 360 px: the card is a full-width sheet, without sideways scrolling, axe-clean', { skip: SKIP, timeout: 90_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, bob.email, PASSWORD);
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  await page.locator('.message', { hasText: 'Hello from Alice' }).locator('button.sender-card').click();
  const c = card(page);
  await c.getByText('Platform crew').waitFor();
  const box = (await c.boundingBox())!;
  assert.ok(box.width >= 358 && box.x <= 1, `full width: ${JSON.stringify(box)}`);
  assert.ok(box.y + box.height >= 738, `at the bottom: ${JSON.stringify(box)}`);
  const small = await c.evaluate((el) => [...el.querySelectorAll<HTMLElement>('button')].filter((b) => b.getBoundingClientRect().height < 40).map((b) => b.textContent));
  assert.deepEqual(small, []);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  assert.deepEqual(await axeProblems(page), []);
  await screenshot(page, 'people-card-phone');
  await c.getByRole('button', { name: 'Copy email' }).click();
  await c.getByRole('button', { name: 'Copied!' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), alice.email);
  await page.keyboard.press('Escape');
  await c.waitFor({ state: 'detached' });
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('at 360 px: the status dialog from the top bar\'s menu, away saved, the focus back on the menu', { skip: SKIP, timeout: 90_000 }, async () => {
  const page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  const seen = watch(page);
  await signInPage(page, base, bob.email, PASSWORD);
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Set status' }).click();
  const dialog = page.getByRole('dialog', { name: 'Set status' });
  await dialog.getByRole('button', { name: /Working remotely/ }).waitFor();
  const box = (await dialog.boundingBox())!;
  assert.ok(box.width >= 358 && box.x <= 1, `full width: ${JSON.stringify(box)}`);
  const small = await dialog.evaluate((el) => [...el.querySelectorAll<HTMLElement>('button, input[type=text], input:not([type])')].filter((b) => b.getBoundingClientRect().height < 40).map((b) => b.outerHTML.slice(0, 80)));
  assert.deepEqual(small, []);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  assert.deepEqual(await axeProblems(page), []);
  await screenshot(page, 'people-set-status-phone');
  await dialog.getByRole('button', { name: /Working remotely/ }).click();
  // Below level 148 `away` is part of the status; from then it is the presence_enabled setting, not in this dialog.
  const awayInStatus = FEATURE_LEVEL < 148;
  if (awayInStatus) await dialog.getByLabel('Set yourself as away').check();
  else assert.equal(await dialog.getByLabel('Set yourself as away').count(), 0);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
  await eventually(async () => (await statusOf(bob)).status_text === 'Working remotely' && ((await statusOf(bob)).away === true) === awayInStatus, 'the status (and away) are saved');
  assert.equal((await statusOf(bob)).emoji_name, 'house');
  assert.equal(await page.getByRole('button', { name: 'Menu' }).evaluate((el) => el === document.activeElement), true);
  // Escape closes the dialog unsaved.
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Set status' }).click();
  assert.equal(await dialog.getByLabel('Status text').inputValue(), 'Working remotely');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('in German: the card and the status dialog', { skip: SKIP, timeout: 60_000 }, async () => {
  assert.equal((await api(bob, 'PATCH', '/settings', { default_language: 'de' })).status, 200);
  await bobPage.goto(`${base}/#narrow/stream/${general}-general/topic/cards`);
  await bobPage.reload();
  await bobPage.locator('.message', { hasText: 'Hello from Alice' }).locator('button.sender-card').click();
  const c = card(bobPage);
  await c.getByText('Mitglied', { exact: true }).waitFor();
  assert.match((await c.locator('.local-time').textContent()) ?? '', /^Ortszeit: /);
  await c.getByRole('button', { name: 'Direktnachricht senden' }).waitFor();
  await c.getByRole('button', { name: 'Gesendete Nachrichten anzeigen' }).waitFor();
  assert.deepEqual(await axeProblems(bobPage), []);
  await screenshot(bobPage, 'people-card-de');
  await bobPage.keyboard.press('Escape');
  await bobPage.getByRole('button', { name: 'Status setzen' }).click();
  const dialog = bobPage.getByRole('dialog', { name: 'Status setzen' });
  await dialog.getByRole('button', { name: /In einem Meeting/ }).waitFor();
  await dialog.getByRole('button', { name: 'Status löschen' }).waitFor();
  await bobPage.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(seenB, { errors: [], dialogs: [] });
});
