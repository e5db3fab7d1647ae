/**
 * `npm run bench -- register [n]`: POST /register with every event type for a user of an
 * organization of 1,000 users and 200 streams (the user in 40 of them), sequentially,
 * p50 and p99 of the server's answer time.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { profileArgs } from './lib/profile.js';

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { sendMessage } = await import('../src/actions/message-send.js');
  const bench = await startBenchApp('register');
  const { app, realm } = bench;
  const users = await bench.addUsers(1000, 'g', 'Member');
  for (let s = 0; s < 200; s++) {
    // Every stream has 50 members; user 0 is in every fifth stream.
    const members = users.filter((_, i) => (i + s) % 20 === 0 || (i === 0 && s % 5 === 0));
    const stream = await bench.addStream({ name: `stream ${s}`, inviteOnly: s % 10 === 0 }, members);
    for (let m = 0; m < 5; m++) await sendMessage(app.ctx, realm, members[m % members.length]!, { to: { kind: 'stream', id: stream.id }, topic: `t${m}`, content: `hello ${m}`, client: 'bench' });
    if (s % 50 === 49) process.stderr.write(`  ${s + 1}/200 streams\r`);
  }
  process.stderr.write('\n');
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  const u = users[0]!;
  process.stdout.write(`${JSON.stringify({ base, auth: 'Basic ' + Buffer.from(`${u.email}:${u.api_key}`).toString('base64') })}\n`);
  process.on('SIGTERM', async () => {
    await bench.close();
    process.exit(0);
  });
} else {
  const n = Number(process.argv[2] ?? 100);
  const child = spawn(process.execPath, [...profileArgs(), '--import', 'tsx', import.meta.filename, 'child'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { base, auth } = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdout! }).once('line', r))) as { base: string; auth: string };
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n + 10; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/register`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_capabilities=%7B%22notification_settings_null%22%3Atrue%7D' });
    const text = await res.text();
    if (res.status !== 200) throw new Error(text);
    if (i >= 10) times.push(performance.now() - t0);
    bytes = text.length;
  }
  child.kill('SIGTERM');
  times.sort((a, b) => a - b);
  process.stdout.write(`POST /register, all event types, 1,000 users / 200 streams: p50 ${times[Math.floor(n / 2)]!.toFixed(1)} ms, `
    + `p99 ${times[Math.floor(n * 0.99)]!.toFixed(1)} ms over ${n} requests (${(bytes / 1024).toFixed(0)} KB each)\n`);
}
