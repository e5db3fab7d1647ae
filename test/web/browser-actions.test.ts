import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp, type App } from '../../src/app.js';
import { HOST, httpClient, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let general: number;
let restarted: App | null = null;
const PASSWORD = 'browser-password-1';
let context: BrowserContext;
let page: Page;
let seen: ReturnType<typeof watch>;

// Over real HTTP, so that the same calls reach the server after its restart.
const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const send = async (as: TestUser, topic: string, content: string) => (await api(as, 'POST', '/messages', { type: 'stream', to: 'general', topic, content })).body.id as number;
const row = (text: string) => page.locator('.message', { hasText: text });

before(async () => {
  if (SKIP) return;
  // Built before the server starts: it serves /assets/ only if web/dist/assets existed then (a fresh checkout has none).
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { ...people('alice').alice, password: PASSWORD }, bob: { ...people('bob').bob, password: PASSWORD } }));
  ({ general: { id: general } } = await createStreams(t, { general: [alice, bob], random: [alice, bob] }));
  base = await t.listen();
  await send(bob, 'lunch', 'Where shall we eat?');
  await send(bob, 'release', 'The release is on Friday');
  browser = await launch();
  context = await browser.newContext();
  page = await context.newPage();
  seen = watch(page);
  await signInPage(page, base, alice.email, PASSWORD);
});
after(async () => {
  await page?.screenshot({ path: 'test-output/screenshots/actions-last.png' }).catch(() => {});
  await browser?.close();
  if (restarted) {
    const { dataDir } = restarted.ctx.config;
    await restarted.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  } else await t?.close();
});

test('a narrow URL opens its view; the search box finds a message by words and operators', { skip: SKIP, timeout: 60_000 }, async () => {
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/release`);
  await page.getByRole('heading', { name: '#general > release' }).waitFor();
  await row('The release is on Friday').waitFor();
  assert.equal(await row('Where shall we eat?').count(), 0);
  await page.goto(`${base}/#narrow/is/starred`);
  await page.getByRole('heading', { name: 'Starred messages' }).waitFor();

  await page.keyboard.press('/');
  await page.getByRole('searchbox', { name: 'Search' }).fill('stream:general eat');
  await page.keyboard.press('Enter');
  await row('Where shall we eat?').waitFor();
  assert.equal(await row('The release is on Friday').count(), 0);
  assert.match(decodeURIComponent(new URL(page.url()).hash), /^#narrow\/stream\/\d+-general\/search\/eat$/);
  await screenshot(page, 'search');
  assert.deepEqual(await axeProblems(page), []);
});

test('react (picker, then joining a reaction), star, edit and delete, each shown as the API lands', { skip: SKIP, timeout: 60_000 }, async () => {
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/lunch`);
  await page.getByRole('heading', { name: '#general > lunch' }).waitFor();
  const bobs = row('Where shall we eat?');
  await bobs.hover();
  await bobs.getByRole('button', { name: 'Add reaction' }).click();
  await page.getByRole('button', { name: 'tada' }).click();
  await bobs.getByRole('button', { name: 'tada: 1' }).waitFor();
  // Bob joins by the API; Alice leaves by clicking the reaction.
  const id = Number(await bobs.getAttribute('data-id'));
  await api(bob, 'POST', `/messages/${id}/reactions`, { emoji_name: 'tada' });
  await bobs.getByRole('button', { name: 'tada: 2' }).waitFor();
  await bobs.getByRole('button', { name: 'tada: 2' }).click();
  await bobs.getByRole('button', { name: 'tada: 1' }).waitFor();

  await bobs.hover();
  await bobs.getByRole('button', { name: 'Star' }).click();
  await bobs.getByRole('button', { name: 'Unstar' }).waitFor();
  await until(async () => (await page.locator('.views .nav-link', { hasText: 'Starred' }).innerText()).includes('1'), { message: 'the starred count' });

  // Alice's own message: edited in place, then deleted.
  const mine = await send(alice, 'lunch', 'Tacos?');
  await row('Tacos?').waitFor();
  await row('Tacos?').hover();
  await row('Tacos?').getByRole('button', { name: 'Edit' }).click();
  const editor = page.locator('.editor textarea');
  await until(async () => (await editor.inputValue()) === 'Tacos?', { message: 'the raw content in the editor' });
  await editor.fill('Tacos!');
  await editor.press('Enter');
  // The edit lands first (the API says so), then its event reaches the page: on a loaded
  // machine the second can take longer than a locator's default wait.
  await until(async () => (await api(alice, 'GET', `/messages/${mine}`)).body.raw_content === 'Tacos!', { message: 'the edit saved' });
  await row('Tacos!').locator('.edited').waitFor({ timeout: 60_000 });
  await row('Tacos!').hover();
  await row('Tacos!').getByRole('button', { name: 'Delete' }).click();
  await row('Tacos!').getByRole('button', { name: 'Delete?' }).click();
  await until(async () => (await row('Tacos!').count()) === 0, { message: 'the deleted message leaves the feed' });
  await screenshot(page, 'reactions-star');
});

// The payloads of test/markdown/fixtures.test.ts's sanitising cases, and a few more.
const XSS = [
  '<script>alert(1)</script>', '<<script>script>evil()<</script>/script>', '<img src=x onerror=alert(1)>', '[x](javascript:alert(1))',
  '<a href="javascript:alert(1)">x</a>', '<a href="java&#x09;script:alert(1)">x</a>', '<a href="javascript&#x3A;alert(1)">x</a>',
  '<a href="data:text/html,x">x</a>', '<img class="emoji" src="javascript:x">', '<iframe src="https://x.com"></iframe>', '<a href="vbscript:x">x</a>',
  '<svg onload=alert(1)>', '"><img src=x onerror=alert(1)>', '`<script>alert(1)</script>`', '```\n</code><script>alert(1)</script>\n```',
  '<details open ontoggle=alert(1)>', '[a](javascript:alert(1)) **<b onmouseover=alert(1)>b</b>**', ':smile:<style>*{display:none}</style>',
];

test('no script runs from message content: every XSS payload is sent and shown, and no error or dialog fires', { skip: SKIP, timeout: 90_000 }, async () => {
  await page.evaluate(() => {
    (window as any).__fired = [];
    window.onerror = (m) => void (window as any).__fired.push(String(m));
    window.alert = window.confirm = window.prompt = ((m: unknown) => void (window as any).__fired.push(`dialog ${m}`)) as any;
  });
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/xss`);
  await page.getByRole('heading', { name: '#general > xss' }).waitFor();
  await page.keyboard.press('c');
  const box = page.getByLabel('Message', { exact: true });
  for (const payload of XSS) {
    await box.fill(payload);
    await box.press('Enter');
  }
  await until(async () => (await (await api(alice, 'GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'topic', operand: 'xss' }] })).body.messages.length) === XSS.length, { message: 'all payloads sent' });
  await until(async () => (await page.locator('.message:not(.echo)').count()) === XSS.length, { message: 'all payloads shown' });
  // Hover every message (mouse events); then wait until every image in the messages has
  // loaded or failed (an onerror would have run by then) and one more frame has painted.
  for (const m of await page.locator('.message .content').all()) await m.hover();
  await until(() => page.evaluate(() => [...document.querySelectorAll('.content img')].every((i) => (i as HTMLImageElement).complete)), { message: 'images in messages settled' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.deepEqual(await page.evaluate(() => (window as any).__fired), []);
  assert.equal(await page.locator('.content script, .content iframe, .content [onerror], .content [onload], .content a[href^="javascript"]').count(), 0);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('the server restarts mid-session: the page keeps its queue, says it is offline meanwhile, and goes on', { skip: SKIP, timeout: 90_000 }, async () => {
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/restart`);
  await page.getByRole('heading', { name: '#general > restart' }).waitFor();
  const { dataDir, databaseUrl } = t.app.ctx.config;
  const port = Number(new URL(base).port);
  await t.app.close();
  await page.getByText(/Offline/).waitFor();
  restarted = await buildApp({ dataDir, databaseUrl, logLevel: 'silent', externalUrl: `http://${HOST}` });
  await restarted.http.listen({ port, host: '127.0.0.1' });
  await until(async () => (await page.getByText(/Offline/).count()) === 0, { timeoutMs: 30_000, message: 'back online' });
  // A message from someone else arrives live, and one typed here is sent once.
  await send(bob, 'restart', 'Still here?');
  await row('Still here?').waitFor();
  await page.keyboard.press('Escape');
  await page.keyboard.press('c');
  await page.getByLabel('Message', { exact: true }).fill('Yes, still here');
  await page.getByLabel('Message', { exact: true }).press('Enter');
  await page.locator('.message:not(.echo)', { hasText: 'Yes, still here' }).waitFor();
  const got = await api(alice, 'GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'topic', operand: 'restart' }] });
  assert.deepEqual(got.body.messages.map((m: any) => m.content), ['<p>Still here?</p>', '<p>Yes, still here</p>']);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('an invited person signs up through the link and lands in the app', { skip: SKIP, timeout: 60_000 }, async () => {
  const link = (await api(t.owner, 'POST', '/invites/multiuse', { invite_as: 400, stream_ids: [general] })).body.invite_link as string;
  assert.ok(link, 'an invite link');
  const other = await browser.newContext();
  const p = await other.newPage();
  const pseen = watch(p);
  await p.goto(`${base}${new URL(link).pathname}`);
  await p.getByRole('heading', { name: /Join/ }).waitFor();
  await p.getByLabel('Email').fill('newcomer@parley.test');
  await p.getByLabel('Full name').fill('New Comer');
  await p.getByLabel('Password').fill('a-good-password-9');
  await screenshot(p, 'sign-up');
  assert.deepEqual(await axeProblems(p), []);
  await p.getByRole('button', { name: 'Sign up' }).click();
  await p.locator('.app').waitFor();
  await p.getByRole('link', { name: /# general/ }).waitFor();
  assert.deepEqual(pseen, { errors: [], dialogs: [] });
  await other.close();
});

test('compose: the markdown preview comes from the server, a draft survives a reload, a topic moves whole', { skip: SKIP, timeout: 60_000 }, async () => {
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/drafts`);
  await page.getByRole('heading', { name: '#general > drafts' }).waitFor();
  await page.keyboard.press('Escape');
  await page.keyboard.press('c');
  const box = page.getByLabel('Message', { exact: true });
  // Autocomplete: @mentions and :emoji: (Enter or Tab takes the highlighted suggestion).
  await box.pressSequentially('Hi @Bo');
  await page.getByRole('option', { name: /Bob Jones/ }).waitFor();
  await box.press('Enter');
  await box.pressSequentially(':tad');
  await page.getByRole('option', { name: /:tada:/ }).waitFor();
  await box.press('Tab');
  await box.pressSequentially('#gen');
  await page.getByRole('option', { name: '#general' }).waitFor();
  await box.press('Enter');
  assert.equal(await box.inputValue(), 'Hi @**Bob Jones** :tada: #**general** ');
  await box.fill('**half** written');
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.locator('.preview strong', { hasText: 'half' }).waitFor();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.reload();
  await page.locator('.app').waitFor();
  assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), '**half** written');
  await page.getByLabel('Message', { exact: true }).press('Enter');
  await row('half written').waitFor();

  // Move the whole topic from the editor: the view follows nothing, the messages leave it.
  await page.locator('.message:not(.echo)', { hasText: 'half written' }).hover();
  await row('half written').getByRole('button', { name: 'Edit' }).click();
  await page.locator('.editor').getByLabel('Topic').fill('moved');
  await page.locator('.editor').getByLabel('Move which messages').selectOption('change_all');
  await page.locator('.editor').getByRole('button', { name: 'Save' }).click();
  await until(async () => (await row('half written').count()) === 0, { message: 'the moved message leaves the old topic' });
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/moved`);
  await row('half written').waitFor();
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('shortcuts: j/k move the selection, * stars it, n opens the next unread topic, Esc goes back to All messages', { skip: SKIP, timeout: 60_000 }, async () => {
  // Earlier tests may leave topics unread (whether the page marked them read in time): only
  // this test's topics are unread, so that `n` has one place to go.
  await api(alice, 'POST', '/mark_all_as_read');
  await send(bob, 'shortcuts', 'First of two');
  await send(bob, 'shortcuts', 'Second of two');
  await send(bob, 'unread elsewhere', 'Waiting to be read');
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/shortcuts`);
  await page.getByRole('heading', { name: '#general > shortcuts' }).waitFor();
  await row('Second of two').waitFor();
  await page.locator('.message.selected').waitFor();
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Escape');
  const selected = (text: string) => until(async () => (await page.locator('.message.selected .content').innerText()) === text, { message: `${text} selected` });
  await page.keyboard.press('k');
  await selected('First of two');
  await page.keyboard.press('j');
  await selected('Second of two');
  await page.keyboard.press('*');
  await page.locator('.message.selected').getByRole('button', { name: 'Unstar' }).waitFor();
  await page.keyboard.press('n');
  await page.getByRole('heading', { name: '#general > unread elsewhere' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('heading', { name: 'All messages' }).waitFor();
});
