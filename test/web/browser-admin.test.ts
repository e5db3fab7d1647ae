/**
 * Issue 35's administration screens: the "Organization" panel (organization profile,
 * settings and permissions, default streams, default user settings, users, bots,
 * integrations) at desktop width as the owner and at 360 px as an administrator, each
 * change checked through the API; a member sees no entry and the API refuses them.
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
let ada: TestUser, alice: TestUser, bob: TestUser;
let general: number;
const PASSWORD = 'admin-screens-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
const realm = async (as: TestUser = t.owner) => (await api(as, 'POST', '/register', { fetch_event_types: ['realm', 'realm_user_settings_defaults', 'realm_bot', 'default_streams', 'realm_user_groups'] })).body;
const bots = async () => (await realm()).realm_bots as Array<{ user_id: number; full_name: string; api_key: string; bot_type: number; owner_id: number; default_sending_stream: string | null; is_active: boolean; services: Array<{ base_url: string; interface: number }> }>;

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ ada, alice, bob } = await t.createUsers({
    ada: { name: 'Ada Admin', role: 200, password: PASSWORD },
    alice: { name: 'Alice Smith', password: PASSWORD },
    bob: { name: 'Bob Jones', password: PASSWORD },
  }));
  ({ general: { id: general } } = await createStreams(t, { general: [ada, alice, bob, t.owner], random: [ada, alice, bob, t.owner], hooks: [t.owner] }));
  base = await t.listen();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function openPanel(page: Page) {
  // On a phone the top bar's text buttons are behind its menu.
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('button', { name: 'Organization' }).click();
  const panel = page.getByRole('dialog', { name: 'Organization' });
  await panel.waitFor();
  return panel;
}

async function tab(page: Page, name: string, shot: string) {
  const panel = page.getByRole('dialog', { name: 'Organization' });
  await panel.getByRole('tab', { name }).click();
  await panel.getByRole('heading', { name, level: 2 }).waitFor();
  await screenshot(page, shot);
  assert.deepEqual(await axeProblems(page), [], `${name}: axe`);
  return panel;
}

test('the owner at desktop width: every screen, each change through the API', { skip: SKIP, timeout: 180_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  const seen = watch(page);
  await signInPage(page, base, t.owner.email, OWNER_PASSWORD);
  const panel = await openPanel(page);
  // The focus moves into the panel, onto the chosen screen's tab; the arrow keys move between tabs.
  await until(() => panel.getByRole('tab', { name: 'Organization profile' }).evaluate((el) => el === document.activeElement), { message: 'focus on the first tab' });
  await page.keyboard.press('ArrowDown');
  await panel.getByRole('heading', { name: 'Organization settings', level: 2 }).waitFor();
  await page.keyboard.press('ArrowUp');

  // Organization profile: the name saves; another administrator's change arrives by event.
  await tab(page, 'Organization profile', 'admin-profile');
  await panel.getByLabel('Organization name').fill('Parley Testers');
  await panel.getByRole('button', { name: 'Save changes' }).first().click();
  await panel.getByRole('status').filter({ hasText: 'Saved' }).first().waitFor();
  assert.equal((await realm()).realm_name, 'Parley Testers');
  await page.locator('.top .brand', { hasText: 'Parley Testers' }).waitFor();
  assert.equal((await api(ada, 'PATCH', '/realm', { description: 'Changed by Ada' })).status, 200);
  await until(async () => (await panel.getByLabel('Organization description').inputValue()) === 'Changed by Ada', { message: 'the description arrives by event' });

  // Organization settings and permissions.
  await tab(page, 'Organization settings', 'admin-settings');
  const previews = panel.getByLabel('Show previews of linked websites');
  const was = await previews.isChecked();
  assert.equal((await realm()).realm_inline_url_embed_preview, was);
  await previews.setChecked(!was);
  await panel.getByRole('form', { name: 'Message feed settings' }).getByRole('button', { name: 'Save changes' }).click();
  await panel.getByRole('form', { name: 'Message feed settings' }).getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  assert.equal((await realm()).realm_inline_url_embed_preview, !was);
  await tab(page, 'Organization permissions', 'admin-permissions');
  // The policy (feature level 122) or, from the levels that have it, the group setting in its place.
  const privateStreams = panel.getByLabel('Who can create private streams');
  const byGroup = (await privateStreams.locator('option', { hasText: 'Administrators' }).count()) > 0;
  await privateStreams.selectOption({ label: byGroup ? 'Administrators' : 'Admins' });
  await panel.getByLabel('Time limit for editing messages').selectOption({ label: '1 hour' });
  await panel.getByLabel('Waiting period before new members turn into full members').fill('3');
  for (const form of ['Stream permissions', 'Messages and editing', 'Joining the organization']) {
    await panel.getByRole('form', { name: form }).getByRole('button', { name: 'Save changes' }).click();
    await panel.getByRole('form', { name: form }).getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  }
  const r = await realm();
  if (byGroup) {
    const admins = (r.realm_user_groups as Array<{ id: number; name: string }>).find((g) => g.name === 'role:administrators')!.id;
    assert.equal(r.realm_can_create_private_channel_group, admins);
  } else assert.equal(r.realm_create_private_stream_policy, 2);
  assert.equal(r.realm_message_content_edit_limit_seconds, 3600);
  assert.equal(r.realm_waiting_period_threshold, 3);
  // The policy holds: a member may no longer create a private stream.
  const refused = await api(alice, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));

  // Default streams.
  await tab(page, 'Default streams', 'admin-default-streams');
  await panel.getByLabel('Stream name').selectOption({ label: '#general' });
  await panel.getByRole('button', { name: 'Add stream' }).click();
  await panel.getByRole('button', { name: 'Remove #general from the default streams' }).waitFor();
  assert.deepEqual((await api(t.owner, 'GET', '/default_streams')).body.default_streams.map((s: { name: string }) => s.name), ['general']);

  // Default user settings.
  await tab(page, 'Default user settings', 'admin-user-defaults');
  await panel.getByLabel('Theme', { exact: true }).selectOption({ label: 'Dark theme' });
  await panel.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  assert.equal((await realm()).realm_user_settings_defaults.color_scheme, 2);

  // Users: search, role, deactivate (confirmed), reactivate, the invitations.
  await tab(page, 'Users', 'admin-users');
  await panel.getByLabel('Search users').fill('bob');
  await until(async () => (await panel.locator('.admin-users > li').count()) === 1, { message: 'the search finds Bob alone' });
  await panel.getByLabel('Role of Bob Jones').selectOption({ label: 'Moderator' });
  await panel.getByRole('status').filter({ hasText: 'Bob Jones is now: Moderator.' }).waitFor();
  assert.equal((await api(t.owner, 'GET', `/users/${bob.id}`)).body.user.role, 300);
  await panel.getByRole('button', { name: 'Deactivate Bob Jones' }).click();
  await panel.getByRole('group', { name: 'Deactivate Bob Jones?' }).getByRole('button', { name: 'Confirm' }).click();
  await panel.getByText('No users match.').waitFor();
  assert.equal((await api(t.owner, 'GET', `/users/${bob.id}`)).body.user.is_active, false);
  await panel.getByLabel('Show').selectOption({ label: 'Deactivated users' });
  await screenshot(page, 'admin-users-deactivated');
  await panel.getByRole('button', { name: 'Reactivate Bob Jones' }).click();
  await panel.getByText('No users match.').waitFor();
  assert.equal((await api(t.owner, 'GET', `/users/${bob.id}`)).body.user.is_active, true);

  // Bots: create each kind, key shown and regenerated, owner and defaults, deactivate.
  await tab(page, 'Bots', 'admin-bots');
  const create = async (type: string, name: string, short: string, extra?: () => Promise<void>) => {
    await panel.getByLabel('Bot type').selectOption({ label: type });
    await panel.getByLabel('Name', { exact: true }).fill(name);
    await panel.getByLabel('Bot email (the part before -bot@)').fill(short);
    await extra?.();
    await panel.getByRole('button', { name: 'Create bot' }).click();
    await panel.getByRole('heading', { name, level: 4 }).waitFor();
  };
  await create('Incoming webhook', 'Hook', 'hook');
  await create('Outgoing webhook', 'Echo', 'echo', async () => {
    await panel.getByLabel('Endpoint URL').fill('https://example.com/echo');
    await panel.getByLabel('Outgoing webhook message format').selectOption({ label: 'Slack\'s outgoing webhooks' });
  });
  await create('Generic', 'Helper', 'helper');
  let list = await bots();
  const hook = list.find((b) => b.full_name === 'Hook')!;
  const echo = list.find((b) => b.full_name === 'Echo')!;
  const helper = list.find((b) => b.full_name === 'Helper')!;
  assert.deepEqual([hook.bot_type, echo.bot_type, helper.bot_type], [2, 3, 1]);
  assert.deepEqual(echo.services.map((s) => [s.base_url, s.interface]), [['https://example.com/echo', 2]]);
  const card = panel.locator('.admin-bot', { has: page.getByRole('heading', { name: 'Hook', level: 4 }) });
  await card.getByRole('button', { name: 'Show the API key of Hook' }).click();
  await card.locator('.admin-key', { hasText: hook.api_key }).waitFor();
  await card.getByRole('button', { name: 'Regenerate the API key of Hook' }).click();
  await until(async () => (await bots()).find((b) => b.user_id === hook.user_id)!.api_key !== hook.api_key, { message: 'a new key' });
  const newKey = (await bots()).find((b) => b.user_id === hook.user_id)!.api_key;
  await card.locator('.admin-key', { hasText: newKey }).waitFor();
  await card.getByLabel('Bot owner').selectOption({ label: 'Alice Smith' });
  await card.getByLabel('Default stream for messages').selectOption({ label: '#general' });
  await until(async () => { const b = (await bots()).find((x) => x.user_id === hook.user_id)!; return b.owner_id === alice.id && b.default_sending_stream === 'general'; }, { message: 'owner and default stream saved' });
  await screenshot(page, 'admin-bots-list');
  const helperCard = panel.locator('.admin-bot', { has: page.getByRole('heading', { name: 'Helper', level: 4 }) });
  await helperCard.getByRole('button', { name: 'Deactivate Helper' }).click();
  await helperCard.getByRole('button', { name: 'Confirm' }).click();
  await until(async () => (await panel.getByRole('heading', { name: 'Helper', level: 4 }).count()) === 0, { message: 'Helper gone from the list' });
  list = await bots();
  assert.equal(list.find((b) => b.user_id === helper.user_id)?.is_active ?? false, false);

  // Integrations: the URL, pasted into a sender, posts to the stream.
  await tab(page, 'Integrations', 'admin-integrations');
  // A stream of the owner's alone: the others' feeds stay as they were for the 360 px test.
  await panel.getByLabel('Stream').selectOption({ label: '#hooks' });
  await panel.getByLabel('Topic (optional: the integration picks one when empty)').fill('hooks');
  // The organization's own address (register's realm_uri), as the services will reach it.
  const reg = await realm();
  const origin = String(reg.realm_url ?? reg.realm_uri).replace(/\/$/, '');
  for (const name of ['github', 'gitlab', 'slack_incoming', 'json']) {
    const label = { github: 'GitHub', gitlab: 'GitLab', slack_incoming: 'Slack-compatible webhook', json: 'JSON formatter (generic webhook)' }[name]!;
    assert.equal(await panel.getByLabel(label, { exact: true }).inputValue(), `${origin}/api/v1/external/${name}?api_key=${newKey}&stream=hooks&topic=hooks`);
  }
  const url = await panel.getByLabel('JSON formatter (generic webhook)', { exact: true }).inputValue();
  const res = await fetch(url.replace(origin, base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hello: 'from the integration' }) });
  assert.equal(res.status, 200, await res.text());
  const msgs = (await api(t.owner, 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'stream', operand: 'hooks' }] })).body.messages;
  assert.equal(msgs[0].subject, 'hooks');
  assert.match(msgs[0].content, /from the integration/);

  // Escape closes the panel; the focus goes back to its entry.
  await page.keyboard.press('Escape');
  await until(async () => (await panel.count()) === 0, { message: 'Escape closes' });
  await until(() => page.getByRole('button', { name: 'Organization' }).evaluate((el) => el === document.activeElement), { message: 'focus back on the entry' });
  void general;
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await page.context().close();
});

test('an administrator at 360 px: every screen fits, owner-only settings are locked, changes save', { skip: SKIP, timeout: 120_000 }, async () => {
  const page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  const seen = watch(page);
  await signInPage(page, base, ada.email, PASSWORD);
  const panel = await openPanel(page);
  const fits = async (name: string) => {
    // The panel covers the page: neither it nor anything in it is wider than the screen.
    const wide = await page.evaluate(() => Math.max(...[...document.querySelectorAll('.admin-box, .admin-panel, .admin-tabs')].map((e) => Math.max(e.scrollWidth, e.getBoundingClientRect().right))));
    assert.ok(wide <= 360, `${name}: ${wide}px wide`);
    const small = await panel.locator('button, select').evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetParent !== null && e.getBoundingClientRect().height < 40).map((e) => e.outerHTML.slice(0, 80)));
    assert.deepEqual(small, [], `${name}: touch targets`);
  };
  for (const [name, shot] of [['Organization profile', 'profile'], ['Organization settings', 'settings'], ['Organization permissions', 'permissions'], ['Default streams', 'default-streams'], ['Default user settings', 'user-defaults'], ['Users', 'users'], ['Bots', 'bots'], ['Integrations', 'integrations']] as const) {
    await tab(page, name, `admin-360-${shot}`);
    await fits(name);
  }
  // An administrator who is not an owner: the owner-only settings are shown but locked.
  await tab(page, 'Organization permissions', 'admin-360-permissions');
  assert.equal(await panel.getByLabel('Invitations are required for joining this organization').isDisabled(), true);
  await panel.getByText('Only organization owners can change this setting.').first().waitFor();
  // A change from the phone: a role, checked through the API.
  await tab(page, 'Users', 'admin-360-users');
  await panel.getByLabel('Role of Alice Smith').selectOption({ label: 'Guest' });
  await panel.getByRole('status').filter({ hasText: 'Alice Smith is now: Guest.' }).waitFor();
  assert.equal((await api(t.owner, 'GET', `/users/${alice.id}`)).body.user.role, 600);
  // Owners are not an administrator's to change: the server says so and the screen shows it.
  assert.equal(await panel.getByLabel(`Role of ${t.owner.row.full_name}`).isDisabled(), true);
  await api(t.owner, 'PATCH', `/users/${alice.id}`, { role: 400 });
  await tab(page, 'Organization profile', 'admin-360-profile');
  await panel.getByLabel('Organization description').fill('Set from a phone');
  await panel.getByRole('button', { name: 'Save changes' }).first().click();
  await panel.getByRole('status').filter({ hasText: 'Saved' }).first().waitFor();
  assert.equal((await realm()).realm_description, 'Set from a phone');
  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await page.context().close();
});

test('a member sees no Organization entry and the API refuses them', { skip: SKIP, timeout: 60_000 }, async () => {
  await api(t.owner, 'PATCH', `/users/${bob.id}`, { role: 400 });
  const page = await (await browser.newContext()).newPage();
  await signInPage(page, base, bob.email, PASSWORD);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Organization' }).count(), 0);
  await screenshot(page, 'admin-member-no-entry');
  for (const [method, url, params] of [
    ['PATCH', '/realm', { name: 'Mine now' }],
    ['PATCH', '/realm/user_settings_defaults', { dense_mode: false }],
    ['POST', '/default_streams', { stream_id: general }],
    ['PATCH', `/users/${alice.id}`, { role: 200 }],
    ['DELETE', `/users/${alice.id}`, {}],
  ] as const) {
    const res = await api(bob, method, url, params);
    assert.equal(res.status, 400, `${method} ${url}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.result, 'error');
  }
  assert.notEqual((await realm()).realm_name, 'Mine now');
  await page.context().close();
});

test('in German: the panel speaks the administrator\'s language', { skip: SKIP, timeout: 60_000 }, async () => {
  assert.equal((await api(ada, 'PATCH', '/settings', { default_language: 'de' })).status, 200);
  const page = await (await browser.newContext()).newPage();
  const seen = watch(page);
  try {
    await signInPage(page, base, ada.email, PASSWORD);
    await page.getByRole('button', { name: 'Organisation', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'Organisation' });
    for (const [name, text] of [['Organisationsberechtigungen', 'Änderungen speichern'], ['Benutzer', 'Benutzer suchen'], ['Bots', 'Neuen Bot hinzufügen'], ['Integrationen', 'URL der Integration']]) {
      await panel.getByRole('tab', { name, exact: true }).click();
      await panel.getByRole('heading', { name, level: 2, exact: true }).waitFor();
      await panel.getByText(text).first().waitFor();
      const english = await panel.evaluate((el) => (el as HTMLElement).innerText.match(/\b(Save changes|Who can|Search users|Add a new bot|Integration URL|Deactivate|Regenerate)\b/g));
      assert.equal(english, null, `${name}: English left`);
    }
    await screenshot(page, 'admin-german');
    assert.deepEqual(await axeProblems(page), []);
    assert.deepEqual(seen, { errors: [], dialogs: [] });
  } finally {
    await api(ada, 'PATCH', '/settings', { default_language: 'en' });
    await page.context().close();
  }
});
