/**
 * The web app at issue 35's size, in Chromium: an organization of 2,000 users and 300 streams,
 * the measured person (an administrator) subscribed to 100 of them with 10,000 unread messages.
 *   - navigation -> first messages painted (median of --runs cold loads, a fresh context each);
 *     register's answer (bytes, and the server's time for it alone), the JavaScript fetched
 *     before first paint (gzip), long tasks (> 50 ms) from navigation until the page is idle;
 *   - opening each settings screen (personal settings, the Organization panel and each of its
 *     tabs, the streams screen): click -> the screen's content shown, median of --runs;
 *   - typing in the compose box while every /json/* request is held back 2 s: keydown -> the
 *     character on screen (the next frame after the input), median and worst.
 *
 *   npm run bench -- web-scale [--runs 3] [--users 2000] [--streams 300] [--subscribed 100] [--unread 10000]
 *
 * Seeding: users and streams through the real actions, messages as direct rows (as bench/mark-read.ts).
 * The server runs in this process. Prints figures; never fails on a timing.
 */
import zlib from 'node:zlib';
import os from 'node:os';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startBenchApp, BENCH_OWNER } from './lib/bench-app.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { ensureWebBuilt } from '../test/helpers/browser.js';
import type { StreamRow, UserRow } from '../src/store/rows.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 3);
const USERS = arg('users', 2000);
const STREAMS = arg('streams', 300);
const SUBSCRIBED = arg('subscribed', 100);
const UNREAD = arg('unread', 10_000);
const PASSWORD = 'bench-password-1';

if (!CHROMIUM) {
  process.stdout.write('web-scale: no Chromium on this machine (apt-get install chromium); nothing measured\n');
  process.exit(0);
}
await ensureWebBuilt();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) => `${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`;
const load0 = os.loadavg();

// 1. The organization.
const b = await startBenchApp('web-scale');
const { app, realm, owner } = b;
const db = app.ctx.store.db;
const t0 = Date.now();
process.stderr.write(`seeding ${USERS} users...\n`);
const users: UserRow[] = await b.addUsers(USERS - 1, 'p', 'Person');
const streams: StreamRow[] = [];
for (let s = 0; s < STREAMS; s++) {
  // 20 members each; the owner in the first SUBSCRIBED.
  const members = users.filter((_, i) => (i + s) % Math.max(1, Math.floor(users.length / 20)) === 0);
  streams.push(await b.addStream({ name: `stream ${s}`, description: `Stream number ${s}` }, s < SUBSCRIBED ? [owner, ...members] : members));
  if (s % 25 === 24 || s === STREAMS - 1) process.stderr.write(`  ${s + 1}/${STREAMS} streams (${Math.round((Date.now() - t0) / 1000)}s)\r`);
}
process.stderr.write('\n');
for (let seeded = 0; seeded < UNREAD;) {
  const batch = Math.min(2000, UNREAD - seeded);
  await db.transaction().execute(async (trx) => {
    const msgs = [];
    for (let i = seeded; i < seeded + batch; i++) {
      const s = streams[i % SUBSCRIBED]!;
      const topic = `topic ${Math.floor(i / SUBSCRIBED) % 10}`;
      msgs.push({ realm_id: realm.id, sender_id: users[i % users.length]!.id, recipient_id: s.recipient_id!, stream_id: s.id, topic, topic_lower: topic,
        content: `message ${i} with some words`, rendered_content: `<p>message ${i} with <strong>some</strong> words</p>`, rendered_content_version: 1,
        date_sent: Math.floor(Date.now() / 1000) - UNREAD + i, client: 'bench', last_edit_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 });
    }
    const ids: number[] = [];
    for (let i = 0; i < msgs.length; i += 500) ids.push(...(await trx.insertInto('message').values(msgs.slice(i, i + 500)).returning('id').execute()).map((r) => r.id));
    const rows = ids.map((id) => ({ user_id: owner.id, message_id: id, flags: 0 }));
    for (let i = 0; i < rows.length; i += 2000) await trx.insertInto('user_message').values(rows.slice(i, i + 2000)).execute();
  });
  seeded += batch;
  process.stderr.write(`  ${seeded}/${UNREAD} unread messages (${Math.round((Date.now() - t0) / 1000)}s)\r`);
}
process.stderr.write('\n');
const base = await app.http.listen({ port: 0, host: '127.0.0.1' });

// 2. Register alone, as the server answers it (the web app's arguments, through the API).
const auth = 'Basic ' + Buffer.from(`${owner.email}:${owner.api_key}`).toString('base64');
const regTimes: number[] = [];
let regBytes = 0;
let regGzip = 0;
let regKeys: Array<[string, number]> = [];
for (let i = 0; i < 3 + RUNS * 2; i++) {
  const r0 = performance.now();
  const res = await fetch(`${base}/api/v1/register`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ apply_markdown: 'true', client_gravatar: 'false', slim_presence: 'false', include_subscribers: 'false', client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: false, stream_typing_notifications: true, user_settings_object: true }) }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`register: ${res.status} ${text.slice(0, 200)}`);
  if (i >= 3) regTimes.push(performance.now() - r0);
  regBytes = text.length;
  regKeys = Object.entries(JSON.parse(text) as Record<string, unknown>).map(([k, v]) => [k, JSON.stringify(v).length] as [string, number]).sort((x, y) => y[1] - x[1]).slice(0, 4);
  regGzip = zlib.gzipSync(text).length;
}

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'] });
async function signedIn(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const r = await context.request.post(`${base}/accounts/login`, { form: { username: BENCH_OWNER, password: PASSWORD } });
  if (!r.ok()) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
  // tsx names nested arrow functions with a helper the page lacks.
  await context.addInitScript('globalThis.__name = (f) => f;');
  await context.addInitScript(() => {
    (window as any).__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) (window as any).__long.push(e.duration); }).observe({ type: 'longtask', buffered: true });
  });
  return context;
}
const idle = (page: Page) => page.evaluate(() => new Promise<void>((r) => requestIdleCallback(() => r(), { timeout: 10_000 })));

// 3. Cold loads.
const firstPaint: number[] = [];
const longAtLoad: number[][] = [];
/** Per load: JS loaded, register asked, answered, messages asked, answered (ms from navigation). */
const phases: number[][] = [];
let jsGzip = 0;
for (let i = 0; i < RUNS; i++) {
  const context = await signedIn();
  const page = await context.newPage();
  if (process.env.BENCH_DEBUG) page.on('response', (r) => { if (r.url().includes('/json/') || r.status() >= 400) process.stderr.write(`${r.status()} ${r.url().slice(0, 120)}\n`); });
  if (process.env.BENCH_DEBUG) page.on('console', (m) => process.stderr.write(`page: ${m.text()}\n`)).on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
  const scripts: Promise<number>[] = [];
  let painted = false;
  page.on('response', (r) => {
    if (!painted && r.request().resourceType() === 'script') scripts.push(r.body().then((body) => zlib.gzipSync(body, { level: 9 }).length, () => 0));
  });
  await page.goto(`${base}/`, { waitUntil: 'commit' });
  const at = await page.waitForFunction(() => (document.querySelector('.message') ? performance.now() : 0), undefined, { polling: 'raf', timeout: 60_000 });
  painted = true;
  firstPaint.push(Number(await at.jsonValue()));
  phases.push(await page.evaluate(() => {
    const r = (part: string) => performance.getEntriesByType('resource').find((e) => e.name.includes(part)) as PerformanceResourceTiming | undefined;
    const reg = r('/json/register');
    const msgs = r('/json/messages');
    const js = performance.getEntriesByType('resource').filter((e) => /\/assets\/index-[^/]*\.js$/.test(e.name)).reduce((a, e) => Math.max(a, (e as PerformanceResourceTiming).responseEnd), 0);
    return [js, reg?.requestStart ?? 0, reg?.responseEnd ?? 0, msgs?.requestStart ?? 0, msgs?.responseEnd ?? 0];
  }));
  jsGzip = (await Promise.all(scripts)).reduce((a, n) => a + n, 0);
  await idle(page);
  longAtLoad.push(await page.evaluate(() => (window as any).__long as number[]));
  await context.close();
}

// 4. Settings screens: click -> content shown, timed inside the page (one frame's precision).
const context = await signedIn();
const page = await context.newPage();
if (process.env.BENCH_DEBUG) page.on('response', (r) => { if (r.url().includes('/json/') || r.status() >= 400) process.stderr.write(`${r.status()} ${r.url().slice(0, 120)}\n`); });
if (process.env.BENCH_DEBUG) page.on('console', (m) => process.stderr.write(`page: ${m.text()}\n`)).on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
await page.goto(`${base}/`);
await page.locator('.message').first().waitFor({ timeout: 60_000 });
await idle(page);
/** Clicks `click` in the page and resolves with the ms until `ready()` is true on a frame. */
async function timeClick(click: string, ready: string): Promise<number> {
  return page.evaluate(([click, ready]) => new Promise<number>((resolve, reject) => {
    const el = document.querySelector<HTMLElement>(click);
    if (!el) return reject(new Error(`nothing matches ${click}`));
    const check = new Function(`return (${ready})`) as () => boolean;
    const start = performance.now();
    el.click();
    const tick = () => {
      if (check()) resolve(performance.now() - start);
      else if (performance.now() - start > 30_000) reject(new Error(`not ready: ${ready}`));
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }), [click, ready] as const);
}
const closeModal = async () => {
  await page.keyboard.press('Escape');
  await page.locator('.modal').first().waitFor({ state: 'detached', timeout: 10_000 }).catch(async () => {
    await page.locator('.modal button[aria-label="Close"], .modal .admin-close').first().click().catch(() => {});
    await page.locator('.modal').first().waitFor({ state: 'detached', timeout: 10_000 });
  });
};
const screens: Array<[string, number[]]> = [];
const settingsButton = '.top-actions .link-button:nth-last-child(2)';
const modalShown = (title: string) => `(() => { const m = document.querySelector('[role=dialog] #${title}'); const d = m && m.closest('[role=dialog]'); return !!d && d.querySelectorAll('input, select, button, li, tr').length > 3 && !d.querySelector('[aria-busy=true]'); })()`;
const personal: number[] = [];
const streamsScreen: number[] = [];
const orgOpen: number[] = [];
for (let i = 0; i < RUNS; i++) {
  personal.push(await timeClick(settingsButton, modalShown('settings-title')));
  await closeModal();
  streamsScreen.push(await timeClick('button[aria-label="Browse or create streams"]', modalShown('streams-title')));
  await closeModal();
}
screens.push(['personal settings panel', personal], ['streams screen', streamsScreen]);
const tabs: Record<string, number[]> = {};
for (let i = 0; i < RUNS; i++) {
  orgOpen.push(await timeClick('.admin-entry', modalShown('admin-title')));
  const names = await page.locator('.admin-tabs [role=tab]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.tab!));
  // Each tab from another one (the first from the second).
  for (const [k, name] of names.entries()) {
    if (k === 0) await page.locator(`.admin-tabs [data-tab="${names[1]}"]`).click();
    const ready = `(() => { const p = document.getElementById('admin-panel'); return !!p && p.getAttribute('aria-labelledby') === 'admin-tab-${name}' && p.children.length > 1 && !/Loading/.test(p.textContent || '') && p.querySelectorAll('input, select, button, li, tr, p').length > 0; })()`;
    (tabs[name] ??= []).push(await timeClick(`.admin-tabs [data-tab="${name}"]`, ready));
  }
  await closeModal();
}
screens.push(['Organization panel', orgOpen], ...Object.entries(tabs).map(([k, v]) => [`  tab: ${k}`, v] as [string, number[]]));

// 5. Typing with the network held back 2 s.
await page.getByRole('button', { name: 'New topic' }).click();
const box = page.getByRole('textbox', { name: 'Message' });
await box.waitFor();
await page.locator('input[aria-label="Topic"]').fill('typing');
await box.focus();
await page.route('**/json/**', async (route) => {
  await new Promise((r) => setTimeout(r, 2000));
  await route.continue().catch(() => {});
});
await page.evaluate(() => {
  const w = window as any;
  w.__keys = [];
  w.__long = [];
  const ta = document.querySelector('textarea[aria-label="Message"]') as HTMLTextAreaElement;
  ta.addEventListener('keydown', (e) => {
    const start = e.timeStamp;
    const ch = e.key;
    const seen = () => {
      const shown = (document.querySelector('textarea[aria-label="Message"]') as HTMLTextAreaElement | null)?.value.endsWith(ch);
      if (shown) w.__keys.push(performance.now() - start);
      else requestAnimationFrame(seen);
    };
    requestAnimationFrame(seen);
  }, { capture: true });
});
const text = 'Typing while the network is slow';
await page.keyboard.type(text, { delay: 30 });
await page.waitForFunction((n) => (window as any).__keys.length >= n, text.length, { timeout: 30_000 });
const keys: number[] = await page.evaluate(() => (window as any).__keys);
const typingLong: number[] = await page.evaluate(() => (window as any).__long);
await page.unroute('**/json/**');
await browser.close();
await b.close();

// 6. The figures.
const load1 = os.loadavg();
const longAll = longAtLoad.flat();
const rows: Array<[string, string]> = [
  ['organization', `${USERS} users, ${STREAMS} streams (${SUBSCRIBED} subscribed), ${UNREAD} unread; seeded in ${Math.round((Date.now() - t0) / 1000)} s`],
  ['navigation -> first messages painted', fmt(firstPaint)],
  ['  of which: scripts loaded / register sent / answered / messages sent / answered', [0, 1, 2, 3, 4].map((k) => median(phases.map((p) => p[k]!)).toFixed(0)).join(' / ') + ' ms (medians)'],
  ['register (server alone, the web app\'s arguments)', `${fmt(regTimes)}; answer ${(regBytes / 1024).toFixed(0)} KB (${(regGzip / 1024).toFixed(0)} KB gzip); largest: ${regKeys.map(([k, n]) => `${k} ${(n / 1024).toFixed(0)} KB`).join(', ')}`],
  ['JavaScript before first paint', `${(jsGzip / 1024).toFixed(1)} KB gzip`],
  ['long tasks (> 50 ms) from navigation to idle', `${longAtLoad.map((l) => l.length).join(', ')} per load; longest ${longAll.length ? Math.max(...longAll).toFixed(0) : 0} ms, total ${median(longAtLoad.map((l) => l.reduce((a, x) => a + x, 0))).toFixed(0)} ms (median)`],
  ...screens.map(([name, xs]) => [`open ${name}`, fmt(xs)] as [string, string]),
  ['keydown -> character shown, /json/* held 2 s', `median ${median(keys).toFixed(1)} ms, worst ${Math.max(...keys).toFixed(1)} ms over ${keys.length} keys; ${typingLong.length} long tasks`],
  ['load average (1 min) before / after', `${load0[0]!.toFixed(2)} / ${load1[0]!.toFixed(2)} (${os.cpus().length} cores)`],
];
const w = Math.max(...rows.map(([k]) => k.length));
process.stdout.write(`\n| ${'what'.padEnd(w)} | figure |\n|${'-'.repeat(w + 2)}|---|\n`);
for (const [k, v] of rows) process.stdout.write(`| ${k.padEnd(w)} | ${v} |\n`);
