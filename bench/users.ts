/**
 * `npm run bench -- users [seconds]`: authenticated GET /users/me and public
 * GET /server_settings against a bare Fastify route serving the same bytes, in the
 * same run on the same machine. Target: /users/me at >= 60% of the bare route.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { load, printTable, type LoadResult } from './lib/load.js';

const duration = Number(process.argv[2] ?? 8);
const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'lib/server-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
const { parley, bare, email, apiKey } = JSON.parse(line) as { parley: string; bare: string; email: string; apiKey: string };
const authorization = 'Basic ' + Buffer.from(`${email}:${apiKey}`).toString('base64');

const cases: Array<[string, string, Record<string, string>]> = [
  ['GET /users/me (Parley, basic auth)', `${parley}/api/v1/users/me`, { authorization }],
  ['GET /users/me (bare Fastify, same bytes)', `${bare}/api/v1/users/me`, {}],
  ['GET /server_settings (Parley)', `${parley}/api/v1/server_settings`, {}],
  ['GET /server_settings (bare Fastify, same bytes)', `${bare}/api/v1/server_settings`, {}],
];
// Rounds alternate the cases and the median round is reported, so a burst of other
// load on the machine hits both sides of a comparison instead of one.
const ROUNDS = 3;
const results: LoadResult[][] = cases.map(() => []);
for (const [label, url, headers] of cases) await load(label, { url, headers, duration: 1 }); // warm-up
for (let round = 1; round <= ROUNDS; round++) {
  process.stderr.write(`  round ${round}/${ROUNDS} (${cases.length} x ${duration}s)...\n`);
  for (const [i, [label, url, headers]] of cases.entries()) results[i]!.push(await load(label, { url, headers, duration }));
}
child.kill('SIGTERM');
const rows = results.map((rs) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!);

printTable(rows);
const ratio = (a: LoadResult, b: LoadResult) => `${Math.round((100 * a.rps) / b.rps)}%`;
process.stdout.write(`\n/users/me at ${ratio(rows[0]!, rows[1]!)} of the bare route (target >= 60%); /server_settings at ${ratio(rows[2]!, rows[3]!)}\n`);
