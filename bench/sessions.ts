/**
 * `npm run bench -- sessions [seconds]`: GET /users/me as the web app calls it (/json with
 * the session cookie) against the API's basic auth and a bare Fastify route serving the
 * same bytes, in the same run. The session lookup is cached (reads/sessions.ts): the web
 * app's requests should cost what the API's do.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { load, printTable, type LoadResult } from './lib/load.js';

const duration = Number(process.argv[2] ?? 5);
const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'lib/server-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
const { parley, bare, email, apiKey } = JSON.parse(line) as { parley: string; bare: string; email: string; apiKey: string };
const authorization = 'Basic ' + Buffer.from(`${email}:${apiKey}`).toString('base64');
const login = await fetch(`${parley}/accounts/login`, {
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username: email, password: 'bench-password-1' }),
});
const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
if (login.status !== 200) throw new Error(`sign-in failed: ${login.status}`);

const cases: Array<[string, string, Record<string, string>]> = [
  ['GET /json/users/me (session cookie)', `${parley}/json/users/me`, { cookie }],
  ['GET /api/v1/users/me (basic auth)', `${parley}/api/v1/users/me`, { authorization }],
  ['GET /users/me (bare Fastify, same bytes)', `${bare}/api/v1/users/me`, {}],
];
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
process.stdout.write(`\n/json (session) at ${ratio(rows[0]!, rows[1]!)} of /api/v1 (basic auth), ${ratio(rows[0]!, rows[2]!)} of the bare route\n`);
