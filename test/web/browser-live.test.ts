import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let general: number;
const PASSWORD = 'browser-password-1';
const pages: Array<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> = [];

async function open(user: TestUser, hash = ''): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = watch(page);
  pages.push({ context, page, seen });
  await signInPage(page, base, user.email, PASSWORD);
  if (hash) await page.goto(`${base}/${hash}`);
  return page;
}

const count = (page: Page, section: string, name: string) =>
  page.locator(`.${section} .nav-link`, { hasText: name }).first().locator('.count').innerText().then(Number, () => 0);

before(async () => {
  if (SKIP) return;
  // Built before the server starts: it serves /assets/ only if web/dist/assets existed then (a fresh checkout has none).
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { ...people('alice').alice, password: PASSWORD }, bob: { ...people('bob').bob, password: PASSWORD } }));
  ({ general: { id: general } } = await createStreams(t, { general: [alice, bob], random: [alice, bob] }));
  base = await t.listen();
  browser = await launch();
});
after(async () => {
  // The last state of every page, for a failure's post-mortem.
  for (const [i, p] of pages.entries()) await screenshot(p.page, `live-last-${i}`).catch(() => {});
  for (const p of pages) assert.deepEqual(p.seen, { errors: [], dialogs: [] }, 'no page error or dialog on any page');
  await browser?.close();
  await t?.close();
});

test('two people converse live in a stream: the narrow URL opens the topic, each sees the other type, the message arrives, unread counts rise and fall', { skip: SKIP, timeout: 90_000 }, async () => {
  const bobPage = await open(bob, `#narrow/stream/${general}-general/topic/lunch`);
  await bobPage.getByRole('heading', { name: '#general > lunch' }).waitFor();
  const alicePage = await open(alice);

  // Alice writes in #general > lunch: Bob, reading that topic, sees her typing.
  await alicePage.keyboard.press('c');
  await alicePage.getByLabel('Stream', { exact: true }).fill('general');
  await alicePage.getByLabel('Topic', { exact: true }).fill('lunch');
  await alicePage.getByLabel('Message', { exact: true }).pressSequentially('Pizza at noon?');
  await bobPage.getByText('Alice Smith is typing…').waitFor();
  await alicePage.getByLabel('Message', { exact: true }).press('Enter');
  // Her own echo, then the server's copy; his view shows it live and marks it read.
  await alicePage.locator('.message:not(.echo)', { hasText: 'Pizza at noon?' }).waitFor();
  await bobPage.locator('.message', { hasText: 'Pizza at noon?' }).waitFor();
  await until(async () => (await bobPage.getByText('Alice Smith is typing…').count()) === 0, { message: 'typing ends with the message' });
  await until(async () => (await t.api('GET', '/api/v1/messages', { as: bob, query: { anchor: 'newest', num_before: 1, num_after: 0 } })).body.messages[0]?.flags.includes('read'),
    { message: 'the message Bob saw is marked read' });

  // Bob replies: the compose box opens on the topic in view (r on the selected message).
  await bobPage.locator('.message', { hasText: 'Pizza at noon?' }).click();
  await bobPage.keyboard.press('r');
  await bobPage.getByLabel('Message', { exact: true }).fill('Yes!');
  await bobPage.getByLabel('Message', { exact: true }).press('Enter');
  await alicePage.locator('.message', { hasText: 'Yes!' }).waitFor();
  await screenshot(bobPage, 'stream-topic');
  assert.deepEqual(await axeProblems(bobPage), []);

  // Bob moves to #random; a message in #general raises his count there, reading it lowers it.
  await bobPage.getByRole('link', { name: /# random/ }).click();
  await bobPage.getByRole('heading', { name: '#random' }).waitFor();
  await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'general', topic: 'dinner', content: 'And dinner?' } });
  await until(async () => (await count(bobPage, 'streams', 'general')) === 1, { message: 'the unread count of #general rises' });
  await bobPage.getByRole('link', { name: /# general/ }).click();
  await bobPage.locator('.message', { hasText: 'And dinner?' }).waitFor();
  await until(async () => (await count(bobPage, 'streams', 'general')) === 0, { message: 'the unread count falls once seen' });
});

test('two people converse privately and see each other type', { skip: SKIP, timeout: 90_000 }, async () => {
  const alicePage = pages[1]!.page;
  const bobPage = pages[0]!.page;
  await bobPage.getByRole('link', { name: 'Alice Smith' }).click();
  await bobPage.getByRole('heading', { name: 'Alice Smith' }).waitFor();
  await alicePage.keyboard.press('Escape');
  await alicePage.keyboard.press('x');
  await alicePage.getByLabel('To', { exact: true }).fill(bob.email);
  await alicePage.getByLabel('Message', { exact: true }).pressSequentially('Just between us');
  await bobPage.getByText('Alice Smith is typing…').waitFor();
  await alicePage.getByLabel('Message', { exact: true }).press('Enter');
  await bobPage.locator('.message', { hasText: 'Just between us' }).waitFor();
  // Alice's private conversations list shows Bob.
  await alicePage.locator('.pms .nav-link', { hasText: 'Bob Jones' }).waitFor();
  await screenshot(bobPage, 'private');
});

test('the network drops: the page says so, a message composed meanwhile is sent once it is back, and only once', { skip: SKIP, timeout: 90_000 }, async () => {
  const { context, page: alicePage } = pages[1]!;
  const bobPage = pages[0]!.page;
  await context.setOffline(true);
  await alicePage.getByLabel('Message', { exact: true }).fill('Sent while offline');
  await alicePage.getByLabel('Message', { exact: true }).press('Enter');
  await alicePage.getByText(/Offline/).waitFor();
  // Shown at once as a local echo.
  await alicePage.locator('.message.echo', { hasText: 'Sent while offline' }).waitFor();
  await context.setOffline(false);
  await bobPage.locator('.message', { hasText: 'Sent while offline' }).waitFor();
  await alicePage.locator('.message:not(.echo)', { hasText: 'Sent while offline' }).waitFor();
  await until(async () => (await alicePage.getByText(/Offline/).count()) === 0, { message: 'back online' });
  const got = await t.api('GET', '/api/v1/messages', { as: alice, query: { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'search', operand: 'offline' }] } });
  assert.equal(got.body.messages.filter((m: any) => m.content.includes('Sent while offline')).length, 1, 'sent exactly once');
  assert.equal(await alicePage.locator('.message', { hasText: 'Sent while offline' }).count(), 1);
});
