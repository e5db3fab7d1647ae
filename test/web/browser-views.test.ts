/**
 * The views that are not a message list: Recent conversations (live, filters, keyboard),
 * Inbox (grouped unread, marking a topic read on the server) and Drafts (saved on the server
 * when the compose box closes, restored, sent, deleted). At desktop width and at 360 px.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { httpClient, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let page: Page;
let seen: ReturnType<typeof watch>;
const PASSWORD = 'views-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const eventually = (f: () => Promise<boolean>, message: string) => until(f, { message, timeoutMs: 15_000 });
const send = (as: TestUser, params: Record<string, unknown>) => api(as, 'POST', '/messages', params);
const drafts = async () => (await api(alice, 'GET', '/drafts')).body.drafts as Array<{ id: number; type: string; to: number[]; topic: string; content: string }>;
const topicFlags = async (topic: string) => ((await api(alice, 'GET', '/messages', {
  anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'stream', operand: 'general' }, { operator: 'topic', operand: topic }]),
})).body.messages as Array<{ flags: string[] }>).map((m) => m.flags.includes('read'));

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { ...people('alice').alice, password: PASSWORD }, bob: { ...people('bob').bob, password: PASSWORD } }));
  await createStreams(t, { general: [alice, bob] });
  base = await t.listen();
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  seen = watch(page);
  // Signed in before anything is said, then on a view that is not the feed: the feed would mark
  // what it shows as read.
  await signInPage(page, base, alice.email, PASSWORD);
  await page.goto(`${base}/#recent`);
  await page.getByRole('heading', { name: 'Recent conversations' }).waitFor();
  await send(alice, { type: 'stream', to: 'general', topic: 'plans', content: 'My plans for the week' });
  await send(bob, { type: 'stream', to: 'general', topic: 'lunch', content: 'Lunch at noon?' });
  await send(bob, { type: 'stream', to: 'general', topic: 'lunch', content: 'Or at one' });
  await send(bob, { type: 'private', to: JSON.stringify([alice.id]), content: 'A word in private' });
  await until(async () => (await recentRows(page).count()) === 3, { message: 'three conversations, live' });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const recentRows = (p: Page) => p.locator('.recent-view .conversation');

test('Inbox: unread grouped (private first, then by stream), folding, marking a topic read on the server', { skip: SKIP, timeout: 90_000 }, async () => {
  // From Recent conversations by Zulip's shortcut, never through the feed (which reads what it shows).
  await page.locator('body').press('Shift+I');
  const inbox = page.locator('.inbox-view');
  await inbox.getByRole('heading', { name: 'Inbox' }).waitFor();
  await inbox.locator('.inbox-header', { hasText: '# general' }).waitFor();
  // Alice's own message came from an API client, so it is unread for her too (Zulip's rule).
  assert.deepEqual(await inbox.locator('.inbox-header button').allTextContents(), ['▾ Private messages1', '▾ # general3']);
  assert.deepEqual(await inbox.locator('.conversation-what').allTextContents(), ['Bob Jones', 'lunch', 'plans']);
  assert.equal(await page.evaluate(() => location.hash), '#inbox');
  assert.deepEqual(await axeProblems(page), []);
  await screenshot(page, 'views-inbox');

  const header = inbox.getByRole('button', { name: /# general/ });
  await header.click();
  assert.equal(await header.getAttribute('aria-expanded'), 'false');
  assert.deepEqual(await inbox.locator('.conversation-what').allTextContents(), ['Bob Jones']);
  await header.click();

  assert.deepEqual(await topicFlags('lunch'), [false, false]);
  await inbox.getByRole('button', { name: 'Mark lunch as read' }).click();
  await eventually(async () => (await topicFlags('lunch')).every(Boolean), 'the lunch topic is read on the server');
  await inbox.locator('.conversation-what', { hasText: 'lunch' }).waitFor({ state: 'detached' });
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('Recent conversations: every conversation newest first, filters, live messages, keyboard', { skip: SKIP, timeout: 90_000 }, async () => {
  await page.getByRole('navigation').getByRole('link', { name: 'Recent conversations' }).click();
  await page.getByRole('heading', { name: 'Recent conversations' }).waitFor();
  assert.deepEqual(await recentRows(page).locator('.conversation-what').allTextContents(), ['Bob Jones', 'lunch', 'plans']);
  // The Inbox marked lunch read; the private message is still unread.
  const row = (what: string) => recentRows(page).filter({ has: page.locator('.conversation-what', { hasText: new RegExp(`^${what}$`) }) });
  assert.equal(await row('Bob Jones').locator('.count').textContent(), '1');
  assert.equal(await row('lunch').locator('.count').count(), 0);
  assert.equal(await page.evaluate(() => location.hash), '#recent');
  assert.deepEqual(await axeProblems(page), []);
  await screenshot(page, 'views-recent');

  await page.getByLabel('Participated', { exact: true }).check();
  assert.deepEqual(await recentRows(page).locator('.conversation-what').allTextContents(), ['plans']);
  await page.getByLabel('Participated', { exact: true }).uncheck();
  await page.getByLabel('Unread', { exact: true }).check();
  assert.deepEqual(await recentRows(page).locator('.conversation-what').allTextContents(), ['Bob Jones', 'plans']);
  await page.getByLabel('Unread', { exact: true }).uncheck();
  await page.getByLabel('Filter conversations').fill('lun');
  assert.deepEqual(await recentRows(page).locator('.conversation-what').allTextContents(), ['lunch']);
  await page.getByLabel('Filter conversations').fill('');

  // Live: a new topic arrives at the top.
  await send(bob, { type: 'stream', to: 'general', topic: 'fresh news', content: 'Just in' });
  await until(async () => (await recentRows(page).first().locator('.conversation-what').textContent()) === 'fresh news', { message: 'the new topic on top' });

  // Keyboard: arrows move between rows, Enter opens the conversation.
  await recentRows(page).first().locator('a').focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Private messagesBob Jones');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Recent conversations' }).waitFor({ state: 'detached' });
  await page.locator('.message', { hasText: 'Or at one' }).waitFor();
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /topic\/lunch/);
  // Zulip's t comes back; the browser's back button too.
  await page.locator('body').press('t');
  await page.getByRole('heading', { name: 'Recent conversations' }).waitFor();
  await page.goBack();
  await page.getByRole('heading', { name: 'Recent conversations' }).waitFor({ state: 'detached' });
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('Drafts: text left in a closed compose box is saved on the server, restored, sent (and gone), or deleted', { skip: SKIP, timeout: 90_000 }, async () => {
  await page.goto(`${base}/#all_messages`);
  await page.getByRole('button', { name: 'New topic' }).click();
  await page.getByLabel('Stream', { exact: true }).fill('general');
  await page.getByLabel('Topic').fill('draft topic');
  await page.getByLabel('Message', { exact: true }).fill('An unfinished thought');
  await page.getByRole('button', { name: 'Close compose box' }).click();
  await eventually(async () => (await drafts()).length === 1, 'the draft is on the server');
  const [saved] = await drafts();
  assert.equal(saved!.type, 'stream');
  assert.equal(saved!.topic, 'draft topic');
  assert.equal(saved!.content, 'An unfinished thought');

  await page.keyboard.press('d');
  const view = page.locator('.drafts-view');
  await view.locator('.draft', { hasText: 'An unfinished thought' }).waitFor();
  await view.getByText('#general > draft topic').waitFor();
  await page.getByRole('navigation').getByRole('link', { name: /Drafts/ }).locator('.count', { hasText: '1' }).waitFor();
  assert.deepEqual(await axeProblems(page), []);
  await screenshot(page, 'views-drafts');

  // Restored, finished and sent: the message is there and the draft is gone.
  await view.getByRole('button', { name: 'Restore' }).click();
  const box = page.getByLabel('Message', { exact: true });
  assert.equal(await box.inputValue(), 'An unfinished thought');
  await box.fill('A finished thought');
  await box.press('Enter');
  await eventually(async () => (await drafts()).length === 0, 'the sent draft is deleted');
  await eventually(async () => ((await api(alice, 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 })).body.messages as Array<{ content: string }>)[0]!.content.includes('A finished thought'), 'the message was sent');

  // Another draft, deleted from the view.
  await page.keyboard.press('Escape');
  await page.keyboard.press('x');
  await page.getByLabel('To', { exact: true }).fill(bob.email);
  await page.getByLabel('Message', { exact: true }).fill('Never mind');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await eventually(async () => (await drafts()).length === 1, 'the private draft is on the server');
  assert.deepEqual((await drafts())[0]!.to, [bob.id]);
  await page.keyboard.press('d');
  await view.getByText('To: Bob Jones').waitFor();
  await view.getByRole('button', { name: 'Delete' }).click();
  await eventually(async () => (await drafts()).length === 0, 'the deleted draft is gone from the server');
  await view.locator('.draft').waitFor({ state: 'detached' });

  // A restored draft deleted elsewhere meanwhile is saved again as a new one, never lost.
  await api(alice, 'POST', '/drafts', { drafts: JSON.stringify([{ type: 'private', to: [bob.id], topic: '', content: 'From my phone' }]) });
  await view.locator('.draft', { hasText: 'From my phone' }).getByRole('button', { name: 'Restore' }).click();
  await api(alice, 'DELETE', `/drafts/${(await drafts())[0]!.id}`);
  await page.getByLabel('Message', { exact: true }).fill('From my phone, and more');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await eventually(async () => (await drafts()).map((d) => d.content).join() === 'From my phone, and more', 'saved again as a new draft');
  await api(alice, 'DELETE', `/drafts/${(await drafts())[0]!.id}`);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('at 360 px: the three views fit the width, axe-clean', { skip: SKIP, timeout: 90_000 }, async () => {
  await api(alice, 'POST', '/drafts', { drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'A note to self that is long enough to wrap on a small phone screen' }]) });
  const phone = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  const seenPhone = watch(phone);
  await signInPage(phone, base, alice.email, PASSWORD);
  for (const [hash, heading] of [['#recent', 'Recent conversations'], ['#inbox', 'Inbox'], ['#drafts', 'Drafts']] as const) {
    await phone.goto(`${base}/${hash}`);
    await phone.locator('.special-view').getByRole('heading', { name: heading }).waitFor();
    if (hash === '#recent') await phone.locator('.recent-view .conversation').first().waitFor();
    if (hash === '#drafts') await phone.locator('.draft').waitFor();
    const scroll = await phone.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
    assert.ok(scroll <= 360, `${hash}: no sideways scrolling (${scroll} px)`);
    assert.deepEqual(await axeProblems(phone), [], hash);
    await screenshot(phone, `views-${hash.slice(1)}-360`);
  }
  assert.deepEqual(seenPhone, { errors: [], dialogs: [] });
});
