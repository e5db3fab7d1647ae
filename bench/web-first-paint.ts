/**
 * The web app in Chromium on the `parley demo` organization:
 *   - navigation -> first messages painted (a signed-in page, fresh browser context each run);
 *   - the JavaScript (and CSS) sent to the browser, gzipped;
 *   - 20 incoming messages per second for a minute: long tasks (PerformanceObserver
 *     'longtask', > 50 ms) in the page, and the server process's CPU per /json/events poll.
 *
 *   - scrolling back through the whole history of All messages (--messages of them), loaded
 *     page by page as the view nears its top: long tasks, and the rows in the DOM (windowed).
 *
 *   npm run bench -- web-first-paint [--runs 5] [--seconds 60] [--rate 20] [--messages 3000] [--scroll 1]
 *
 * The server runs in this process (so its CPU figure includes the sender and the
 * playwright driver: an upper bound). Prints figures; never fails on a timing.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { startBenchApp } from './lib/bench-app.js';
import { runDemo, DEMO_PASSWORD } from '../src/cli/demo.js';
import { sendMessage } from '../src/actions/message-send.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { ensureWebBuilt } from '../test/helpers/browser.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 5);
const SECONDS = arg('seconds', 60);
const RATE = arg('rate', 20);
const MESSAGES = arg('messages', 3000);
const SCROLL = arg('scroll', 1);

if (!CHROMIUM) {
  process.stdout.write('web-first-paint: no Chromium on this machine (apt-get install chromium); nothing measured\n');
  process.exit(0);
}
await ensureWebBuilt();

// 1. Bundle size.
const assets = path.resolve('web', 'dist', 'assets');
const gz = (ext: string) => fs.readdirSync(assets).filter((f) => f.endsWith(ext))
  .reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(assets, f)), { level: 9 }).length, 0);
const raw = (ext: string) => fs.readdirSync(assets).filter((f) => f.endsWith(ext)).reduce((n, f) => n + fs.statSync(path.join(assets, f)).size, 0);
process.stdout.write(`JavaScript: ${(gz('.js') / 1024).toFixed(1)} KB gzipped (${(raw('.js') / 1024).toFixed(1)} KB raw); CSS: ${(gz('.css') / 1024).toFixed(1)} KB gzipped\n`);

// 2. The demo organization.
const b = await startBenchApp('web');
process.stderr.write(`filling the demo organization (${MESSAGES} messages)...\n`);
const demo = await runDemo(b.app.ctx, b.realm, { users: 30, messages: MESSAGES, seed: 1 });
const base = await b.app.http.listen({ port: 0, host: '127.0.0.1' });
const me = demo.users[0]!;
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'] });

async function signedInContext() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const r = await context.request.post(`${base}/accounts/login`, { form: { username: me.email, password: DEMO_PASSWORD } });
  if (!r.ok()) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
  return context;
}

const firstPaint: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const context = await signedInContext();
  const page = await context.newPage();
  await page.goto(`${base}/`, { waitUntil: 'commit' });
  // performance.now() counts from the navigation's start; read it on the first frame with messages.
  const at = await page.waitForFunction(() => (document.querySelector('.message') ? performance.now() : 0), undefined, { polling: 'raf', timeout: 30_000 });
  firstPaint.push(Number(await at.jsonValue()));
  await context.close();
}
const sorted = [...firstPaint].sort((x, y) => x - y);
process.stdout.write(`first messages painted: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms over ${RUNS} runs (${firstPaint.map((x) => x.toFixed(0)).join(', ')} ms)\n`);

// 3. Live load, on a caught-up person's All messages (so the view sits at its newest end).
const context = await signedInContext();
const csrf = (await context.cookies()).find((c) => c.name === 'parley_csrf')!.value;
const read = await context.request.post(`${base}/json/mark_all_as_read`, { headers: { 'X-CSRFToken': csrf } });
if (!read.ok()) throw new Error(`mark_all_as_read: ${read.status()}`);
const page = await context.newPage();
let polls = 0;
page.on('request', (r) => { if (r.url().includes('/json/events')) polls++; });
await page.goto(`${base}/`);
await page.locator('.message').first().waitFor();
await page.evaluate(() => {
  (window as any).__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) (window as any).__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });
});
const senders = demo.users.slice(1, 11);
const total = SECONDS * RATE;
process.stderr.write(`sending ${total} messages at ${RATE}/s to #general...\n`);
const pollsBefore = polls;
const cpu0 = process.cpuUsage();
const start = Date.now();
for (let i = 0; i < total; i++) {
  const due = start + (i * 1000) / RATE;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  await sendMessage(b.app.ctx, b.realm, senders[i % senders.length]!, { to: { kind: 'stream', name: 'general' }, topic: 'load', content: `Load message ${i} with **some** markdown :rocket:`, client: 'bench' } as any);
}
await page.screenshot({ path: 'test-output/bench-web.png' }).catch(() => {});
await page.locator('.message', { hasText: `Load message ${total - 1} ` }).waitFor({ timeout: 30_000 });
const cpu = process.cpuUsage(cpu0);
const long: number[] = await page.evaluate(() => (window as any).__long);
const shown = await page.locator('.message').count();
const pollCount = polls - pollsBefore;
process.stdout.write(`${RATE} msgs/s for ${SECONDS} s: ${long.length} long tasks (> 50 ms), longest ${long.length ? Math.max(...long).toFixed(0) : 0} ms; ${shown} rows in the DOM at the end (windowed)\n`);
process.stdout.write(`server process CPU: ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms over ${pollCount} polls = ${((cpu.user + cpu.system) / 1000 / Math.max(1, pollCount)).toFixed(2)} ms per poll (includes sending and the browser driver)\n`);

// 4. Scrolling back through everything.
if (SCROLL) {
  let loaded = 0;
  page.on('response', async (r) => {
    if (r.url().includes('/json/messages?')) loaded += ((await r.json().catch(() => ({}))) as { messages?: unknown[] }).messages?.length ?? 0;
  });
  await page.evaluate(() => {
    (window as any).__long = [];
  });
  const began = Date.now();
  let maxRows = 0;
  await page.locator('.scroller').hover();
  // Until the top of the history shows (or two minutes pass).
  while (Date.now() - began < 120_000 && (await page.getByText('The beginning of this view').count()) === 0) {
    await page.mouse.wheel(0, -3000);
    await page.waitForTimeout(16);
    maxRows = Math.max(maxRows, await page.locator('.message').count());
  }
  const scrollLong: number[] = await page.evaluate(() => (window as any).__long);
  process.stdout.write(`scrolling back through ${loaded} loaded messages in ${((Date.now() - began) / 1000).toFixed(1)} s: ${scrollLong.length} long tasks, longest ${scrollLong.length ? Math.max(...scrollLong).toFixed(0) : 0} ms; at most ${maxRows} rows in the DOM\n`);
}
await browser.close();
await b.close();
