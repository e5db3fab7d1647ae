/**
 * `npm run bench -- multipart-flood [count] [MiB]`: `count` (default 40) concurrent multipart
 * requests of MiB (default 24) each, without credentials, at four routes (ordinary ones and
 * the two upload routes), half with a declared length and half chunked: issue 22's attack,
 * which added 1 GB of RSS when every route collected every part before authentication.
 * Prints the server process's RSS before and after, its high-water mark (VmHWM), and how
 * long the refusals took. Server in its own process (bench/lib/server-child.ts). Linux only.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { flood } from '../test/helpers/multipart-flood.js';

const count = Number(process.argv[2] ?? 40);
const mib = Number(process.argv[3] ?? 24);
const root = path.dirname(import.meta.dirname);

const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/lib/server-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const ready = await new Promise<{ parley: string }>((resolve, reject) => {
  readline.createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  child.once('exit', (code) => reject(new Error(`server exited: ${code}`)));
});

function status(field: 'VmRSS' | 'VmHWM'): number {
  const line = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

const paths = ['/api/v1/messages', '/api/v1/user_uploads', '/api/v1/users/me/status', '/api/v1/realm/emoji/flood'];
// Warm each kind of refusal once (declared and chunked, each route), so that the figure
// is not the first requests' code loading and compiling.
await flood(ready.parley, paths, paths.length * 2, mib * 1024 * 1024);
await new Promise((r) => setTimeout(r, 3000));
const before = status('VmRSS');
const hwmBefore = status('VmHWM');
const started = performance.now();
const answers = await flood(ready.parley, paths, count, mib * 1024 * 1024);
const wall = performance.now() - started;
await new Promise((r) => setTimeout(r, 3000));
const after = status('VmRSS');
const statuses = new Map<number, number>();
for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
const sent = answers.reduce((s, a) => s + a.sent, 0) / (1024 * 1024);
process.stdout.write(`${count} x ${mib} MiB multipart without credentials: answers ${[...statuses].map(([s, n]) => `${n}x${s}`).join(', ')} in ${Math.round(wall)} ms `
  + `(slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms); ${sent.toFixed(1)} MiB of ${count * mib} MiB sent before the answers\n`);
process.stdout.write(`server RSS ${before.toFixed(1)} -> ${after.toFixed(1)} MiB (+${(after - before).toFixed(1)}), high-water ${hwmBefore.toFixed(1)} -> ${status('VmHWM').toFixed(1)} MiB\n`);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
