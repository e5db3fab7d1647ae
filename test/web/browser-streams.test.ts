/**
 * Issue 35's stream screens (Zulip's stream settings): browsing ("Subscribed" / "All
 * streams", filter, subscriber counts), creating a private stream with a subscriber, an
 * administrator's changes to a stream (name, description, posting policy, subscribers,
 * archive) and the viewer's own subscription settings, at desktop width as the owner; at
 * 360 px as a member, who subscribes and unsubscribes and sees none of the administrators'
 * controls. Each change is checked through the API.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { FEATURE_LEVEL, httpClient, OWNER_PASSWORD, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let general: number, lobby: number, old: number;
const PASSWORD = 'streams-screens-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
type ApiStream = { stream_id: number; name: string; description: string; invite_only: boolean; history_public_to_subscribers: boolean; stream_post_policy: number };
const streamsOf = async (as: TestUser) => (await api(as, 'GET', '/streams')).body.streams as ApiStream[];
const membersOf = async (id: number) => ((await api(t.owner, 'GET', `/streams/${id}/members`)).body.subscribers as number[]).sort((a, b) => a - b);
const subscribedIds = async (as: TestUser) => ((await api(as, 'GET', '/users/me/subscriptions')).body.subscriptions as Array<{ stream_id: number }>).map((s) => s.stream_id);

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({
    alice: { name: 'Alice Smith', password: PASSWORD },
    bob: { name: 'Bob Jones', password: PASSWORD },
  }));
  ({ general: { id: general }, lobby: { id: lobby }, old: { id: old } } = await createStreams(t, {
    general: [alice, bob, t.owner],
    lobby: { subscribers: [t.owner], description: 'Come in' },
    old: [t.owner],
  }));
  base = await t.listen();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function openStreams(page: Page): Promise<Locator> {
  // On a phone the "+" is in the left panel, behind its button.
  const panel = page.getByRole('button', { name: 'Streams and views' });
  if (await panel.isVisible()) await panel.click();
  await page.getByRole('button', { name: 'Browse or create streams' }).click();
  const dialog = page.getByRole('dialog', { name: 'Streams' });
  await dialog.waitFor();
  return dialog;
}

const noSideScroll = async (page: Page, what: string) => {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth), inner: innerWidth }));
  assert.ok(scroll <= inner, `${what}: ${scroll}px wide in a ${inner}px window`);
};

/** Visible controls of the overlay shorter than 40 px (touch targets on a phone). */
const smallTargets = (page: Page) => page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.streams-box button, .streams-box select, .streams-box input[type="search"]')]
  .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height > 0 && e.getBoundingClientRect().height < 40)
  .map((e) => `${e.outerHTML.slice(0, 90)} (${Math.round(e.getBoundingClientRect().height)}px)`));

test('the owner at desktop width: browse, create a private stream, change one, its subscribers, personal settings, archive', { skip: SKIP, timeout: 180_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  const seen = watch(page);
  await signInPage(page, base, t.owner.email, OWNER_PASSWORD);
  const dialog = await openStreams(page);
  // The focus moves into the overlay (its filter box), Escape closes it and the focus returns.
  const filter = dialog.getByLabel('Filter streams');
  await until(() => filter.evaluate((el) => el === document.activeElement), { message: 'focus in the filter box' });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await until(() => page.getByRole('button', { name: 'Browse or create streams' }).evaluate((el) => el === document.activeElement), { message: 'focus back on the opener' });
  await openStreams(page);

  // Browse: the subscribed streams with their counts; the filter narrows them.
  await dialog.getByRole('button', { name: 'general: settings' }).getByText('3 subscribers').waitFor();
  await dialog.getByRole('button', { name: 'lobby: settings' }).getByText('Come in').waitFor();
  await screenshot(page, 'streams-browse');
  assert.deepEqual(await axeProblems(page), [], 'browse: axe');
  // Another joins lobby: its count follows by event.
  assert.equal((await api(bob, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }] })).status, 200);
  await dialog.getByRole('button', { name: 'lobby: settings' }).getByText('2 subscribers').waitFor();
  assert.equal((await api(bob, 'DELETE', '/users/me/subscriptions', { subscriptions: ['lobby'] })).status, 200);
  await dialog.getByRole('button', { name: 'lobby: settings' }).getByText('1 subscriber', { exact: true }).waitFor();
  await filter.fill('lob');
  await until(async () => (await dialog.locator('.streams-list li').count()) === 1, { message: 'the filter leaves lobby alone' });
  await filter.fill('');

  // Create a private stream (protected history) with Alice as a subscriber besides the owner.
  await dialog.getByRole('button', { name: 'Create stream' }).click();
  const form = dialog.getByRole('form', { name: 'Create stream' });
  await form.getByLabel('Stream name').fill('secret plans');
  await form.getByLabel('Stream description').fill('Where the plans are made');
  await form.getByLabel(/^Private, protected history/).check();
  await form.getByLabel('Who can post to the stream?').selectOption({ label: 'Only organization administrators and moderators can post' });
  await form.getByLabel('Choose subscribers').fill('ali');
  await form.getByRole('button', { name: 'Add Alice Smith' }).click();
  await form.getByRole('list', { name: 'Chosen subscribers' }).getByText('Alice Smith').waitFor();
  await screenshot(page, 'streams-create');
  assert.deepEqual(await axeProblems(page), [], 'create: axe');
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await dialog.getByRole('heading', { name: /secret plans/, level: 3 }).waitFor();
  const secret = (await streamsOf(t.owner)).find((s) => s.name === 'secret plans')!;
  assert.ok(secret, 'the stream exists');
  assert.deepEqual([secret.invite_only, secret.history_public_to_subscribers, secret.description, secret.stream_post_policy], [true, false, 'Where the plans are made', 4]);
  assert.deepEqual(await membersOf(secret.stream_id), [t.owner.id, alice.id].sort((a, b) => a - b));
  // A stream of the same name again: the server's words.
  await dialog.getByRole('button', { name: 'Create stream' }).click();
  await form.getByLabel('Stream name').fill('Secret Plans');
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await form.getByRole('alert').waitFor();
  await form.getByRole('button', { name: 'Cancel' }).click();

  // Rename general, its description and who can post.
  await dialog.getByRole('button', { name: 'general: settings' }).click();
  const settings = dialog.getByRole('form', { name: 'General settings of general' });
  await settings.getByLabel('Stream name').fill('town square');
  await settings.getByLabel('Stream description').fill('Everyone, everything');
  await settings.getByLabel('Who can post to the stream?').selectOption({ label: 'Only organization administrators can post' });
  // The owner's retention period: 30 days.
  await settings.getByLabel('Messages are kept').selectOption({ label: 'Custom period' });
  await settings.getByLabel('Retention period (days)').fill('30');
  await screenshot(page, 'streams-settings');
  assert.deepEqual(await axeProblems(page), [], 'settings: axe');
  await settings.getByRole('button', { name: 'Save changes' }).click();
  // The form follows the event: its name is the new one.
  await dialog.getByRole('form', { name: 'General settings of town square' }).getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  const renamed = (await streamsOf(t.owner)).find((s) => s.stream_id === general)!;
  assert.deepEqual([renamed.name, renamed.description, renamed.stream_post_policy, (renamed as ApiStream & { message_retention_days: number | null }).message_retention_days], ['town square', 'Everyone, everything', 2, 30]);
  await page.locator('.left-sidebar').getByText('town square').waitFor();

  // Subscribers of secret plans: add Bob, remove Alice.
  await dialog.getByRole('button', { name: 'secret plans: settings' }).click();
  await dialog.getByRole('tab', { name: 'Subscribers' }).click();
  await dialog.getByRole('heading', { name: '2 subscribers', level: 4 }).waitFor();
  await dialog.getByLabel('Add subscribers').fill(bob.email);
  await dialog.getByRole('button', { name: 'Add Bob Jones' }).click();
  await dialog.getByRole('status').filter({ hasText: 'Bob Jones is now subscribed.' }).waitFor();
  await dialog.getByRole('heading', { name: '3 subscribers', level: 4 }).waitFor();
  assert.ok((await membersOf(secret.stream_id)).includes(bob.id), 'Bob subscribed');
  await screenshot(page, 'streams-subscribers');
  assert.deepEqual(await axeProblems(page), [], 'subscribers: axe');
  await dialog.getByRole('button', { name: 'Unsubscribe Alice Smith' }).click();
  await dialog.getByRole('status').filter({ hasText: 'Alice Smith was unsubscribed.' }).waitFor();
  assert.deepEqual(await membersOf(secret.stream_id), [t.owner.id, bob.id].sort((a, b) => a - b));

  // Personal settings (reached by the arrow keys from Subscribers): pin and mute, through subscription properties.
  await dialog.getByRole('tab', { name: 'Subscribers' }).focus();
  await page.keyboard.press('ArrowLeft');
  await until(() => dialog.getByRole('tab', { name: 'Personal' }).evaluate((el) => el === document.activeElement && el.getAttribute('aria-selected') === 'true'), { message: 'the arrow key chose Personal' });
  await dialog.getByLabel('Pin stream to top of left sidebar').check();
  await dialog.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  await dialog.getByLabel('Mute stream').check();
  await until(async () => {
    const sub = ((await api(t.owner, 'GET', '/users/me/subscriptions')).body.subscriptions as Array<{ stream_id: number; pin_to_top: boolean; is_muted: boolean }>).find((s) => s.stream_id === secret.stream_id)!;
    return sub.pin_to_top && sub.is_muted;
  }, { message: 'pinned and muted' });
  await screenshot(page, 'streams-personal');
  assert.deepEqual(await axeProblems(page), [], 'personal: axe');

  // Archive "old", confirmed.
  await dialog.getByRole('button', { name: 'old: settings' }).click();
  await dialog.getByRole('button', { name: 'Archive stream' }).click();
  await dialog.getByRole('group', { name: 'Archive #old?' }).getByRole('button', { name: 'Confirm' }).click();
  await dialog.getByRole('button', { name: 'old: settings' }).waitFor({ state: 'detached' });
  assert.equal((await streamsOf(t.owner)).some((s) => s.stream_id === old), false, 'old is archived');
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.dialogs, []);
});

test('a member at 360 px: subscribe and unsubscribe from All streams, no administrators\' controls', { skip: SKIP, timeout: 120_000 }, async () => {
  // Only administrators may create private streams: the member's form offers Public alone.
  assert.equal((await api(t.owner, 'PATCH', '/realm', { create_private_stream_policy: 2 })).status, 200);
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, alice.email, PASSWORD);
  const dialog = await openStreams(page);
  await dialog.getByRole('button', { name: 'town square: settings' }).waitFor();
  await noSideScroll(page, 'the streams list');
  assert.deepEqual(await smallTargets(page), []);
  await screenshot(page, 'streams-360-browse');
  assert.deepEqual(await axeProblems(page), [], '360 browse: axe');

  // All streams: lobby, subscribed to and left again.
  await dialog.getByRole('tab', { name: 'All streams' }).click();
  // A private stream she left: listed, but only its subscribers can add her back.
  await dialog.getByRole('button', { name: 'secret plans: settings' }).waitFor();
  assert.equal(await dialog.getByRole('button', { name: 'Subscribe to secret plans' }).count(), 0);
  await dialog.getByRole('button', { name: 'Subscribe to lobby' }).click();
  await dialog.getByRole('button', { name: 'Unsubscribe from lobby' }).waitFor();
  assert.ok((await subscribedIds(alice)).includes(lobby), 'Alice subscribed to lobby');
  await dialog.getByRole('button', { name: 'lobby: settings' }).getByText('2 subscribers').waitFor();
  await screenshot(page, 'streams-360-all');
  await dialog.getByRole('button', { name: 'Unsubscribe from lobby' }).click();
  await dialog.getByRole('button', { name: 'Subscribe to lobby' }).waitFor();
  assert.equal((await subscribedIds(alice)).includes(lobby), false, 'Alice left lobby');

  // A stream's settings, full screen: read only, no archive, nobody else's unsubscribe button.
  await dialog.getByRole('button', { name: 'town square: settings' }).click();
  await until(() => dialog.getByRole('button', { name: 'Back to streams' }).evaluate((el) => el === document.activeElement), { message: 'focus on Back to streams' });
  await dialog.getByText(/^Only organization administrators (and channel administrators )?can change these settings\.$/).waitFor();
  assert.equal(await dialog.locator('.streams-left').isVisible(), false, 'the list gives way to the settings');
  assert.equal(await dialog.getByRole('button', { name: 'Save changes' }).count(), 0);
  assert.equal(await dialog.getByRole('button', { name: 'Archive stream' }).count(), 0);
  assert.equal(await dialog.getByLabel('Stream name').count(), 0);
  await noSideScroll(page, 'a stream\'s settings');
  assert.deepEqual(await smallTargets(page), []);
  await screenshot(page, 'streams-360-settings');
  assert.deepEqual(await axeProblems(page), [], '360 settings: axe');
  await dialog.getByRole('tab', { name: 'Subscribers' }).click();
  await dialog.getByRole('heading', { name: '3 subscribers', level: 4 }).waitFor();
  assert.equal(await dialog.getByRole('button', { name: 'Unsubscribe Bob Jones' }).count(), 0);
  await dialog.getByRole('button', { name: 'Unsubscribe Alice Smith' }).waitFor();
  await screenshot(page, 'streams-360-subscribers');
  assert.deepEqual(await axeProblems(page), [], '360 subscribers: axe');
  // The API agrees: a member may not rename the stream.
  assert.equal((await api(alice, 'PATCH', `/streams/${general}`, { new_name: 'mine' })).status, 400);
  // Back by keyboard: the focus returns to the stream's row.
  await dialog.getByRole('button', { name: 'Back to streams' }).focus();
  await page.keyboard.press('Enter');
  await until(() => dialog.getByRole('button', { name: 'town square: settings' }).evaluate((el) => el === document.activeElement), { message: 'focus back on the row' });
  // A member creates a public stream (the organization lets members): with no retention setting.
  await dialog.getByRole('button', { name: 'Create stream' }).click();
  const form = dialog.getByRole('form', { name: 'Create stream' });
  assert.equal(await form.getByText('Message retention period').count(), 0);
  assert.equal(await form.getByLabel(/^Private/).count(), 0, 'no private choices');
  await form.getByLabel(/^Public/).waitFor();
  await form.getByLabel('Stream name').fill('alices corner');
  await noSideScroll(page, 'the create form');
  await screenshot(page, 'streams-360-create');
  assert.deepEqual(await axeProblems(page), [], '360 create: axe');
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await dialog.getByRole('heading', { name: /alices corner/, level: 3 }).waitFor();
  assert.ok((await streamsOf(alice)).some((s) => s.name === 'alices corner' && !s.invite_only));
  assert.deepEqual(seen.errors, []);
});

test('from feature level 325, a channel administrator who is a member changes the stream', { skip: SKIP || FEATURE_LEVEL < 325, timeout: 90_000 }, async () => {
  const made = await api(t.owner, 'PATCH', `/streams/${general}`, { can_administer_channel_group: { new: { direct_members: [bob.id], direct_subgroups: [] } } });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const page = await (await browser.newContext()).newPage();
  const seen = watch(page);
  await signInPage(page, base, bob.email, PASSWORD);
  const dialog = await openStreams(page);
  await dialog.getByRole('button', { name: 'town square: settings' }).click();
  const settings = dialog.getByRole('form', { name: 'General settings of town square' });
  await settings.getByLabel('Stream description').fill('Looked after by Bob');
  await settings.getByRole('button', { name: 'Save changes' }).click();
  await settings.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  assert.equal((await streamsOf(t.owner)).find((s) => s.stream_id === general)!.description, 'Looked after by Bob');
  // Not lobby's administrator: read only there.
  await dialog.getByRole('tab', { name: 'All streams' }).click();
  await dialog.getByRole('button', { name: 'lobby: settings' }).click();
  await dialog.getByText(/^Only organization administrators (and channel administrators )?can change these settings\.$/).waitFor();
  await screenshot(page, 'streams-channel-admin');
  assert.deepEqual(await axeProblems(page), []);
  assert.deepEqual(seen.errors, []);
});

test('in German (the user\'s default_language): the stream screens\' strings translated', { skip: SKIP, timeout: 60_000 }, async () => {
  assert.equal((await api(bob, 'PATCH', '/settings', { default_language: 'de' })).status, 200);
  try {
    const page = await (await browser.newContext()).newPage();
    await signInPage(page, base, bob.email, PASSWORD);
    await page.locator('.left-sidebar .section button').first().click();
    const dialog = page.getByRole('dialog', { name: 'Streams' });
    await dialog.getByLabel('Streams filtern').waitFor();
    await dialog.getByRole('tab', { name: 'Alle Streams' }).click();
    await dialog.getByRole('button', { name: 'lobby abonnieren' }).waitFor();
    await dialog.getByRole('button', { name: 'Stream erstellen' }).click();
    await dialog.getByText('Wer hat Zugriff auf den Stream?').waitFor();
    await screenshot(page, 'streams-de-create');
    assert.deepEqual(await axeProblems(page), []);
  } finally {
    await api(bob, 'PATCH', '/settings', { default_language: 'en' });
  }
});

test('leaving a private stream asks first', { skip: SKIP, timeout: 60_000 }, async () => {
  const secret = (await streamsOf(t.owner)).find((s) => s.name === 'secret plans')!.stream_id;
  const page = await (await browser.newContext()).newPage();
  await signInPage(page, base, bob.email, PASSWORD);
  const dialog = await openStreams(page);
  await dialog.getByRole('button', { name: 'Unsubscribe from secret plans' }).click();
  const ask = dialog.getByRole('group', { name: 'Unsubscribe from secret plans?' });
  await ask.getByText('Once you leave this stream, you will not be able to rejoin.').waitFor();
  await screenshot(page, 'streams-leave-private');
  assert.deepEqual(await axeProblems(page), []);
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ask.waitFor({ state: 'detached' });
  assert.ok((await subscribedIds(bob)).includes(secret), 'still subscribed after Cancel');
  await dialog.getByRole('button', { name: 'Unsubscribe from secret plans' }).click();
  await ask.getByRole('button', { name: 'Confirm' }).click();
  await until(async () => !(await subscribedIds(bob)).includes(secret), { message: 'Bob left secret plans' });
});
