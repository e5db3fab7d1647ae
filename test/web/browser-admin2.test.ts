/**
 * Issue 35's remaining administration screens (web-admin2): user groups, custom profile
 * fields, custom emoji and linkifiers in the Organization panel, at desktop width as the
 * owner and at 360 px as an administrator, each change checked through the API; emoji
 * upload from a real file; a member sees no panel and the API refuses them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, Locator, Page } from 'playwright-core';
import { httpClient, OWNER_PASSWORD, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { axeProblems, ensureWebBuilt, launch, screenshot, signInPage, SKIP, watch } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { scratchDir } from '../helpers/scratch.js';

let t: TestApp;
let base: string;
let browser: Browser;
let ada: TestUser, alice: TestUser, bob: TestUser;
let pngPath: string;
const PASSWORD = 'admin2-screens-password-1';

const api = (as: TestUser, method: string, url: string, params: Record<string, unknown> = {}) => httpClient(() => base)(as, method, url, params);
type Group = { id: number; name: string; description: string; members: number[]; is_system_group: boolean; deactivated?: boolean };
const groups = async () => ((await api(t.owner, 'GET', '/user_groups')).body.user_groups as Group[]).filter((g) => !g.is_system_group && !g.deactivated);
type PField = { id: number; name: string; hint: string; type: number; field_data: string; order: number };
const fields = async () => ((await api(t.owner, 'GET', '/realm/profile_fields')).body.custom_fields as PField[]).sort((a, b) => a.order - b.order);
const emoji = async () => Object.values((await api(t.owner, 'GET', '/realm/emoji')).body.emoji as Record<string, { name: string; deactivated: boolean; author_id?: number; author?: { id: number } }>).filter((e) => !e.deactivated);
type Lk = { id: number; pattern: string; url_template?: string; url_format?: string };
const urlOf = (l: Lk) => l.url_template ?? l.url_format ?? '';
const linkifiers = async () => (await api(t.owner, 'GET', '/realm/linkifiers')).body.linkifiers as Lk[];

before(async () => {
  if (SKIP) return;
  await ensureWebBuilt();
  t = await testApp();
  ({ ada, alice, bob } = await t.createUsers({
    ada: { name: 'Ada Admin', role: 200, password: PASSWORD },
    alice: { name: 'Alice Smith', password: PASSWORD },
    bob: { name: 'Bob Jones', password: PASSWORD },
  }));
  await createStreams(t, { general: [ada, alice, bob, t.owner] });
  base = await t.listen();
  browser = await launch();
  const dir = scratchDir('parley-admin2-');
  pngPath = path.join(dir, 'parrot.png');
  await writeFile(pngPath, await sharp({ create: { width: 64, height: 64, channels: 4, background: '#e73' } }).png().toBuffer());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function openPanel(page: Page) {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('button', { name: 'Organization' }).click();
  const panel = page.getByRole('dialog', { name: 'Organization' });
  await panel.waitFor();
  return panel;
}

/** Opens a screen, screenshots it, checks axe and that nothing scrolls sideways. */
async function tab(page: Page, name: string, shot: string, ready: string): Promise<Locator> {
  const panel = page.getByRole('dialog', { name: 'Organization' });
  await panel.getByRole('tab', { name }).click();
  await panel.getByRole('heading', { name, level: 2 }).waitFor();
  await panel.getByRole('heading', { name: ready, level: 3 }).waitFor();
  await screenshot(page, shot);
  assert.deepEqual(await axeProblems(page), [], `${name}: axe`);
  const wide = await page.evaluate(() => {
    const p = document.querySelector('.admin-panel')!;
    return { doc: document.documentElement.scrollWidth - window.innerWidth, panel: p.scrollWidth - p.clientWidth };
  });
  assert.ok(wide.doc <= 0 && wide.panel <= 0, `${name}: no sideways scroll (${JSON.stringify(wide)})`);
  return panel;
}

const saidBy = (where: Locator, text: string) => where.getByRole('status').filter({ hasText: text }).first().waitFor();

test('the owner at desktop width: groups, profile fields, emoji, linkifiers through the API', { skip: SKIP, timeout: 240_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  const seen = watch(page);
  await signInPage(page, base, t.owner.email, OWNER_PASSWORD);
  const panel = await openPanel(page);

  // User groups: create with members, rename, add and remove a member, delete.
  await tab(page, 'User groups', 'admin2-groups-empty', 'Create user group');
  await panel.getByLabel('User group name').fill('designers');
  await panel.getByLabel('User group description').fill('The design team');
  await panel.getByRole('checkbox', { name: 'Alice Smith' }).check();
  await panel.getByRole('button', { name: 'Create', exact: true }).click();
  await saidBy(panel, 'User group created.');
  await until(async () => (await groups()).some((g) => g.name === 'designers'), { message: 'group created' });
  let g = (await groups()).find((x) => x.name === 'designers')!;
  assert.equal(g.description, 'The design team');
  assert.deepEqual(g.members, [alice.id]);
  await panel.getByText('1 member').waitFor();
  await panel.getByRole('button', { name: 'Edit designers' }).click();
  await screenshot(page, 'admin2-groups-edit');
  assert.deepEqual(await axeProblems(page), [], 'group editor: axe');
  const editor = panel.locator('.admin2-editor');
  await editor.getByLabel('User group name').fill('design');
  await editor.getByLabel('User group description').fill('Designers all');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await until(async () => { const x = (await groups())[0]!; return x.name === 'design' && x.description === 'Designers all'; }, { message: 'group renamed' });
  await panel.getByRole('button', { name: 'Edit design' }).waitFor();
  await panel.getByLabel('Add a member').selectOption({ label: 'Bob Jones' });
  await panel.getByRole('button', { name: 'Add', exact: true }).click();
  await panel.getByText('2 members').waitFor();
  g = (await groups())[0]!;
  assert.deepEqual([...g.members].sort(), [alice.id, bob.id].sort());
  await panel.getByRole('button', { name: 'Remove Alice Smith from design' }).click();
  await panel.getByText('1 member').waitFor();
  assert.deepEqual((await groups())[0]!.members, [bob.id]);
  // A group made elsewhere arrives by event.
  assert.equal((await api(ada, 'POST', '/user_groups/create', { name: 'writers', description: 'Docs', members: [ada.id] })).status, 200);
  await panel.getByRole('button', { name: 'Edit writers' }).waitFor();
  await panel.getByRole('button', { name: /^(Delete|Deactivate) group$/ }).click();
  await panel.getByRole('button', { name: /^(Delete|Deactivate) design\?$/ }).click();
  await until(async () => !(await groups()).some((x) => x.name === 'design'), { message: 'group deleted' });
  await panel.getByRole('button', { name: 'Edit design', exact: true }).waitFor({ state: 'detached' });

  // Custom profile fields: a list of options with its options, a short text; edit, reorder, delete.
  await tab(page, 'Custom profile fields', 'admin2-fields-empty', 'Add a new profile field');
  const form = panel.getByRole('form', { name: 'Add a new profile field' });
  await form.getByLabel('Type', { exact: true }).selectOption({ label: 'List of options' });
  await form.getByLabel('Label').fill('Team');
  await form.getByLabel('Hint (up to 80 characters)').fill('Where you work');
  await form.getByLabel('Choice 1', { exact: true }).fill('Backend');
  await form.getByRole('button', { name: 'Add choice' }).click();
  await form.getByLabel('Choice 2', { exact: true }).fill('Frontend');
  await screenshot(page, 'admin2-fields-options');
  assert.deepEqual(await axeProblems(page), [], 'options editor: axe');
  const summary = form.getByLabel('Display in profile summary');
  const hasSummary = (await summary.count()) > 0;
  if (hasSummary) await summary.check();
  await form.getByRole('button', { name: 'Add', exact: true }).click();
  await saidBy(form, 'Custom profile field added.');
  await until(async () => (await fields()).some((f) => f.name === 'Team'), { message: 'field created' });
  const team = (await fields()).find((f) => f.name === 'Team')!;
  assert.equal(team.type, 3);
  if (hasSummary) assert.equal((team as PField & { display_in_profile_summary?: boolean }).display_in_profile_summary, true);
  assert.deepEqual(Object.values(JSON.parse(team.field_data) as Record<string, { text: string }>).map((o) => o.text), ['Backend', 'Frontend']);
  await form.getByLabel('Type', { exact: true }).selectOption({ label: 'Short text' });
  await form.getByLabel('Label').fill('Office');
  await form.getByRole('button', { name: 'Add', exact: true }).click();
  await until(async () => (await fields()).map((f) => f.name).join() === 'Team,Office', { message: 'second field' });
  await panel.getByRole('button', { name: 'Move Office up' }).click();
  await until(async () => (await fields()).map((f) => f.name).join() === 'Office,Team', { message: 'reordered' });
  await panel.getByRole('button', { name: 'Edit Team' }).click();
  const fe = panel.locator('.admin2-editor');
  await fe.getByLabel('Label').fill('Squad');
  await fe.getByLabel('Choice 2', { exact: true }).fill('Web');
  await fe.getByRole('button', { name: 'Save changes' }).click();
  await until(async () => { const f = (await fields()).find((x) => x.id === team.id)!; return f.name === 'Squad' && f.field_data.includes('Web'); }, { message: 'field edited' });
  await panel.getByRole('button', { name: 'Delete Office' }).click();
  await panel.getByRole('button', { name: 'Delete Office?' }).click();
  await until(async () => (await fields()).map((f) => f.name).join() === 'Squad', { message: 'field deleted' });
  await panel.getByRole('button', { name: 'Edit Office' }).waitFor({ state: 'detached' });

  // Custom emoji: the server's word on a bad name; an upload from a file; deletion.
  await tab(page, 'Custom emoji', 'admin2-emoji-empty', 'Add a new emoji');
  await panel.getByLabel('Emoji name').fill('Bad Name!');
  await panel.locator('#emoji-file').setInputFiles(pngPath);
  await panel.getByRole('button', { name: 'Add emoji' }).click();
  await panel.locator('.admin-note.error').filter({ hasText: /\S/ }).waitFor();
  assert.equal((await emoji()).length, 0);
  await panel.getByLabel('Emoji name').fill('parrot');
  await panel.getByRole('button', { name: 'Add emoji' }).click();
  await saidBy(panel, 'Custom emoji added.');
  await panel.getByRole('img', { name: ':parrot:' }).waitFor();
  await until(() => panel.getByRole('img', { name: ':parrot:' }).evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0), { message: 'the image shows' });
  await panel.getByText(/^Added by \S/).first().waitFor();
  await screenshot(page, 'admin2-emoji');
  assert.deepEqual(await axeProblems(page), [], 'emoji list: axe');
  const e = (await emoji()).find((x) => x.name === 'parrot')!;
  assert.equal(e.author_id ?? e.author?.id, t.owner.id);
  await panel.getByRole('button', { name: 'Delete :parrot:' }).click();
  await panel.getByRole('button', { name: 'Delete :parrot:?' }).click();
  await until(async () => (await emoji()).length === 0, { message: 'emoji deleted' });
  await panel.getByRole('img', { name: ':parrot:' }).waitFor({ state: 'detached' });

  // Linkifiers: add, edit, delete (the URL field as the level names it).
  await tab(page, 'Linkifiers', 'admin2-linkifiers-empty', 'Add a new linkifier');
  const urlField = panel.locator('#lk-url');
  const template = (await panel.getByLabel('URL template').count()) > 0;
  await panel.getByLabel('Pattern').fill('#(?P<id>[0-9]+)');
  await urlField.fill(template ? 'https://tracker.example.com/{id}' : 'https://tracker.example.com/%(id)s');
  await panel.getByRole('button', { name: 'Add linkifier' }).click();
  await saidBy(panel, 'Linkifier added.');
  await until(async () => (await linkifiers()).length === 1, { message: 'linkifier added' });
  const lk = (await linkifiers())[0]!;
  assert.equal(lk.pattern, '#(?P<id>[0-9]+)');
  assert.match(urlOf(lk), /tracker\.example\.com/);
  await panel.getByText(urlOf(lk)).waitFor();
  await panel.getByRole('button', { name: `Edit ${lk.pattern}` }).click();
  await panel.locator(`#lk-${lk.id}-url`).fill(template ? 'https://bugs.example.com/{id}' : 'https://bugs.example.com/%(id)s');
  await panel.locator('.admin2-editor').getByRole('button', { name: 'Save changes' }).click();
  await until(async () => /bugs\.example\.com/.test(urlOf((await linkifiers())[0]!)), { message: 'linkifier edited' });
  // From feature level 202 the order can change.
  if ((await panel.getByRole('button', { name: `Move ${lk.pattern} up` }).count()) > 0 || (await panel.getByRole('button', { name: `Move ${lk.pattern} down` }).count()) > 0) {
    assert.equal((await api(t.owner, 'POST', '/realm/filters', { pattern: 'T(?P<id>[0-9]+)', url_template: 'https://t.example.com/{id}' })).status, 200);
    await panel.getByRole('button', { name: 'Move T(?P<id>[0-9]+) up' }).click();
    await until(async () => (await linkifiers())[0]!.pattern === 'T(?P<id>[0-9]+)', { message: 'linkifiers reordered' });
    await panel.getByRole('button', { name: 'Delete T(?P<id>[0-9]+)', exact: true }).click();
    await panel.getByRole('button', { name: 'Delete T(?P<id>[0-9]+)?' }).click();
    await until(async () => (await linkifiers()).length === 1, { message: 'second linkifier deleted' });
  }
  await screenshot(page, 'admin2-linkifiers');
  assert.deepEqual(await axeProblems(page), [], 'linkifiers: axe');
  await panel.getByRole('button', { name: `Delete ${lk.pattern}`, exact: true }).click();
  await panel.getByRole('button', { name: `Delete ${lk.pattern}?` }).click();
  await until(async () => (await linkifiers()).length === 0, { message: 'linkifier deleted' });

  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await page.context().close();
});

test('an administrator at 360 px: every screen fits; a group, field, emoji and linkifier made from a phone', { skip: SKIP, timeout: 180_000 }, async () => {
  const page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  const seen = watch(page);
  await signInPage(page, base, ada.email, PASSWORD);
  const panel = await openPanel(page);

  await tab(page, 'User groups', 'admin2-phone-groups', 'Create user group');
  await panel.getByLabel('User group name').fill('phones');
  await panel.getByRole('checkbox', { name: 'Bob Jones' }).check();
  await panel.getByRole('button', { name: 'Create', exact: true }).click();
  await until(async () => (await groups()).some((g) => g.name === 'phones' && g.members.includes(bob.id)), { message: 'group from a phone' });
  await panel.getByRole('button', { name: 'Edit phones' }).click();
  await screenshot(page, 'admin2-phone-groups-edit');
  assert.deepEqual(await axeProblems(page), [], 'phone group editor: axe');

  await tab(page, 'Custom profile fields', 'admin2-phone-fields', 'Add a new profile field');
  const form = panel.getByRole('form', { name: 'Add a new profile field' });
  await form.getByLabel('Type', { exact: true }).selectOption({ label: 'External account' });
  await form.getByLabel('External account type').selectOption({ label: 'GitHub' });
  await screenshot(page, 'admin2-phone-fields-external');
  await form.getByRole('button', { name: 'Add', exact: true }).click();
  await until(async () => (await fields()).some((f) => f.type === 7 && f.field_data.includes('github')), { message: 'external account field' });
  await form.getByLabel('Type', { exact: true }).selectOption({ label: 'Date picker' });
  await form.getByLabel('Label').fill('Birthday');
  await form.getByRole('button', { name: 'Add', exact: true }).click();
  await until(async () => (await fields()).some((f) => f.type === 4 && f.name === 'Birthday'), { message: 'date field' });

  await tab(page, 'Custom emoji', 'admin2-phone-emoji', 'Add a new emoji');
  await panel.getByLabel('Emoji name').fill('phone_parrot');
  await panel.locator('#emoji-file').setInputFiles(pngPath);
  await panel.getByRole('button', { name: 'Add emoji' }).click();
  await panel.getByRole('img', { name: ':phone_parrot:' }).waitFor();
  await screenshot(page, 'admin2-phone-emoji-list');
  assert.deepEqual(await axeProblems(page), [], 'phone emoji: axe');

  await tab(page, 'Linkifiers', 'admin2-phone-linkifiers', 'Add a new linkifier');
  const template = (await panel.getByLabel('URL template').count()) > 0;
  await panel.getByLabel('Pattern').fill('PR(?P<id>[0-9]+)');
  await panel.locator('#lk-url').fill(template ? 'https://example.com/pr/{id}' : 'https://example.com/pr/%(id)s');
  await panel.getByRole('button', { name: 'Add linkifier' }).click();
  await until(async () => (await linkifiers()).some((l) => l.pattern === 'PR(?P<id>[0-9]+)'), { message: 'linkifier from a phone' });
  await screenshot(page, 'admin2-phone-linkifiers-list');
  assert.deepEqual(await axeProblems(page), [], 'phone linkifiers: axe');
  // Touch targets: the list's buttons are at least 40 px both ways.
  const small = await panel.locator('.admin-list button').evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).filter((r) => r.width < 40 || r.height < 40).length);
  assert.equal(small, 0, 'touch targets ≥ 40 px');

  assert.deepEqual(seen, { errors: [], dialogs: [] });
  await page.context().close();
});

test('a member sees no editing controls and the API refuses them', { skip: SKIP, timeout: 60_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  await signInPage(page, base, alice.email, PASSWORD);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Organization' }).count(), 0);
  await screenshot(page, 'admin2-member-no-entry');
  for (const [method, url, params] of [
    ['POST', '/realm/profile_fields', { name: 'Mine', field_type: 1 }],
    ['POST', '/realm/filters', { pattern: 'x(?P<id>[0-9]+)', url_format_string: 'https://x.example/%(id)s', url_template: 'https://x.example/{id}' }],
  ] as const) {
    const res = await api(alice, method, url, params);
    assert.equal(res.status, 400, `${method} ${url}: ${JSON.stringify(res.body)}`);
  }
  await page.context().close();
});

test('German covers every string of these screens', async () => {
  const dir = 'web/src/components/admin';
  const files = ['UserGroups.tsx', 'ProfileFields.tsx', 'Emoji.tsx', 'Linkifiers.tsx', 'ConfirmButton.tsx'];
  const wanted = new Set<string>(['User groups', 'Custom profile fields', 'Custom emoji', 'Linkifiers']);
  for (const f of files) {
    const src = await readFile(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(/\bt\('((?:[^'\\]|\\.)*)'/g)) wanted.add(m[1]!);
    for (const m of src.matchAll(/\btn\('((?:[^'\\]|\\.)*)', '((?:[^'\\]|\\.)*)'/g)) { wanted.add(m[1]!); wanted.add(m[2]!); }
  }
  const de: Record<string, string> = {};
  for (const f of await readdir('web/src/locales/de')) Object.assign(de, JSON.parse(await readFile(path.join('web/src/locales/de', f), 'utf8')));
  assert.deepEqual([...wanted].filter((k) => !(k in de)), []);
});
