/**
 * Issue 35, for every member: attaching files to a message (button, paste, drop) with
 * progress and the link at the caret; quote and reply in Zulip's form; a preview equal to
 * the sent rendering; each action of a message's menu (copy link, mark unread from here,
 * star, follow / mute / resolve its topic, move, edit history, read receipts) verified through
 * the API; the organization's policies refusing with the API's message; desktop and 360 px.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { FEATURE_LEVEL, httpClient, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser;
let general: number;
let context: BrowserContext;
let page: Page;
let seen: ReturnType<typeof watch>;
const PASSWORD = 'compose-password-1';
const UPLOAD_LINK = /\[([^\]]+)\]\((\/user_uploads\/[^)\s]+)\)/;

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const send = async (as: TestUser, topic: string, content: string) => (await api(as, 'POST', '/messages', { type: 'stream', to: 'general', topic, content })).body.id as number;
const message = async (id: number) => (await api(alice, 'GET', `/messages/${id}`, { apply_markdown: false })).body;
const row = (p: Page, text: string) => p.locator('.message', { hasText: text });
const composeBox = (p: Page) => p.getByRole('form', { name: 'Compose' }).getByRole('textbox', { name: 'Message' });

async function openTopic(p: Page, topic: string): Promise<void> {
  await p.goto(`${base}/#narrow/stream/${general}-general/topic/${encodeURIComponent(topic)}`);
  await p.getByRole('heading', { name: `#general > ${topic}` }).waitFor();
}

/** Opens the compose box on the topic, its text empty. */
async function composeIn(p: Page, topic: string): Promise<void> {
  await openTopic(p, topic);
  if (await composeBox(p).count() === 0) await p.getByRole('button', { name: 'New topic' }).click();
  await composeBox(p).fill('');
}

/** A message's actions menu, opened by its button; the first item has focus. */
async function menuOf(p: Page, text: string) {
  const r = row(p, text);
  await r.hover();
  await r.getByRole('button', { name: 'Message actions' }).click();
  const menu = p.getByRole('menu', { name: 'Message actions' });
  await menu.waitFor();
  return menu;
}

async function choose(p: Page, text: string, action: string): Promise<void> {
  await (await menuOf(p, text)).getByRole('menuitem', { name: action, exact: true }).click();
}

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { ...people('alice').alice, password: PASSWORD }, bob: { ...people('bob').bob, password: PASSWORD } }));
  ({ general: { id: general } } = await createStreams(t, { general: [alice, bob], random: [alice, bob] }));
  base = await t.listen();
  browser = await launch();
  context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  seen = watch(page);
  await signInPage(page, base, alice.email, PASSWORD);
});
after(async () => {
  await page?.screenshot({ path: 'test-output/screenshots/compose-actions-last.png' }).catch(() => {});
  await browser?.close();
  await t?.close();
});

test('attach by button (with progress), by paste and by drop: the link lands at the caret and the file downloads', { skip: SKIP, timeout: 90_000 }, async () => {
  await composeIn(page, 'files');
  const box = composeBox(page);

  // The button: the upload is held until its progress shows.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  await page.route('**/json/user_uploads', async (route) => {
    await held;
    await route.continue();
  });
  await box.fill('see ');
  await page.locator('.compose input[type="file"]').setInputFiles({ name: 'notes one.txt', mimeType: 'text/plain', buffer: Buffer.from('the first file') });
  await page.getByRole('progressbar', { name: 'Uploading notes one.txt…' }).waitFor();
  assert.match(await box.inputValue(), /^see \[Uploading notes one\.txt…\]\(\) $/);
  await screenshot(page, 'compose-upload-progress');
  release();
  await until(async () => UPLOAD_LINK.test(await box.inputValue()), { message: 'the link of the uploaded file' });
  await page.unroute('**/json/user_uploads');
  const first = await box.inputValue();
  assert.match(first, /^see \[notes one\.txt\]\(\/user_uploads\/[^)]+\) $/);
  assert.equal(await page.getByRole('progressbar').count(), 0);

  // Paste at the caret, between two words.
  await box.fill('before after');
  await box.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(7, 7));
  await box.evaluate((el: HTMLTextAreaElement) => {
    const data = new DataTransfer();
    data.items.add(new File(['pasted bytes'], 'pasted.txt', { type: 'text/plain' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await until(async () => UPLOAD_LINK.test(await box.inputValue()), { message: 'the link of the pasted file' });
  const pasted = await box.inputValue();
  assert.match(pasted, /^before \[pasted\.txt\]\(\/user_uploads\/[^)]+\) after$/);

  // Dropped onto the compose box, at the end.
  await box.fill('dropped: ');
  await page.getByRole('form', { name: 'Compose' }).evaluate((form) => {
    const data = new DataTransfer();
    data.items.add(new File(['dropped bytes'], 'dropped.txt', { type: 'text/plain' }));
    form.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    form.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  await until(async () => UPLOAD_LINK.test(await box.inputValue()), { message: 'the link of the dropped file' });
  const dropped = await box.inputValue();
  assert.match(dropped, /^dropped: \[dropped\.txt\]\(\/user_uploads\/[^)]+\) $/);

  // Each file downloads with the page's session; the message sent carries the link.
  for (const [text, bytes] of [[first, 'the first file'], [pasted, 'pasted bytes'], [dropped, 'dropped bytes']] as const) {
    const url = UPLOAD_LINK.exec(text)![2]!;
    const res = await page.request.get(`${base}${url}`);
    assert.equal(res.status(), 200, url);
    assert.equal(await res.text(), bytes);
  }
  await box.press('Enter');
  await row(page, 'dropped:').locator('a', { hasText: 'dropped.txt' }).waitFor();
  const sent = (await api(alice, 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'topic', operand: 'files' }], apply_markdown: false })).body.messages[0];
  assert.equal(sent.content, dropped.trim());
  await screenshot(page, 'compose-uploaded');
  assert.deepEqual(await axeProblems(page), []);
});

test('quote and reply: Zulip\'s quote block with a permanent link, the raw Markdown and a longer fence when needed', { skip: SKIP, timeout: 60_000 }, async () => {
  const raw = 'Where shall we **eat**?\n```\ncode\n```';
  const id = await send(bob, 'lunch', raw);
  await composeIn(page, 'lunch');
  await page.getByRole('button', { name: 'Close compose box' }).click();
  await row(page, 'Where shall we').waitFor();
  await choose(page, 'Where shall we', 'Quote and reply');
  const box = composeBox(page);
  const expected = `@_**Bob Jones|${bob.id}** [said](${base}/#narrow/stream/${general}-general/topic/lunch/near/${id}):\n\`\`\`\`quote\n${raw}\n\`\`\`\`\n`;
  let last = '';
  await until(async () => (last = await box.inputValue()) === expected, { message: () => `the quote, not ${JSON.stringify(last)}` });
  // Aimed at the quoted message's conversation, the caret after the quote.
  assert.equal(await page.getByRole('form', { name: 'Compose' }).getByLabel('Topic', { exact: true }).inputValue(), 'lunch');
  assert.equal(await box.evaluate((el: HTMLTextAreaElement) => el.selectionStart), expected.length);
  await screenshot(page, 'compose-quote');

  // The > key quotes the selected message into what is already written.
  await box.fill('First line');
  await box.press('Escape');
  await row(page, 'Where shall we').click();
  await page.keyboard.press('>');
  await until(async () => (await box.inputValue()) === `First line\n${expected}`, { message: 'the quote after the text' });
  await box.press('Enter');
  await until(async () => (await lastRaw('lunch')) === `First line\n${expected.trimEnd()}`, { message: 'the quote sent' });
});

/** The newest message's id in a topic (0 when it has none yet). */
async function lastId(topic: string): Promise<number> {
  const r = await api(alice, 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'topic', operand: topic }] });
  return r.body.messages[0]?.id ?? 0;
}
const lastRaw = async (topic: string) => {
  const id = await lastId(topic);
  return id ? (await message(id)).raw_content : null;
};

test('the preview is the server\'s rendering, and equals the sent message\'s', { skip: SKIP, timeout: 60_000 }, async () => {
  await composeIn(page, 'preview');
  const content = 'Some **bold**, `code`, a [link](https://example.com) and @**Bob Jones**\n\n> quoted\n\n- one\n- two';
  await composeBox(page).fill(content);
  const rendered = page.waitForResponse((r) => r.url().endsWith('/json/messages/render'));
  await page.getByRole('button', { name: 'Preview' }).click();
  const answer = await (await rendered).json();
  const preview = page.getByLabel('Preview', { exact: true });
  await preview.locator('strong').waitFor();
  const previewHtml = await preview.innerHTML();
  await screenshot(page, 'compose-preview');
  assert.deepEqual(await axeProblems(page), []);
  await page.getByRole('button', { name: 'Send' }).click();
  await until(async () => (await lastRaw('preview')) === content, { message: 'the previewed message sent' });
  const id = await lastId('preview');
  const html = (await api(alice, 'GET', `/messages/${id}`)).body.message.content;
  assert.equal(answer.rendered, html);
  await row(page, 'Some bold').waitFor();
  assert.equal(await page.locator(`.message[data-id="${id}"] .content`).innerHTML(), previewHtml);
});

test('the actions menu: keyboard, copy link, star, mark unread from here, mute and resolve the topic, move', { skip: SKIP, timeout: 120_000 }, async () => {
  const ids = [await send(bob, 'menu', 'Menu one'), await send(bob, 'menu', 'Menu two'), await send(bob, 'menu', 'Menu three')];
  await openTopic(page, 'menu');
  await row(page, 'Menu three').waitFor();
  // Seen, so read.
  await until(async () => (await api(alice, 'GET', '/messages', { anchor: ids[0], num_before: 0, num_after: 3, narrow: [{ operator: 'topic', operand: 'menu' }] })).body.messages.every((m: any) => m.flags.includes('read')), { message: 'the messages read' });

  // Keyboard: i opens the selected message's menu, arrows move, Escape gives focus back.
  await row(page, 'Menu one').click();
  await page.keyboard.press('i');
  const menu = page.getByRole('menu', { name: 'Message actions' });
  await until(async () => (await page.evaluate(() => document.activeElement?.textContent)) === 'Quote and reply', { message: 'focus on the first item' });
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Copy link to message');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'menuitem');
  await screenshot(page, 'message-menu');
  assert.deepEqual(await axeProblems(page), []);
  await page.keyboard.press('Escape');
  await until(async () => (await menu.count()) === 0, { message: 'the menu closed' });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Message actions');

  // Copy link.
  await choose(page, 'Menu one', 'Copy link to message');
  await page.getByRole('alert').filter({ hasText: 'Copied link to message' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${base}/#narrow/stream/${general}-general/topic/menu/near/${ids[0]}`);

  // Star and unstar.
  await choose(page, 'Menu one', 'Star message');
  await until(async () => (await message(ids[0]!)).message.flags.includes('starred'), { message: 'starred' });
  await row(page, 'Menu one').getByRole('button', { name: 'Unstar' }).waitFor();
  await choose(page, 'Menu one', 'Unstar message');
  await until(async () => !(await message(ids[0]!)).message.flags.includes('starred'), { message: 'unstarred' });

  // Mark as unread from the second message: it and the third, not the first, and the view leaves them unread.
  await choose(page, 'Menu two', 'Mark as unread from here');
  const flags = async () => (await api(alice, 'GET', '/messages', { anchor: ids[0], num_before: 0, num_after: 3, narrow: [{ operator: 'topic', operand: 'menu' }] })).body.messages.map((m: any) => m.flags.includes('read'));
  await until(async () => JSON.stringify(await flags()) === '[true,false,false]', { message: 'two unread from the second' });
  await page.locator('.message.unread').nth(1).waitFor();
  // A round trip later (a star set and shown), the visible rows are still unread.
  await choose(page, 'Menu one', 'Star message');
  await row(page, 'Menu one').getByRole('button', { name: 'Unstar' }).waitFor();
  await row(page, 'Menu three').scrollIntoViewIfNeeded();
  await choose(page, 'Menu one', 'Unstar message');
  await row(page, 'Menu one').getByRole('button', { name: 'Star' }).waitFor();
  assert.deepEqual(await flags(), [true, false, false]);
  await screenshot(page, 'marked-unread');

  // Mute and unmute the topic.
  const topicPolicy = async () => {
    const r = await api(alice, 'POST', '/register', { fetch_event_types: ['user_topic', 'muted_topics'] });
    const ut = (r.body.user_topics ?? []).find((x: any) => x.topic_name === 'menu');
    return ut ? ut.visibility_policy : (r.body.muted_topics ?? []).some((x: any) => x[1] === 'menu') ? 1 : 0;
  };
  await choose(page, 'Menu one', 'Mute topic');
  await until(async () => (await topicPolicy()) === 1, { message: 'the topic muted' });
  await until(async () => {
    const offers = await (await menuOf(page, 'Menu one')).getByRole('menuitem', { name: 'Unmute topic' }).count();
    if (!offers) await page.keyboard.press('Escape');
    return offers === 1;
  }, { message: 'the menu offers to unmute' });
  await page.getByRole('menuitem', { name: 'Unmute topic' }).click();
  await until(async () => (await topicPolicy()) === 0, { message: 'the topic unmuted' });
  if (FEATURE_LEVEL >= 219) {
    await choose(page, 'Menu one', 'Follow topic');
    await until(async () => (await topicPolicy()) === 3, { message: 'the topic followed' });
    await choose(page, 'Menu one', 'Unfollow topic');
    await until(async () => (await topicPolicy()) === 0, { message: 'the topic unfollowed' });
  } else {
    assert.equal(await (await menuOf(page, 'Menu one')).getByRole('menuitem', { name: 'Follow topic' }).count(), 0);
    await page.keyboard.press('Escape');
  }

  // Resolve: the whole topic renamed with Zulip's prefix; the view follows it.
  await choose(page, 'Menu one', 'Mark as resolved');
  await until(async () => (await message(ids[2]!)).message.subject === '✔ menu', { message: 'the topic resolved' });
  await openTopic(page, '✔ menu');
  await row(page, 'Menu one').waitFor();
  await choose(page, 'Menu one', 'Mark as unresolved');
  await until(async () => (await message(ids[0]!)).message.subject === 'menu', { message: 'the topic unresolved' });

  // Move one message to another topic.
  await openTopic(page, 'menu');
  await choose(page, 'Menu three', 'Move message');
  await page.locator('.editor').getByRole('textbox', { name: 'Topic' }).fill('elsewhere');
  await page.locator('.editor').getByRole('button', { name: 'Move' }).click();
  await until(async () => (await message(ids[2]!)).message.subject === 'elsewhere', { message: 'the message moved' });
  assert.equal((await message(ids[1]!)).message.subject, 'menu');
  assert.deepEqual(seen.errors, []);
});

test('the organization\'s policy refuses with the API\'s message', { skip: SKIP, timeout: 60_000 }, async () => {
  const id = await send(bob, 'policy', 'Policy message');
  // Moving others' messages between topics: administrators only.
  await setRealmSettings(t, { edit_topic_policy: 2 });
  try {
    const refused = await api(alice, 'PATCH', `/messages/${id}`, { topic: 'policy moved', propagate_mode: 'change_one' });
    assert.equal(refused.status, 400);
    await openTopic(page, 'policy');
    await choose(page, 'Policy message', 'Move message');
    await page.locator('.editor').getByRole('textbox', { name: 'Topic' }).fill('policy moved');
    await page.locator('.editor').getByRole('button', { name: 'Move' }).click();
    await page.getByRole('alert').filter({ hasText: refused.body.msg }).waitFor();
    await page.locator('.editor').getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await message(id)).message.subject, 'policy');
  } finally {
    await setRealmSettings(t, { edit_topic_policy: 5 });
  }
});

test('edit history as Zulip shows it, and read receipts where the level has them', { skip: SKIP, timeout: 60_000 }, async () => {
  const id = await send(alice, 'history', 'The first version');
  await api(alice, 'PATCH', `/messages/${id}`, { content: 'The second version' });
  await api(alice, 'PATCH', `/messages/${id}`, { topic: 'history moved', propagate_mode: 'change_one' });
  await openTopic(page, 'history moved');
  await row(page, 'The second version').locator('.edited').waitFor();
  await choose(page, 'The second version', 'View edit history');
  const dialog = page.getByRole('dialog', { name: 'Message edit history' });
  await dialog.waitFor();
  const items = dialog.locator('.edit-history > li');
  await until(async () => (await items.count()) === 3, { message: 'three versions' });
  assert.match(await items.nth(0).innerText(), /Posted by Alice Smith[\s\S]*The first version/);
  assert.match(await items.nth(1).innerText(), /Edited by Alice Smith[\s\S]*The second version/);
  assert.match(await items.nth(2).innerText(), /Moved by Alice Smith[\s\S]*Topic: history → history moved/);
  await screenshot(page, 'edit-history');
  assert.deepEqual(await axeProblems(page), []);
  await page.keyboard.press('Escape');
  await until(async () => (await dialog.count()) === 0, { message: 'the dialog closed' });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Message actions');

  const menu = await menuOf(page, 'The second version');
  if (FEATURE_LEVEL >= 137) {
    await api(bob, 'POST', '/messages/flags', { messages: [id], op: 'add', flag: 'read' });
    await menu.getByRole('menuitem', { name: 'View read receipts' }).click();
    const receipts = page.getByRole('dialog', { name: 'Read receipts' });
    await receipts.getByText('Bob Jones').waitFor();
    const expected = (await api(alice, 'GET', `/messages/${id}/read_receipts`)).body.user_ids.length;
    await receipts.getByText(`This message has been read by ${expected} ${expected === 1 ? 'person' : 'people'}:`).waitFor();
    await screenshot(page, 'read-receipts');
    assert.deepEqual(await axeProblems(page), []);
    await receipts.getByRole('button', { name: 'Close' }).click();
  } else {
    assert.equal(await menu.getByRole('menuitem', { name: 'View read receipts' }).count(), 0);
    await page.keyboard.press('Escape');
  }
});

test('at 360 px: the menu fits the screen with touch-sized items, and a file attaches by the button', { skip: SKIP, timeout: 60_000 }, async () => {
  const narrow = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const p = await narrow.newPage();
  const phoneSeen = watch(p);
  try {
    await send(bob, 'phone', 'A message for the phone');
    await signInPage(p, base, alice.email, PASSWORD);
    await openTopic(p, 'phone');
    const menu = await menuOf(p, 'A message for the phone');
    const box = (await menu.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 360, `the menu at ${box.x}+${box.width}`);
    for (const item of await menu.getByRole('menuitem').all()) {
      assert.ok((await item.boundingBox())!.height >= 40);
      // On top, not clipped by a pane: the item is what its middle shows.
      assert.ok(await item.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
      }), await item.innerText());
    }
    await screenshot(p, 'message-menu-360');
    assert.deepEqual(await axeProblems(p), []);
    await p.keyboard.press('Escape');

    if (await composeBox(p).count() === 0) await p.getByRole('button', { name: 'New topic' }).click();
    await composeBox(p).fill('');
    const attach = p.getByRole('button', { name: 'Upload files' });
    assert.ok((await attach.boundingBox())!.height >= 40);
    await p.locator('.compose input[type="file"]').setInputFiles({ name: 'phone.txt', mimeType: 'text/plain', buffer: Buffer.from('from a phone') });
    await until(async () => UPLOAD_LINK.test(await composeBox(p).inputValue()), { message: 'the link at 360 px' });
    await screenshot(p, 'compose-upload-360');
    assert.deepEqual(await axeProblems(p), []);
    assert.deepEqual(phoneSeen.errors, []);
  } finally {
    await narrow.close();
  }
});
