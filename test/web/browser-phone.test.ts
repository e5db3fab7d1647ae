/**
 * Phones' browsers (issue 35): at 360 px the page never scrolls sideways, the left sidebar
 * (streams, views) and the right one (people) are panels opened from the top bar, which close
 * on choosing a narrow, on Escape and on a tap outside; the top bar's text buttons are in a
 * menu; every control of the top bar, the sidebars and the compose box is at least 40 px tall.
 * At desktop width the sidebars stay where they were and the panel buttons are not shown.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { httpClient, OWNER_PASSWORD, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
const PASSWORD = 'phone-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { name: 'Alice Smith', password: PASSWORD }, bob: { name: 'Bob Jones', password: PASSWORD } }));
  await createStreams(t, { general: [alice, bob, t.owner], 'a stream with a rather long name for a phone': [alice, bob, t.owner] });
  base = await t.listen();
  await api(bob, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'phones', content: `A message with a long unbroken word: ${'x'.repeat(120)}` });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const noSideScroll = async (page: Page, what: string) => {
  const { scroll, inner, wide } = await page.evaluate(() => ({
    scroll: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    inner: innerWidth,
    // What sticks out, for the message.
    wide: [...document.querySelectorAll<HTMLElement>('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5).slice(0, 5).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
  }));
  assert.ok(scroll <= inner, `${what}: ${scroll}px wide in a ${inner}px window: ${wide.join('; ')}`);
};

/** Every visible button, link and field of the top bar, the sidebars and the compose box shorter than 40 px. */
const smallTargets = (page: Page) => page.evaluate(() => [...document.querySelectorAll('.top, .left-sidebar, .right-sidebar, .compose, .compose-closed')]
  .flatMap((area) => [...area.querySelectorAll<HTMLElement>('button, a, select, input:not([type="file"]), textarea')])
  .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height > 0 && e.getBoundingClientRect().height < 40)
  .map((e) => `${e.outerHTML.slice(0, 90)} (${Math.round(e.getBoundingClientRect().height)}px)`));

const visible = (page: Page, selector: string) => page.locator(selector).evaluate((e) => (e as HTMLElement).offsetParent !== null && getComputedStyle(e).display !== 'none');

test('at 360 px: no sideways scroll, sidebars as panels, a menu for the top bar, touch-sized targets, a message sent', { skip: SKIP, timeout: 90_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const seen = watch(page);
  try {
    // The owner: every top-bar button there is (Invite people, Organization).
    await signInPage(page, base, t.owner.email, OWNER_PASSWORD);
    await page.locator('.message', { hasText: 'A message with a long unbroken word' }).waitFor();
    await noSideScroll(page, 'the feed');
    const top = (await page.locator('.top').boundingBox())!;
    assert.ok(top.width <= 360, `the top bar is ${top.width}px`);
    assert.equal(await visible(page, '.left-sidebar'), false, 'no left sidebar on the page');
    assert.equal(await visible(page, '.right-sidebar'), false, 'no right sidebar on the page');
    assert.deepEqual(await smallTargets(page), []);
    await screenshot(page, 'phone-360');
    assert.deepEqual(await axeProblems(page), []);

    // Streams: the ☰ button opens the panel; picking a stream closes it and shows the stream.
    const streamsButton = page.getByRole('button', { name: 'Streams and views' });
    assert.equal(await streamsButton.getAttribute('aria-expanded'), 'false');
    await streamsButton.click();
    await until(async () => (await streamsButton.getAttribute('aria-expanded')) === 'true', { message: 'the button says the panel is open' });
    const left = page.getByRole('navigation', { name: 'Views, streams and conversations' });
    await left.waitFor();
    const box = (await left.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 360, `the panel at ${box.x}+${box.width}`);
    await noSideScroll(page, 'the streams panel');
    assert.deepEqual(await smallTargets(page), []);
    await screenshot(page, 'phone-360-streams');
    assert.deepEqual(await axeProblems(page), []);
    await left.getByRole('link', { name: /# general/ }).click();
    await until(async () => !(await visible(page, '.left-sidebar')), { message: 'the panel closes on choosing a stream' });
    await page.locator('.view-title', { hasText: 'general' }).waitFor();
    await until(() => page.evaluate(() => location.hash.includes('general')), { message: 'the narrow in the address' });
    await until(async () => (await streamsButton.getAttribute('aria-expanded')) === 'false', { message: 'the button says the panel is closed' });

    // A tap outside closes it too (on the shade, away from the panel).
    await streamsButton.click();
    await left.waitFor();
    await page.mouse.click(350, 400);
    await until(async () => !(await visible(page, '.left-sidebar')), { message: 'a tap outside closes the panel' });

    // People: opened by its button, closed by Escape (the narrow stays), the focus back on the button.
    const peopleButton = page.getByRole('button', { name: 'People', exact: true });
    await peopleButton.click();
    const right = page.getByRole('complementary', { name: 'Users' });
    await right.getByRole('link', { name: /Bob Jones/ }).waitFor();
    await until(async () => (await peopleButton.getAttribute('aria-expanded')) === 'true', { message: 'the people button says its panel is open' });
    await noSideScroll(page, 'the people panel');
    assert.deepEqual(await smallTargets(page), []);
    await screenshot(page, 'phone-360-people');
    assert.deepEqual(await axeProblems(page), []);
    await page.keyboard.press('Escape');
    await until(async () => !(await visible(page, '.right-sidebar')), { message: 'Escape closes the people panel' });
    await until(() => peopleButton.evaluate((el) => el === document.activeElement), { message: 'focus back on the people button' });
    assert.ok(await page.evaluate(() => location.hash.includes('general')), 'Escape closed the panel only, not the narrow');

    // The top bar's menu: the text buttons, each a row of its own; a choice closes the menu.
    const menuButton = page.getByRole('button', { name: 'Menu' });
    await menuButton.click();
    for (const name of ['Invite people', 'Organization', 'Sign out']) await page.getByRole('button', { name }).waitFor();
    const menu = (await page.locator('.top-actions').boundingBox())!;
    assert.ok(menu.x >= 0 && menu.x + menu.width <= 360, `the menu at ${menu.x}+${menu.width}`);
    assert.deepEqual(await smallTargets(page), []);
    await screenshot(page, 'phone-360-menu');
    assert.deepEqual(await axeProblems(page), []);
    await page.getByRole('button', { name: 'Invite people' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite people' });
    await invite.waitFor();
    assert.equal(await visible(page, '.top-actions'), false, 'the menu closed');
    await noSideScroll(page, 'the invitations screen');
    await page.keyboard.press('Escape');
    await invite.waitFor({ state: 'detached' });

    // A message from the compose box at 360 px, in the stream in view.
    if (await page.getByRole('textbox', { name: 'Message' }).count() === 0) await page.getByRole('button', { name: 'New topic' }).click();
    await page.getByLabel('Topic').fill('from a phone');
    await page.getByRole('textbox', { name: 'Message' }).fill('Sent at 360 px');
    assert.deepEqual(await smallTargets(page), []);
    await noSideScroll(page, 'the compose box');
    await screenshot(page, 'phone-360-compose');
    assert.deepEqual(await axeProblems(page), []);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.message', { hasText: 'Sent at 360 px' }).waitFor();
    const sent = (await api(alice, 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'stream', operand: 'general' }], apply_markdown: false })).body.messages[0];
    assert.equal(sent.content, 'Sent at 360 px');
    assert.equal(sent.subject, 'from a phone');
    assert.equal(sent.sender_id, t.owner.id);
    await noSideScroll(page, 'after sending');
    assert.deepEqual(seen, { errors: [], dialogs: [] });
  } finally {
    await context.close();
  }
});

test('at desktop width: both sidebars on the page, no panel buttons, the text buttons in the top bar', { skip: SKIP, timeout: 60_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const seen = watch(page);
  try {
    await signInPage(page, base, t.owner.email, OWNER_PASSWORD);
    await page.locator('.message', { hasText: 'A message with a long unbroken word' }).waitFor();
    await noSideScroll(page, 'desktop');
    assert.equal(await visible(page, '.left-sidebar'), true);
    assert.equal(await visible(page, '.right-sidebar'), true);
    for (const name of ['Streams and views', 'People', 'Menu']) assert.equal(await page.getByRole('button', { name, exact: true }).isVisible(), false, name);
    for (const name of ['Invite people', 'Organization', 'Sign out']) assert.equal(await page.getByRole('button', { name }).isVisible(), true, name);
    // Escape with no panel open still belongs to the app (back to All messages from a narrow).
    await page.getByRole('navigation', { name: 'Views, streams and conversations' }).getByRole('link', { name: /# general/ }).click();
    await until(() => page.evaluate(() => location.hash.includes('general')), { message: 'the stream' });
    await page.keyboard.press('Escape');
    await until(() => page.evaluate(() => !location.hash.includes('general')), { message: 'Escape leaves the narrow' });
    await screenshot(page, 'phone-desktop');
    assert.deepEqual(await axeProblems(page), []);

    // Between the breakpoints (900 px): the streams on the page, the people behind their button.
    await page.setViewportSize({ width: 900, height: 800 });
    assert.equal(await visible(page, '.left-sidebar'), true);
    await until(async () => !(await visible(page, '.right-sidebar')), { message: 'no right sidebar at 900 px' });
    await page.getByRole('button', { name: 'People', exact: true }).click();
    await page.getByRole('complementary', { name: 'Users' }).getByRole('link', { name: /Bob Jones/ }).click();
    await until(async () => !(await visible(page, '.right-sidebar')), { message: 'choosing a person closes the panel' });
    await until(() => page.evaluate(() => location.hash.includes('pm-with') || location.hash.includes('dm')), { message: 'the conversation with Bob' });
    await noSideScroll(page, '900 px');
    await screenshot(page, 'phone-900');
    assert.deepEqual(seen, { errors: [], dialogs: [] });
  } finally {
    await context.close();
  }
});
