/**
 * `npm run bench -- web-live [--seconds 60] [--rate 20]`: the web app under live load.
 * Messages arrive at --rate per second for --seconds in #general (sent over HTTP by ten
 * people), three times over, with the server in its own process (its CPU read from /proc):
 *
 *   A. one signed-in page open on All messages (the messages land on screen): the page's
 *      long tasks (PerformanceObserver 'longtask', wall clock) and, from a Chromium trace, the
 *      most CPU one task of the page took; the server's CPU and the page's /json/events polls;
 *   B. a plain API client instead (register, then GET /api/v1/events in a loop over one
 *      keep-alive socket): the server's CPU and its polls, for the same events; and B2, the
 *      same client polling /json/events with the page's session cookie (the page's polls
 *      alone, without its other requests);
 *   C. nobody listening: the server's CPU for the sends alone.
 *
 * Server CPU per poll = (CPU of A or B - CPU of C) / polls. The page also marks the messages
 * read as they show (POST /json/messages/flags) and reports presence: counted and printed,
 * and part of its figure, as they are part of what an open page costs the server.
 * Prints figures; never fails on a timing. Linux only (for /proc).
 */
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { ensureWebBuilt } from '../test/helpers/browser.js';
import { reportToParent, startChild } from './lib/child.js';
import { cpuBetween, sampleCpu } from './lib/proc-cpu.js';
import { RawPoller } from './lib/raw-poller.js';

type Person = { email: string; apiKey: string };
type Setup = { base: string; reader: Person & { password: string }; senders: Person[] };

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { runDemo, DEMO_PASSWORD } = await import('../src/cli/demo.js');
  const bench = await startBenchApp('web-live');
  const demo = await runDemo(bench.app.ctx, bench.realm, { users: 12, messages: 300, seed: 1 });
  const base = await bench.app.http.listen({ port: 0, host: '127.0.0.1' });
  const [reader, ...rest] = demo.users;
  reportToParent(bench, {
    base, reader: { email: reader!.email, apiKey: reader!.api_key, password: DEMO_PASSWORD },
    senders: rest.slice(0, 10).map((u) => ({ email: u.email, apiKey: u.api_key })),
  } satisfies Setup);
} else {
  await parent();
}

async function parent(): Promise<void> {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const SECONDS = arg('seconds', 60);
  const RATE = arg('rate', 20);
  const TOTAL = SECONDS * RATE;
  if (!CHROMIUM) {
    process.stdout.write('web-live: no Chromium on this machine (apt-get install chromium); nothing measured\n');
    return;
  }
  await ensureWebBuilt();
  const { child, setup } = await startChild<Setup>(new URL(import.meta.url).pathname);
  const { base, reader, senders } = setup;
  const basic = (p: Person) => `Basic ${Buffer.from(`${p.email}:${p.apiKey}`).toString('base64')}`;
  const cpu = () => sampleCpu(child.pid!);
  let run = 0;

  /** TOTAL messages at RATE per second, each over HTTP as a client sends it. */
  async function sendAll(label: string): Promise<void> {
    run++;
    process.stderr.write(`${label}: sending ${TOTAL} messages at ${RATE}/s...\n`);
    const start = Date.now();
    const inFlight: Array<Promise<unknown>> = [];
    for (let i = 0; i < TOTAL; i++) {
      const wait = start + (i * 1000) / RATE - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const who = senders[i % senders.length]!;
      inFlight.push(fetch(`${base}/api/v1/messages`, {
        method: 'POST', headers: { authorization: basic(who), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ type: 'stream', to: 'general', topic: `live ${run}`, content: `Live message ${run}.${i} with **some** markdown :rocket:` }),
      }).then((r) => { if (!r.ok) throw new Error(`send: ${r.status}`); }));
    }
    await Promise.all(inFlight);
  }

  // A. The page.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const login = await context.request.post(`${base}/accounts/login`, { form: { username: reader.email, password: reader.password } });
  if (!login.ok()) throw new Error(`sign-in: ${login.status()}`);
  const csrf = (await context.cookies()).find((c) => c.name === 'parley_csrf')!.value;
  await context.request.post(`${base}/json/mark_all_as_read`, { headers: { 'X-CSRFToken': csrf } });
  const page: Page = await context.newPage();
  const requests = new Map<string, number>();
  page.on('request', (r) => {
    const key = `${r.method()} ${new URL(r.url()).pathname.replace(/\d+/g, '{id}')}`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
  });
  await page.goto(`${base}/`);
  await page.locator('.message').first().waitFor();
  await page.evaluate(() => {
    const w = window as unknown as { __long: number[] };
    w.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__long.push(e.duration); }).observe({ type: 'longtask' });
  });
  requests.clear();
  await browser.startTracing(page, { categories: ['toplevel'] });
  const a0 = cpu();
  await sendAll('A (page open)');
  await page.locator('.message', { hasText: `Live message ${run}.${TOTAL - 1} ` }).waitFor({ timeout: 60_000 });
  const a1 = cpu();
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: Array<{ name: string; ph: string; tid: number; tdur?: number; args?: { name?: string } }> };
  const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);
  const rows = await page.locator('.message').count();
  const pagePolls = requests.get('GET /json/events') ?? 0;
  const others = [...requests].filter(([k]) => k !== 'GET /json/events').map(([k, n]) => `${n} ${k}`).join(', ');
  const main = new Set(trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => e.tid));
  const taskCpu = trace.traceEvents.filter((e) => (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') && e.ph === 'X' && main.has(e.tid) && e.tdur !== undefined).map((e) => e.tdur! / 1000);
  await page.close();

  // B. A plain poller, as an API client listens (B2: the same over the session's /json/events).
  const url = new URL(base);
  const session = { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') };
  async function plainPoller(label: string, web: boolean): Promise<{ cpuMs: number; polls: number }> {
    const reg = await (await fetch(`${base}${web ? '/json' : '/api/v1'}/register`, {
      method: 'POST', body: new URLSearchParams({ apply_markdown: 'true' }),
      headers: web ? { cookie: session.cookie, 'x-csrftoken': csrf, 'content-type': 'application/x-www-form-urlencoded' } : { authorization: basic(reader), 'content-type': 'application/x-www-form-urlencoded' },
    })).json() as { queue_id: string };
    const poller = new RawPoller(url.hostname, Number(url.port), url.host);
    let polls = 0;
    let seen = 0;
    let stop = false;
    const polling = (async () => {
      let last = -1;
      while (!stop) {
        const r = await poller.get(`${web ? '/json' : '/api/v1'}/events?queue_id=${reg.queue_id}&last_event_id=${last}`, web ? session : basic(reader));
        polls++;
        const body = JSON.parse(r.body) as { events: Array<{ id: number; type: string }> };
        for (const e of body.events) {
          last = Math.max(last, e.id);
          if (e.type === 'message') seen++;
        }
      }
    })().catch(() => {});
    const before = cpu();
    await sendAll(label);
    while (seen < TOTAL) await new Promise((r) => setTimeout(r, 20));
    const after = cpu();
    stop = true;
    poller.close();
    await polling;
    return { cpuMs: cpuBetween(before, after)?.total ?? NaN, polls };
  }
  const api = await plainPoller('B (API poller)', false);
  const webPoller = await plainPoller('B2 (session poller on /json/events)', true);
  await browser.close();

  // C. Sends alone.
  const c0 = cpu();
  await sendAll('C (no listener)');
  const c1 = cpu();

  const ms = (x: { total: number } | undefined) => x?.total ?? NaN;
  const [cpuA, cpuC] = [ms(cpuBetween(a0, a1)), ms(cpuBetween(c0, c1))];
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(`${RATE} messages/s for ${SECONDS} s (${TOTAL} messages), server in its own process:`);
  out(`  page: ${long.length} long tasks (> 50 ms, wall clock), longest ${long.length ? Math.max(...long).toFixed(0) : 0} ms; most CPU in one page task ${Math.max(0, ...taskCpu).toFixed(1)} ms (${taskCpu.filter((x) => x > 50).length} tasks over 50 ms of CPU); ${rows} rows in the DOM at the end`);
  out(`  server CPU: page open ${cpuA} ms, API poller ${api.cpuMs} ms, session poller ${webPoller.cpuMs} ms, sends alone ${cpuC} ms`);
  out(`  page: ${pagePolls} polls of /json/events -> ${((cpuA - cpuC) / Math.max(1, pagePolls)).toFixed(2)} ms of server CPU per poll (its other requests: ${others || 'none'})`);
  out(`  API poller: ${api.polls} polls of /api/v1/events -> ${((api.cpuMs - cpuC) / Math.max(1, api.polls)).toFixed(2)} ms of server CPU per poll`);
  out(`  session poller: ${webPoller.polls} polls of /json/events -> ${((webPoller.cpuMs - cpuC) / Math.max(1, webPoller.polls)).toFixed(2)} ms of server CPU per poll`);
  child.kill('SIGTERM');
}
