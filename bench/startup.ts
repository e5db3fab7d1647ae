/**
 * `npm run bench -- startup [runs]`: how long `parley serve` takes from process start until
 * `GET /api/v1/server_settings` answers, and its resident memory once idle, for each way
 * of running it:
 *
 * - compiled: `node dist/main.js serve`, what `npm start` runs (after its build check);
 * - bin: `node bin/parley.mjs serve` (`npx parley serve`), which checks dist/ is current first;
 * - tsx: `tsx src/main.ts serve`, what `npm start` ran before there was a build.
 *
 * Each is measured on a fresh data directory (first start: migrations, the default
 * organization and its owner) and on an existing one. Runs alternate the modes so that a
 * burst of other load on the machine hits all of them; the median is printed with the
 * range. Time is wall clock; CPU is user + system time of the server's process tree until
 * it answered, which moves less with the machine's load. RSS is summed over the process
 * tree (tsx runs the server in a child of its own CLI process) 3 s after the first answer.
 * Linux only (reads /proc). Builds dist/ first when it is stale.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/pg.js';

const runs = Number(process.argv[2] ?? 5);
const root = path.dirname(import.meta.dirname);
const IDLE_MS = 3000;
const TICK_MS = 10; // USER_HZ is 100 on Linux

const built = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(1);

const modes: Record<string, string[]> = {
  compiled: [process.execPath, path.join(root, 'dist/main.js')],
  bin: [process.execPath, path.join(root, 'bin/parley.mjs')],
  tsx: [path.join(root, 'node_modules/.bin/tsx'), path.join(root, 'src/main.ts')],
};

function tree(pid: number): number[] {
  const out = [pid];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      for (const c of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) out.push(...tree(Number(c)));
    }
  } catch { /* exited */ }
  return out;
}

function cpuMs(pids: number[]): number {
  let t = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      t += (Number(f[11]) + Number(f[12])) * TICK_MS;
    } catch { /* exited */ }
  }
  return t;
}

function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch { /* exited */ }
  }
  return kb / 1024;
}

interface Sample { ms: number; cpu: number; rss: number; procs: number }

async function once(mode: string, dataDir: string): Promise<Sample> {
  const port = await freePort();
  const [cmd, ...args] = modes[mode]!;
  const started = performance.now();
  const child: ChildProcess = spawn(cmd!, [...args, 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: { ...process.env, PARLEY_LOG_LEVEL: 'silent', PARLEY_ADMIN_EMAIL: 'owner@parley.test', PARLEY_ADMIN_PASSWORD: 'startup-bench-1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  let ms: number;
  let cpu: number;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${mode} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`);
      if (res.ok) {
        ms = performance.now() - started;
        cpu = cpuMs(tree(child.pid!));
        await res.arrayBuffer();
        break;
      }
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const pids = tree(child.pid!);
  const rss = rssMb(pids);
  child.kill('SIGTERM');
  await exited;
  return { ms, cpu, rss, procs: pids.length };
}

const results = new Map<string, Sample[]>();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-startup-'));
try {
  for (let i = 0; i < runs; i++) {
    process.stderr.write(`  round ${i + 1}/${runs}\n`);
    for (const mode of Object.keys(modes)) {
      const dataDir = path.join(scratch, `${mode}-${i}`);
      results.set(`${mode} fresh`, [...(results.get(`${mode} fresh`) ?? []), await once(mode, dataDir)]);
      results.set(`${mode} existing`, [...(results.get(`${mode} existing`) ?? []), await once(mode, dataDir)]);
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[], unit: string, digits = 0) => `${median(xs).toFixed(digits)} ${unit} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
process.stdout.write(`\n| mode, data dir | to first answer | CPU until then | idle RSS | processes |\n|---|---|---|---|---|\n`);
for (const [label, xs] of results) {
  process.stdout.write(`| ${label} | ${fmt(xs.map((x) => x.ms), 'ms')} | ${fmt(xs.map((x) => x.cpu), 'ms')} | ${fmt(xs.map((x) => x.rss), 'MB', 1)} | ${xs[0]!.procs} |\n`);
}
process.stdout.write(`\n${runs} runs each, median (min-max); node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}\n`);
