/**
 * `npm run bench -- import [messages] [--sqlite | --pg] [--generate-only]`: a generated Slack
 * workspace export (bench/lib/slack-export.ts: 1,000,000 messages by default, in 100 channels
 * with 1,000 people, reactions, threads, DMs and group DMs over two years of per-day files),
 * imported as `parley import slack` imports it, on SQLite (a temporary data directory) and on
 * a throwaway PostgreSQL cluster (test/helpers/pg.ts) when the machine has PostgreSQL.
 * Prints messages per second, wall time, and the importing process's peak RSS (VmHWM: each
 * import runs in a child process of its own, which reports it when done, along with its RSS
 * before the import). The issue's goal: 10,000 messages/s and under 300 MB. The export is
 * written to the system's temporary directory and deleted afterwards. The import runs the
 * compiled build (dist/, rebuilt first when stale), as `parley import` does; the generator
 * runs in a child of its own too. `--generate-only` times the generator alone (its time and
 * peak RSS).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { writeSlackExport, type SlackExportSummary } from './lib/slack-export.js';
import { findPgBin, startCluster, type PgCluster } from '../test/helpers/pg.js';
import { IMPORT_MALLOC_ARENAS, importNodeOptions } from '../src/import/memory.js';

/** bench/lib/import-child.mjs's line: runImport's counts, its time, and the process's RSS before and at its peak. */
interface ChildReport {
  messages: number;
  /** People who came in soft-deactivated (src/import/slack/idle.ts): fewer recipient rows to write. */
  idle: number;
  ms: number;
  rssBeforeKb: number;
  hwmKb: number;
}

function procKb(field: 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** Runs a child process, and answers the JSON line it prints when done. */
async function inChild<T>(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const line = new Promise<string | undefined>((resolve) => {
    const rl = readline.createInterface({ input: proc.stdout });
    rl.once('line', resolve);
    rl.once('close', () => resolve(undefined));
  });
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  const out = await line;
  if (code !== 0 || !out) throw new Error(`${argv.join(' ')} failed (exit ${code})`);
  return JSON.parse(out) as T;
}

type GenerateReport = SlackExportSummary & { seconds: number; hwmKb: number };

/** In a child, so that neither the generator's heap nor its peak counts against the import. */
async function generate(zip: string, messages: number): Promise<void> {
  const t0 = performance.now();
  let drawn = 0;
  const summary = await writeSlackExport(zip, {
    messages,
    onProgress: (w, total) => {
      if (Date.now() - drawn < 500 && w < total) return;
      drawn = Date.now();
      process.stderr.write(`\r  generating: ${w.toLocaleString('en')} / ${total.toLocaleString('en')} messages (${((100 * w) / total).toFixed(0)} %, ${((performance.now() - t0) / 1000).toFixed(1)} s)   `);
    },
  });
  process.stderr.write('\n');
  const report: GenerateReport = { ...summary, seconds: (performance.now() - t0) / 1000, hwmKb: procKb('VmHWM') };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const messages = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const engines = args.includes('--sqlite') ? ['sqlite'] : args.includes('--pg') ? ['postgres'] : ['sqlite', 'postgres'];
  const zip = path.join(os.tmpdir(), `parley-bench-slack-${process.pid}.zip`);
  if (!args.includes('--generate-only')) {
    const built = spawnSync(process.execPath, [new URL('../scripts/build.mjs', import.meta.url).pathname, '--if-stale'], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the build failed');
  }
  let cluster: PgCluster | undefined;
  try {
    const summary = await inChild<GenerateReport>(['--import', 'tsx', new URL(import.meta.url).pathname, 'generate', zip, String(messages)]);
    console.log(`Slack export: ${summary.messages.toLocaleString('en')} messages (${summary.threadReplies.toLocaleString('en')} thread replies, ` +
      `${summary.messagesWithReactions.toLocaleString('en')} with reactions), ${summary.people} people and ${summary.bots} bots, ${summary.channels} channels ` +
      `(${summary.privateChannels} private), ${summary.dms} DMs, ${summary.mpims} group DMs, ${summary.files.toLocaleString('en')} files over ${summary.days} days, ` +
      `${(summary.bytes / 1048576).toFixed(0)} MB zipped`);
    console.log(`generated in ${summary.seconds.toFixed(1)} s (${Math.round(messages / summary.seconds).toLocaleString('en')} messages/s), generator peak RSS ${mb(summary.hwmKb)}`);
    if (args.includes('--generate-only')) return;

    console.log(`${'engine'.padEnd(10)} ${'messages'.padStart(10)} ${'wall'.padStart(9)} ${'msgs/s'.padStart(9)} ${'RSS before'.padStart(11)} ${'peak RSS'.padStart(9)}`);
    for (const engine of engines) {
      let databaseUrl: string | undefined;
      if (engine === 'postgres') {
        const bin = findPgBin();
        if (!bin) {
          console.log('postgres   skipped: no PostgreSQL binaries found (set PARLEY_PG_BIN)');
          continue;
        }
        cluster = await startCluster(bin);
        databaseUrl = cluster.url;
      }
      // With the malloc arenas and node options bin/parley.mjs gives `parley import`, unless comparing against the defaults.
      const unbounded = process.env.BENCH_IMPORT_UNBOUNDED === '1';
      const arenas = unbounded || process.env.MALLOC_ARENA_MAX ? {} : { MALLOC_ARENA_MAX: String(IMPORT_MALLOC_ARENAS) };
      const child = [new URL('./lib/import-child.mjs', import.meta.url).pathname, zip, ...(databaseUrl ? [databaseUrl] : [])];
      const r = await inChild<ChildReport>([...(unbounded ? [] : importNodeOptions([])), ...child], { ...process.env, ...arenas });
      cluster?.stop();
      cluster = undefined;
      console.log(`${engine.padEnd(10)} ${r.messages.toLocaleString('en').padStart(10)} ${`${(r.ms / 1000).toFixed(1)} s`.padStart(9)} ` +
        `${Math.round(r.messages / (r.ms / 1000)).toLocaleString('en').padStart(9)} ${mb(r.rssBeforeKb).padStart(11)} ${mb(r.hwmKb).padStart(9)}`);
      if (r.messages !== messages) console.log(`  note: ${messages.toLocaleString('en')} generated, ${r.messages.toLocaleString('en')} imported`);
      if (r.idle > 0) console.log(`  note: ${r.idle.toLocaleString('en')} people came in idle (10 messages or fewer): no recipient rows for their channel messages`);
    }
  } finally {
    cluster?.stop();
    fs.rmSync(zip, { force: true });
  }
}

const [mode, a1, a2] = process.argv.slice(2);
if (mode === 'generate') await generate(a1!, Number(a2));
else await main();
