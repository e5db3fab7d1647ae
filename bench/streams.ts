/**
 * `npm run bench -- streams [seconds]`: the streams read paths under load against a
 * seeded organization (100 users, 300 streams, 30 subscriptions each), plus a timed
 * loop of subscribe/unsubscribe round trips. The server runs in a child process
 * (this file with --serve) so that the load generator has its own event loop.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { load, printTable, type LoadResult } from './lib/load.js';

const USERS = 100;
const STREAMS = 300;
const PER_USER = 30;

async function serve(): Promise<void> {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const bench = await startBenchApp('streams', { externalUrl: 'http://127.0.0.1' });
  const { app, owner } = bench;
  const users = [owner, ...(await bench.addUsers(USERS - 1, 'u', 'User'))];
  let firstId = 0;
  for (let s = 0; s < STREAMS; s++) {
    const members = users.filter((_, i) => (i + s) % (STREAMS / PER_USER) === 0);
    const row = await bench.addStream({ name: `stream-${s}`, inviteOnly: s % 5 === 0 }, members);
    if (s === 0) firstId = row.id;
  }
  const url = await app.http.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ url, email: owner.email, apiKey: owner.api_key, streamId: firstId })}\n`);
  process.on('SIGTERM', async () => {
    await bench.close();
    process.exit(0);
  });
}

async function drive(): Promise<void> {
  const duration = Number(process.argv[2] ?? 5);
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  const { url, email, apiKey, streamId } = JSON.parse(line) as { url: string; email: string; apiKey: string; streamId: number };
  const authorization = 'Basic ' + Buffer.from(`${email}:${apiKey}`).toString('base64');
  const cases: Array<[string, string]> = [
    ['GET /streams', `${url}/api/v1/streams`],
    ['GET /users/me/subscriptions', `${url}/api/v1/users/me/subscriptions`],
    ['GET /users/me/subscriptions?include_subscribers', `${url}/api/v1/users/me/subscriptions?include_subscribers=true`],
    ['GET /streams/{id}/members', `${url}/api/v1/streams/${streamId}/members`],
  ];
  const rows: LoadResult[] = [];
  for (const [label, u] of cases) {
    await load(label, { url: u, headers: { authorization }, duration: 1 });
    rows.push(await load(label, { url: u, headers: { authorization }, duration }));
  }
  // Writes, one client at a time: subscribe to a fresh stream name, then unsubscribe.
  const headers = { authorization, 'content-type': 'application/x-www-form-urlencoded' };
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < duration * 1000) {
    const body = new URLSearchParams({ subscriptions: JSON.stringify([{ name: `w-${n % 50}` }]) }).toString();
    await fetch(`${url}/api/v1/users/me/subscriptions`, { method: 'POST', headers, body });
    const del = new URLSearchParams({ subscriptions: JSON.stringify([`w-${n % 50}`]) }).toString();
    await fetch(`${url}/api/v1/users/me/subscriptions`, { method: 'DELETE', headers, body: del });
    n++;
  }
  const seconds = (performance.now() - started) / 1000;
  child.kill('SIGTERM');
  printTable(rows);
  process.stdout.write(`\nsubscribe+unsubscribe round trips, one client: ${Math.round(n / seconds)}/s (${n} in ${seconds.toFixed(1)} s)\n`);
  process.stdout.write(`seed: ${USERS} users, ${STREAMS} streams (every 5th private), ${PER_USER} subscriptions per user; SQLite\n`);
}

if (process.argv.includes('--serve')) await serve();
else await drive();
