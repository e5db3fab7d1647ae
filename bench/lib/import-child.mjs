/**
 * The importing process of bench/import.ts: one import of a Slack export into a fresh data
 * directory (and the database given, if any), reported as one JSON line on stdout with its
 * time, its RSS before the import and its peak RSS (VmHWM). JavaScript on the compiled build
 * (dist/), as `parley import` runs, so that neither tsx nor the sources count in its memory
 * (under tsx the same process starts ~70 MB larger). It loads the CLI's modules, as the real
 * command's process does, though it calls the import directly, to time it alone.
 *
 *   node bench/lib/import-child.mjs EXPORT.zip [DATABASE_URL]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const [zip, databaseUrl] = process.argv.slice(2);
const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
// Every module `parley import` has loaded by the time it runs, so that they count in its memory.
await import(dist('cli/index.js'));
const { openContext } = await import(dist('open-context.js'));
const { ensureDefaultRealm } = await import(dist('cli/bootstrap.js'));
const { runImport } = await import(dist('import/run.js'));
const { boundImportMemory } = await import(dist('import/memory.js'));

function procKb(field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Progress on stderr: one line per phase, redrawn at most twice a second. */
function stderrProgress() {
  let label = '';
  let total;
  let n = 0;
  let drawn = 0;
  const draw = (force = false) => {
    const now = Date.now();
    if (!force && now - drawn < 500) return;
    drawn = now;
    process.stderr.write(`\r  ${label}: ${n.toLocaleString('en')}${total ? ` / ${total.toLocaleString('en')} (${((100 * n) / total).toFixed(0)} %)` : ''}   `);
  };
  const endLine = () => {
    draw(true);
    process.stderr.write('\n');
  };
  return {
    phase(l, t) {
      if (label) endLine();
      label = l;
      total = t;
      n = 0;
      draw(true);
    },
    tick(k = 1) {
      n += k;
      draw();
    },
    done() {
      if (label) endLine();
      label = '';
    },
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-import-'));
// As `parley import` opens its context (src/cli/transfer.ts); BENCH_IMPORT_UNBOUNDED=1 leaves V8's and SQLite's defaults, to compare.
const bounds = process.env.BENCH_IMPORT_UNBOUNDED === '1' ? {} : boundImportMemory();
const ctx = await openContext({ dataDir, databaseUrl, logLevel: 'warn', rateLimiting: false, ...bounds });
try {
  await ensureDefaultRealm(ctx, { welcome: false });
  const rssBeforeKb = procKb('VmRSS');
  const t0 = performance.now();
  const r = await runImport(ctx, 'slack', zip, { stringId: 'slackbench', name: 'Slack benchmark' }, stderrProgress());
  process.stdout.write(`${JSON.stringify({ messages: r.messages, idle: r.idle, ms: performance.now() - t0, rssBeforeKb, hwmKb: procKb('VmHWM') })}\n`);
} finally {
  await ctx.bus.close();
  ctx.mail.close();
  await ctx.store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
