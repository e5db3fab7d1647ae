/**
 * Personal settings and notifications (issue 35): every section of the settings panel at
 * desktop width and at 360 px, a change in each checked through the API (register's
 * user_settings, the profile, alert words, muted users and topics), another tab's change
 * arriving by event, the language switch to German, the avatar upload, the API key behind the
 * password; then desktop notifications (a recorded Notification), the sound, the count in the
 * title and Zulip's desktop-app bridge.
 */
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { httpClient, people, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

let t: TestApp;
let base: string;
let browser: Browser;
let alice: TestUser, bob: TestUser, carol: TestUser;
let general: number;
let png: Buffer;
const PASSWORD = 'settings-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const registered = async (as: TestUser) => (await api(as, 'POST', '/register', { client_capabilities: { user_settings_object: true } })).body;
const setting = async (as: TestUser, name: string) => (await registered(as)).user_settings[name];
const eventually = (f: () => Promise<boolean>, message: string) => until(f, { message, timeoutMs: 15_000 });

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ alice, bob, carol } = await t.createUsers({
    alice: { ...people('alice').alice, password: PASSWORD },
    bob: { ...people('bob').bob, password: PASSWORD },
    carol: { ...people('carol').carol, password: PASSWORD },
  }));
  ({ general: { id: general } } = await createStreams(t, { general: [alice, bob, carol, t.owner] }));
  base = await t.listen();
  png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#3a7' } }).png().toBuffer();
  await api(t.owner, 'POST', '/realm/profile_fields', { name: 'Team', field_type: 1, hint: 'Your team' });
  browser = await launch();
});
// Every context closes after its test, passed or failed: a page left open (in All messages)
// would read the next test's messages on sight.
const open: BrowserContext[] = [];
const newContext = async (options?: BrowserContextOptions) => {
  const c = await browser.newContext(options);
  open.push(c);
  return c;
};
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => {});
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function openSettings(page: Page, as: TestUser): Promise<ReturnType<Page['getByRole']>> {
  const name = (await api(as, 'GET', '/users/me')).body.full_name as string;
  // On a phone the top bar's text buttons are behind its menu.
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('button', { name, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await until(() => dialog.getByRole('button', { name: 'Profile', exact: true }).evaluate((el) => el === document.activeElement), { message: 'the focus moves into the panel' });
  return dialog;
}

/** Nothing wider than the screen, every control big enough to touch. */
async function fitsPhone(page: Page): Promise<void> {
  const problems = await page.locator('.settings-panel').evaluate((panel) => {
    const out: string[] = [];
    if (panel.scrollWidth > panel.clientWidth + 1) out.push(`panel scrolls sideways: ${panel.scrollWidth} > ${panel.clientWidth}`);
    const section = panel.querySelector('.settings-section')!;
    if (section.scrollWidth > section.clientWidth + 1) out.push(`section scrolls sideways: ${section.scrollWidth} > ${section.clientWidth}`);
    for (const el of panel.querySelectorAll<HTMLElement>('button, select, input:not([type=checkbox]):not([type=radio]):not([type=file]), label.settings-check')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.height < 40) out.push(`${el.tagName} "${el.textContent?.trim().slice(0, 30)}" is ${Math.round(r.height)} px high`);
      if (r.right > window.innerWidth + 1) out.push(`${el.tagName} "${el.textContent?.trim().slice(0, 30)}" leaves the screen`);
    }
    return out;
  });
  assert.deepEqual(problems, []);
}

/** Every section, a change in each through the screen, checked through the API. */
async function everySection(page: Page, as: TestUser, tag: string, phone: boolean): Promise<void> {
  const dialog = await openSettings(page, as);
  const section = async (name: string) => {
    await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name, exact: true }).click();
    await dialog.getByRole('heading', { level: 3, name, exact: true }).waitFor();
    if (phone) await fitsPhone(page);
    assert.deepEqual(await axeProblems(page), [], `axe, ${name} (${tag})`);
  };
  const saved = () => dialog.getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();

  // Profile: the name, a custom profile field, the avatar.
  await section('Profile');
  const newName = `${((await api(as, 'GET', '/users/me')).body.full_name as string).split(' ')[0]} ${tag}`;
  await dialog.getByLabel('Full name').fill(newName);
  await dialog.getByRole('button', { name: 'Save name' }).click();
  await saved();
  await eventually(async () => (await api(as, 'GET', '/users/me')).body.full_name === newName, 'the name is saved');
  // The top bar's button shows the new name (on a phone it is inside the closed menu: attached, not visible).
  await page.locator('.top-actions button', { hasText: newName }).waitFor({ state: 'attached' });
  await dialog.getByLabel('Team').fill(`Team ${tag}`);
  await dialog.getByRole('button', { name: 'Save profile' }).click();
  await saved();
  const fields = (await api(as, 'GET', `/users/${as.id}`, { include_custom_profile_fields: true })).body.user.profile_data;
  assert.deepEqual(Object.values(fields).map((f: any) => f.value), [`Team ${tag}`]);
  await dialog.locator('#settings-avatar-file').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
  await dialog.getByRole('status').filter({ hasText: 'Avatar uploaded.' }).waitFor();
  const avatar = dialog.locator('.settings-avatar img.avatar');
  await until(async () => /\/user_avatars\//.test((await avatar.getAttribute('src').catch(() => null)) ?? ''), { message: 'the new avatar is shown' });
  await until(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { message: 'the avatar loads' });
  assert.match((await api(as, 'GET', '/users/me')).body.avatar_url, /\/user_avatars\//);
  await screenshot(page, `settings-profile-${tag}`);

  // Account & privacy: the API key behind the password (a wrong one refused), a privacy setting.
  await section('Account & privacy');
  await dialog.getByLabel('Your password').fill('not-my-password');
  await dialog.getByRole('button', { name: 'Get API key' }).click();
  await dialog.getByRole('status').filter({ hasText: 'Password is incorrect.' }).waitFor();
  await dialog.getByLabel('Your password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Get API key' }).click();
  assert.equal(await dialog.getByLabel('Your API key').inputValue(), as.apiKey);
  const presence = dialog.getByLabel('Display my availability to other users');
  const presenceWas = await presence.isChecked();
  await presence.click();
  await saved();
  assert.equal(await setting(as, 'presence_enabled'), !presenceWas);
  await screenshot(page, `settings-account-${tag}`);

  // Preferences: emoji set, time zone, theme, a display setting.
  await section('Preferences');
  await dialog.getByLabel('Emoji theme').selectOption({ label: 'Plain text' });
  await saved();
  await dialog.getByLabel('Time zone').selectOption('Europe/Berlin');
  await saved();
  await dialog.getByLabel('Dark').check();
  await saved();
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(21, 25, 30)');
  await dialog.getByLabel('Show counts for starred messages').click();
  await saved();
  const us = (await registered(as)).user_settings;
  assert.deepEqual([us.emojiset, us.timezone, us.color_scheme, us.starred_message_counts], ['text', 'Europe/Berlin', 2, false]);
  await screenshot(page, `settings-preferences-${tag}`);
  await dialog.getByLabel('Light').check();
  await saved();
  await dialog.getByLabel('Show counts for starred messages').click();
  await saved();

  // Notifications: a switch and the sound.
  await section('Notifications');
  await dialog.getByLabel('Send digest emails when I am away').click();
  await saved();
  await dialog.getByLabel('Notification sound').selectOption({ label: 'Ding' });
  await saved();
  assert.deepEqual([await setting(as, 'enable_digest_emails'), await setting(as, 'notification_sound')], [false, 'ding']);
  // Another tab (here: the API) changes a setting: the panel follows by event.
  await api(as, 'PATCH', '/settings', { enable_digest_emails: true, notification_sound: 'zulip' });
  await until(() => dialog.getByLabel('Send digest emails when I am away').isChecked(), { message: "another tab's change arrives" });
  await until(async () => (await dialog.getByLabel('Notification sound').inputValue()) === 'zulip', { message: 'the sound follows too' });
  await screenshot(page, `settings-notifications-${tag}`);

  // Alert words: add, shown, removed.
  await section('Alert words');
  const word = `pineapple-${tag}`;
  await dialog.getByLabel('New alert word').fill(word);
  await dialog.getByRole('button', { name: 'Add alert word' }).click();
  await dialog.getByRole('listitem').filter({ hasText: word }).waitFor();
  assert.ok((await api(as, 'GET', '/users/me/alert_words')).body.alert_words.includes(word));
  await screenshot(page, `settings-alert-words-${tag}`);
  await dialog.getByRole('button', { name: `Remove alert word ${word}` }).click();
  await dialog.getByRole('listitem').filter({ hasText: word }).waitFor({ state: 'detached' });
  assert.ok(!(await api(as, 'GET', '/users/me/alert_words')).body.alert_words.includes(word));

  // Muted users: mute Carol, then unmute her.
  await section('Muted users');
  await dialog.getByLabel('Mute a user').selectOption({ label: 'Carol King' });
  await dialog.getByRole('button', { name: 'Mute', exact: true }).click();
  await dialog.getByRole('button', { name: 'Unmute Carol King' }).waitFor();
  assert.deepEqual((await registered(as)).muted_users.map((m: any) => m.id), [carol.id]);
  await screenshot(page, `settings-muted-users-${tag}`);
  await dialog.getByRole('button', { name: 'Unmute Carol King' }).click();
  await dialog.getByText('You have not muted anyone.').waitFor();
  assert.deepEqual((await registered(as)).muted_users, []);

  // Muted topics: one muted elsewhere shows up here, and is unmuted from here.
  await section('Muted topics');
  await dialog.getByText('You have not muted any topics.').waitFor();
  assert.equal((await api(as, 'PATCH', '/users/me/subscriptions/muted_topics', { stream_id: general, topic: `noisy ${tag}`, op: 'add' })).status, 200);
  const unmute = dialog.getByRole('button', { name: `Unmute noisy ${tag} in general` });
  await unmute.waitFor();
  await screenshot(page, `settings-muted-topics-${tag}`);
  await unmute.click();
  await dialog.getByText('You have not muted any topics.').waitFor();
  const after = await registered(as);
  assert.deepEqual([after.muted_topics ?? [], (after.user_topics ?? []).filter((x: any) => x.visibility_policy === 1)], [[], []]);

  // The keyboard stays inside: Shift+Tab from the first control goes to the last, Tab back to the first.
  await dialog.getByRole('button', { name: 'Close settings' }).focus();
  await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('.settings-panel') !== null), true);
  // Esc closes the panel; the focus goes back to the button that opened it.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  // The opener, or on a phone (where the opener is in the top bar's closed menu) the menu's button.
  await until(() => page.evaluate((name) => {
    const el = document.activeElement as HTMLElement | null;
    return !!el && ((el.textContent === name && el.closest('.top-actions') !== null) || el.classList.contains('panel-toggle'));
  }, newName), { message: 'the focus returns to the opener' });
}

test('settings at desktop width: every section, each change saved and checked through the API', { skip: SKIP, timeout: 120_000 }, async () => {
  const context = await newContext();
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, alice.email, PASSWORD);
  await everySection(page, alice, 'desktop', false);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await context.close();
});

test('settings at 360 px: every section fits the screen, touchable, each change saved', { skip: SKIP, timeout: 120_000 }, async () => {
  const context = await newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, bob.email, PASSWORD);
  await everySection(page, bob, 'phone', true);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await context.close();
});

test('the language setting switches the app to German at once, and back', { skip: SKIP, timeout: 60_000 }, async () => {
  const context = await newContext();
  const page = await context.newPage();
  const seen = watch(page);
  await signInPage(page, base, carol.email, PASSWORD);
  const dialog = await openSettings(page, carol);
  await dialog.getByRole('button', { name: 'Preferences', exact: true }).click();
  await dialog.getByLabel('Language').selectOption('de');
  const german = page.getByRole('dialog', { name: 'Einstellungen' });
  await german.getByRole('heading', { name: 'Präferenzen' }).waitFor();
  await german.getByRole('button', { name: 'Benachrichtigungen' }).waitFor();
  await german.getByLabel('Zeitzone').waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  assert.equal(await setting(carol, 'default_language'), 'de');
  await german.getByRole('button', { name: 'Benachrichtigungen' }).click();
  await german.getByText('Desktop-Benachrichtigungen für Direktnachrichten, Erwähnungen und Alarmwörter').waitFor();
  await screenshot(page, 'settings-german');
  assert.deepEqual(await axeProblems(page), []);
  // A reload stays German (register's default_language), and so does another tab's view.
  await page.reload();
  await page.locator('.app').waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  // Back to English from another client: the page follows by event.
  await api(carol, 'PATCH', '/settings', { default_language: 'en' });
  await until(async () => (await page.getAttribute('html', 'lang')) === 'en', { message: 'English again' });
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await context.close();
});

/** A recording Notification (its permission asked only by the button), AudioContext and desktop-app bridge. */
const STUBS = (withBridgeNotifications: boolean) => `
  window.__notes = []; window.__asked = 0; window.__tones = 0; window.__bridge = []; window.__bridgeNotes = [];
  class RecordingNotification {
    static permission = 'default';
    static requestPermission() { window.__asked++; RecordingNotification.permission = 'granted'; return Promise.resolve('granted'); }
    constructor(title, options) { window.__notes.push({ title, body: options.body, tag: options.tag }); }
    close() {}
    addEventListener() {}
  }
  window.Notification = RecordingNotification;
  window.AudioContext = class {
    currentTime = 0; destination = {};
    createOscillator() { window.__tones++; return { frequency: {}, connect: (g) => g, start() {}, stop() {} }; }
    createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (d) => d }; }
  };
  window.electron_bridge = { send_event: (name, ...args) => { window.__bridge.push([name, ...args]); return true; } };
  if (${withBridgeNotifications}) window.electron_bridge.new_notification = (title, options) => { window.__bridgeNotes.push({ title, body: options.body }); return { close() {} }; };
`;

async function notifiedPage(context: BrowserContext, as: TestUser): Promise<Page> {
  const page = await context.newPage();
  await signInPage(page, base, as.email, PASSWORD);
  // A view the direct messages are not in: what arrives there is notified (Zulip does not
  // notify a message in the focused view, which is read on sight).
  await page.goto(`${base}/#narrow/stream/${general}-general/topic/quiet`);
  await page.getByRole('heading', { name: '#general > quiet' }).waitFor();
  await page.getByText('No messages here yet.').waitFor();
  return page;
}

test('notifications: permission from a button, a direct message notified with a sound, the count in the title and to the desktop app; muted users, settings and "none" followed', { skip: SKIP, timeout: 120_000 }, async () => {
  const context = await newContext();
  await context.grantPermissions(['notifications'], { origin: base });
  await context.addInitScript(STUBS(false));
  const page = await notifiedPage(context, alice);
  const seen = watch(page);
  const get = <T>(name: string) => page.evaluate((n) => (window as unknown as Record<string, T>)[n]!, name);

  // Never asked on load: a visible button asks.
  assert.equal(await get<number>('__asked'), 0);
  const banner = page.getByRole('region', { name: 'Desktop notifications' });
  await banner.getByRole('button', { name: 'Enable desktop notifications' }).waitFor();
  await screenshot(page, 'notifications-permission-banner');
  assert.deepEqual(await axeProblems(page), []);
  await banner.getByRole('button', { name: 'Enable desktop notifications' }).click();
  await banner.waitFor({ state: 'detached' });
  assert.equal(await get<number>('__asked'), 1);
  assert.doesNotMatch(await page.title(), /^\(/, 'nothing unread yet');
  assert.match(await page.title(), / - Parley$|^Parley$/);

  // Bob's direct message: notified, a tone, "(1) …" in the title, and 1 to the desktop app.
  await api(bob, 'POST', '/messages', { type: 'private', to: JSON.stringify([alice.id]), content: 'Lunch at **noon**?' });
  await until(async () => (await get<unknown[]>('__notes')).length === 1, { message: 'a notification' });
  const bobName = (await api(bob, 'GET', '/users/me')).body.full_name as string;
  assert.deepEqual(await get('__notes'), [{ title: `${bobName} (to you)`, body: 'Lunch at noon?', tag: (await get<any[]>('__notes'))[0].tag }]);
  assert.ok((await get<number>('__tones')) > 0, 'a sound played');
  await until(async () => /^\(1\) /.test(await page.title()), { message: 'the count in the title' });
  assert.deepEqual((await get<unknown[][]>('__bridge')).at(-1), ['total_unread_count', 1]);
  await screenshot(page, 'notifications-title');
  assert.deepEqual(await axeProblems(page), []);

  // A mention in a stream notifies too; an ordinary stream message does not (stream notifications off).
  await api(carol, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'Nothing for anyone' });
  await api(carol, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: `Hey @**${(await api(alice, 'GET', '/users/me')).body.full_name}**` });
  await until(async () => (await get<unknown[]>('__notes')).length === 2, { message: 'the mention notified' });
  assert.match((await get<any[]>('__notes'))[1].title, /^Carol King \(#general > plans\)$/);
  let title = '';
  await until(async () => /^\(3\) /.test(title = await page.title()), { message: 'three unread' }).catch((e: Error) => assert.fail(`${e.message}: ${title}`));

  // A muted topic leaves the count (and the desktop app's badge), and comes back when unmuted.
  await api(alice, 'PATCH', '/users/me/subscriptions/muted_topics', { stream_id: general, topic: 'plans', op: 'add' });
  await until(async () => /^\(1\) /.test(await page.title()), { message: 'the muted topic is not counted' });
  assert.deepEqual((await get<unknown[][]>('__bridge')).at(-1), ['total_unread_count', 1]);
  await api(alice, 'PATCH', '/users/me/subscriptions/muted_topics', { stream_id: general, topic: 'plans', op: 'remove' });
  await until(async () => /^\(3\) /.test(await page.title()), { message: 'counted again once unmuted' });

  // A muted user's message: nothing.
  await api(alice, 'POST', `/users/me/muted_users/${bob.id}`);
  await api(bob, 'POST', '/messages', { type: 'private', to: JSON.stringify([alice.id]), content: 'Muted me' });
  await api(carol, 'POST', '/messages', { type: 'private', to: JSON.stringify([alice.id]), content: 'After the muted one' });
  await until(async () => (await get<unknown[]>('__notes')).length === 3, { message: "Carol's message notified" });
  const bodies = (await get<any[]>('__notes')).map((n) => n.body as string);
  assert.deepEqual([bodies[0], bodies[2]], ['Lunch at noon?', 'After the muted one']);
  assert.ok(!(await get<any[]>('__notes')).some((n) => n.body === 'Muted me'));

  // Desktop notifications off and the sound "none": the count still grows, nothing pops up or plays.
  await api(alice, 'PATCH', '/settings', { enable_desktop_notifications: false, notification_sound: 'none' });
  const tones = await get<number>('__tones');
  const before = await page.title();
  await api(carol, 'POST', '/messages', { type: 'private', to: JSON.stringify([alice.id]), content: 'Quietly' });
  await until(async () => (await page.title()) !== before, { message: 'the count grew' });
  assert.equal((await get<unknown[]>('__notes')).length, 3);
  assert.equal(await get<number>('__tones'), tones);

  // The stream's setting (all messages notify) brings stream messages back, and the badge count setting is followed.
  // "None" is 3 before feature level 227, 4 from it.
  const none = (await registered(alice)).zulip_feature_level >= 227 ? 4 : 3;
  await api(alice, 'PATCH', '/settings', { enable_stream_desktop_notifications: true, desktop_icon_count_display: none });
  await api(carol, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'For the whole stream' });
  await until(async () => (await get<unknown[]>('__notes')).length === 4, { message: 'a stream message notified' });
  await until(async () => !(await page.title()).startsWith('('), { message: 'no count when the setting says none' });
  assert.deepEqual((await get<unknown[][]>('__bridge')).at(-1), ['total_unread_count', 0]);
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await context.close();
});

test("Zulip's desktop app: notifications through electron_bridge.new_notification, the unread count through send_event", { skip: SKIP, timeout: 60_000 }, async () => {
  const context = await newContext();
  await context.addInitScript(STUBS(true));
  const page = await notifiedPage(context, carol);
  const seen = watch(page);
  const get = <T>(name: string) => page.evaluate((n) => (window as unknown as Record<string, T>)[n]!, name);
  // The desktop app shows notifications itself: no banner, no question.
  assert.equal(await page.getByRole('region', { name: 'Desktop notifications' }).count(), 0);
  await api(t.owner, 'POST', '/messages', { type: 'private', to: JSON.stringify([carol.id]), content: 'From the desktop app' });
  await until(async () => (await get<unknown[]>('__bridgeNotes')).length === 1, { message: 'the bridge notified' });
  assert.equal((await get<any[]>('__bridgeNotes'))[0].body, 'From the desktop app');
  assert.equal((await get<unknown[]>('__notes')).length, 0, 'not through the browser as well');
  // The badge is Carol's unread count as the server has it (earlier tests may have left her others).
  const unread = (await api(carol, 'POST', '/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs.count as number;
  assert.ok(unread >= 1);
  await until(async () => JSON.stringify((await get<unknown[][]>('__bridge')).at(-1)) === JSON.stringify(['total_unread_count', unread]), { message: 'the badge count' });
  await screenshot(page, 'notifications-desktop-app');
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await context.close();
});
