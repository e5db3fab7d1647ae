/**
 * The screens added last in issue 23: avatars (with an initials badge when the picture does
 * not load), the full emoji picker (search, categories, custom emoji, keyboard), moving a
 * message to another stream from the editor, and an administrator's invitations screen.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { httpClient, OWNER_PASSWORD, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { postMultipart } from '../helpers/multipart.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let general: number, random: number;
let page: Page;
let seen: ReturnType<typeof watch>;
let png: Buffer;
const PASSWORD = 'screens-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const send = async (as: TestUser, stream: string, topic: string, content: string) => (await api(as, 'POST', '/messages', { type: 'stream', to: stream, topic, content })).body.id as number;
const row = (text: string) => page.locator('.message', { hasText: text });
const gravatarHash = (email: string) => crypto.createHash('md5').update(email.toLowerCase()).digest('hex');

before(async () => {
  if (SKIP) return;
  // Built before the server starts: it serves /assets/ only if web/dist/assets existed then (a fresh checkout has none).
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { ...people('alice').alice, password: PASSWORD }, bob: { ...people('bob').bob, password: PASSWORD } }));
  ({ general: { id: general }, random: { id: random } } = await createStreams(t, { general: [alice, bob, t.owner], random: [alice, bob, t.owner] }));
  base = await t.listen();
  png = await sharp({ create: { width: 16, height: 16, channels: 4, background: '#c33' } }).png().toBuffer();
  await send(bob, 'general', 'avatars', 'A message from Bob');
  await send(alice, 'general', 'avatars', 'A message from Alice');
  browser = await launch();
  page = await (await browser.newContext()).newPage();
  seen = watch(page);
  // No network here: Bob's gravatar is served by the test, every other one fails (as offline).
  await page.route(/^https:\/\/secure\.gravatar\.com\//, (route) => (route.request().url().includes(gravatarHash(bob.email))
    ? route.fulfill({ status: 200, contentType: 'image/png', body: png })
    : route.abort('internetdisconnected')));
  await signInPage(page, base, alice.email, PASSWORD);
});
after(async () => {
  await page?.screenshot({ path: 'test-output/screenshots/screens-last.png' }).catch(() => {});
  await browser?.close();
  await t?.close();
});

test('avatars: the picture when it loads, the initials when it does not, in the feed and the user list', { skip: SKIP, timeout: 60_000 }, async () => {
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/avatars`);
  await row('A message from Bob').waitFor();
  const loaded = (scope: string) => until(() => page.evaluate((sel) => {
    const img = document.querySelector<HTMLImageElement>(sel);
    return img !== null && img.complete && img.naturalWidth === 16;
  }, scope), { message: `an image loaded at ${scope}` });
  await loaded('.message .sender-line img.avatar');
  await row('A message from Alice').locator('.avatar.initials', { hasText: 'AS' }).waitFor();
  assert.equal(await row('A message from Bob').locator('.avatar.initials').count(), 0);
  const users = page.locator('.right-sidebar');
  await users.locator('.nav-link', { hasText: 'Alice Smith' }).locator('.avatar.initials', { hasText: 'AS' }).waitFor();
  await users.locator('.nav-link', { hasText: 'Bob Jones' }).locator('img.avatar').waitFor();
  await users.locator('.nav-link', { hasText: 'Bob Jones' }).locator('img.avatar').evaluate((img: HTMLImageElement) => img.decode());
  await screenshot(page, 'avatars');
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('the emoji picker: every emoji by category, search by any of its names, custom emoji, keyboard only', { skip: SKIP, timeout: 60_000 }, async () => {
  assert.equal((await postMultipart(t, '/api/v1/realm/emoji/party_parrot', t.owner, [{ field: 'f', filename: 'p.png', content: png }])).status, 200);
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/avatars`);
  const bobs = row('A message from Bob');
  await bobs.hover();
  await bobs.getByRole('button', { name: 'Add reaction' }).click();
  const picker = page.getByRole('dialog', { name: 'Add a reaction' });
  const search = picker.getByRole('searchbox', { name: 'Search emoji' });
  await until(() => search.evaluate((el) => el === document.activeElement), { message: 'the search box has the focus' });
  // Zulip's popular emoji first; every category of the catalog, and Custom for the organization's own.
  assert.deepEqual(await picker.locator('.emoji-grid .emoji-choice').evaluateAll((b) => b.map((x) => x.getAttribute('aria-label'))), ['+1', 'tada', 'smile', 'heart', 'working_on_it', 'octopus']);
  const categories = picker.getByRole('group', { name: 'Categories' }).getByRole('button');
  await until(async () => (await categories.count()) === 10, { message: 'the catalog arrived' });
  assert.deepEqual(await categories.allInnerTexts(), ['Popular', 'Smileys & People', 'Animals & Nature', 'Food & Drink', 'Activity', 'Travel & Places', 'Objects', 'Symbols', 'Flags', 'Custom']);
  let total = 0;
  for (const name of ['Smileys & People', 'Animals & Nature', 'Food & Drink', 'Activity', 'Travel & Places', 'Objects', 'Symbols', 'Flags']) {
    await categories.filter({ hasText: new RegExp(`^${name}$`) }).click();
    await picker.getByRole('group', { name }).waitFor();
    total += await picker.locator('.emoji-grid .emoji-choice').count();
  }
  // Every emoji the server has a name for (src/emoji/catalog.ts, from the server's own table).
  const { emojiCatalog } = await import('../../src/emoji/catalog.js');
  assert.equal(total, emojiCatalog().emoji.length);
  assert.ok(total > 1500, `${total} emoji`);
  await categories.filter({ hasText: /^Flags$/ }).click();
  await picker.getByRole('button', { name: 'jp', exact: true }).waitFor();
  await categories.filter({ hasText: /^Custom$/ }).click();
  await picker.getByRole('button', { name: 'party_parrot' }).locator('img').waitFor();
  await screenshot(page, 'emoji-picker');
  assert.deepEqual(await axeProblems(page), []);

  // Search finds an emoji by an alias (Zulip's name table: "thumbs_up" is +1) and by a word of its name.
  await search.fill('thumbs_up');
  assert.equal(await picker.locator('.emoji-choice').first().getAttribute('aria-label'), 'thumbs_up');
  await search.fill('octo');
  await picker.getByRole('button', { name: 'octopus' }).waitFor();
  await search.fill('zzzz-nothing');
  await picker.getByText('No emoji match.').waitFor();
  // Keyboard: type, arrow into the results, move right, Enter picks; the picker closes.
  await search.fill('heart');
  await search.press('ArrowDown');
  const second = await picker.locator('.emoji-choice').nth(1).getAttribute('aria-label');
  await page.keyboard.press('ArrowRight');
  await until(() => picker.locator('.emoji-choice').nth(1).evaluate((el) => el === document.activeElement), { message: 'the second result has the focus' });
  await page.keyboard.press('Enter');
  await bobs.getByRole('button', { name: `${second}: 1` }).waitFor();
  await until(async () => (await picker.count()) === 0, { message: 'the picker closes once used' });
  // A custom emoji as a reaction, found by search; Esc closes and gives the focus back.
  await bobs.hover();
  await bobs.getByRole('button', { name: 'Add reaction' }).click();
  await search.fill('party_p');
  await search.press('Enter');
  await bobs.getByRole('button', { name: 'party_parrot: 1' }).locator('img').waitFor();
  await bobs.hover();
  await bobs.getByRole('button', { name: 'Add reaction' }).click();
  await until(() => search.evaluate((el) => el === document.activeElement), { message: 'the search box has the focus again' });
  await page.keyboard.press('Escape');
  await until(async () => (await picker.count()) === 0, { message: 'Esc closes the picker' });
  await until(() => bobs.getByRole('button', { name: 'Add reaction' }).evaluate((el) => el === document.activeElement), { message: 'the focus is back on the button' });
  const reactions = (await api(alice, 'GET', `/messages/${await bobs.getAttribute('data-id')}`)).body.message.reactions;
  assert.deepEqual(reactions.map((r: any) => [r.emoji_name, r.reaction_type]).sort(), [[second, 'unicode_emoji'], ['party_parrot', 'realm_emoji']].sort());
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('a message moves to another stream from the editor (PATCH stream_id and propagate_mode)', { skip: SKIP, timeout: 60_000 }, async () => {
  await send(alice, 'general', 'moving', 'Stays here');
  const id = await send(alice, 'general', 'moving', 'Off to random');
  await send(alice, 'general', 'moving', 'After it');
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/moving`);
  await row('Off to random').waitFor();
  await row('Off to random').hover();
  await row('Off to random').getByRole('button', { name: 'Edit' }).click();
  const editor = page.locator('.editor');
  await until(async () => (await editor.getByLabel('Message', { exact: true }).inputValue()) === 'Off to random', { message: 'raw content loaded' });
  await editor.getByLabel('Stream').selectOption({ label: '#random' });
  // The API takes no content change with a stream change: the text is locked meanwhile.
  assert.equal(await editor.getByLabel('Message', { exact: true }).isDisabled(), true);
  await editor.getByLabel('Move which messages').selectOption('change_later');
  // The organization lets only administrators move messages between streams (Zulip's default): refused, said so.
  await editor.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').filter({ hasText: "You don't have permission to move this message" }).waitFor();
  await setRealmSettings(t, { move_messages_between_streams_policy: 1 });
  await editor.getByRole('button', { name: 'Save' }).click();
  await until(async () => (await row('Off to random').count()) === 0 && (await row('After it').count()) === 0, { message: 'the moved messages leave the view' });
  assert.equal(await row('Stays here').count(), 1);
  const moved = (await api(alice, 'GET', `/messages/${id}`)).body.message;
  assert.deepEqual([moved.stream_id, moved.subject, moved.content], [random, 'moving', '<p>Off to random</p>']);
  await page.goto(`${base}/#narrow/stream/${random}-random/topic/moving`);
  await row('After it').waitFor();

  // Someone else's message: moved (not edited) with the Move button.
  await send(bob, 'random', 'moving', 'Bob wrote this');
  await row('Bob wrote this').hover();
  assert.equal(await row('Bob wrote this').getByRole('button', { name: 'Edit' }).count(), 0);
  await row('Bob wrote this').getByRole('button', { name: 'Move' }).click();
  assert.equal(await editor.getByLabel('Message', { exact: true }).count(), 0);
  await editor.getByLabel('Stream').selectOption({ label: '#general' });
  await editor.getByRole('button', { name: 'Move' }).click();
  await until(async () => (await row('Bob wrote this').count()) === 0, { message: 'Bob\'s message leaves' });
  assert.deepEqual(seen, { errors: [], dialogs: [] });
});

test('invitations: only administrators see the screen; invite by email with a role and streams, resend, revoke, a reusable link', { skip: SKIP, timeout: 60_000 }, async () => {
  await page.goto(`${base}/`);
  await page.locator('.app').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Invite people' }).count(), 0, 'Alice is no administrator');

  const ctx = await browser.newContext();
  const admin = await ctx.newPage();
  const aseen = watch(admin);
  await signInPage(admin, base, t.owner.email, OWNER_PASSWORD);
  await admin.getByRole('button', { name: 'Invite people' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Invite people' });
  await dialog.getByText('No pending invitations.').waitFor();
  await dialog.getByLabel(/Email addresses/).fill('carol@parley.test, dave@parley.test');
  await dialog.getByLabel('Invite as').selectOption({ label: 'Moderator' });
  await dialog.getByLabel('#random').check();
  await dialog.getByRole('button', { name: 'Send invitations' }).click();
  await dialog.getByText('Invitations sent.').waitFor();
  await dialog.getByRole('cell', { name: 'carol@parley.test', exact: true }).waitFor();
  const sent = (await api(t.owner, 'GET', '/invites')).body.invites as Array<{ id: number; email: string; invited_as: number }>;
  assert.deepEqual(sent.map((i) => [i.email, i.invited_as]).sort(), [['carol@parley.test', 300], ['dave@parley.test', 300]]);

  await dialog.getByRole('button', { name: 'Resend to carol@parley.test' }).click();
  await dialog.getByText('Invitation sent again to carol@parley.test.').waitFor();
  await dialog.getByRole('button', { name: 'Revoke dave@parley.test' }).click();
  await until(async () => (await dialog.getByRole('cell', { name: 'dave@parley.test', exact: true }).count()) === 0, { message: 'the revoked invitation leaves the list' });
  assert.deepEqual(((await api(t.owner, 'GET', '/invites')).body.invites as Array<{ email: string }>).map((i) => i.email), ['carol@parley.test']);

  // A refusal is shown as the API words it.
  await dialog.getByLabel(/Email addresses/).fill('not an address');
  await dialog.getByRole('button', { name: 'Send invitations' }).click();
  await dialog.locator('.error[role="status"]').waitFor();

  await dialog.getByRole('button', { name: 'Make a reusable link' }).click();
  const link = dialog.getByLabel('Reusable invitation link');
  await link.waitFor();
  assert.match(await link.inputValue(), /\/join\/[^/]+\/?$/);
  await dialog.getByRole('cell', { name: 'Reusable link', exact: true }).waitFor();
  await screenshot(admin, 'invites');
  assert.deepEqual(await axeProblems(admin), []);
  await dialog.getByRole('button', { name: 'Revoke Reusable link' }).click();
  await until(async () => (await dialog.getByRole('cell', { name: 'Reusable link', exact: true }).count()) === 0, { message: 'the revoked link leaves the list' });
  await admin.keyboard.press('Escape');
  await until(async () => (await dialog.count()) === 0, { message: 'Esc closes the screen' });
  assert.deepEqual(aseen, { errors: [], dialogs: [] });
  await ctx.close();
});
