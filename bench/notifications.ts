/**
 * `npm run bench -- notifications [messages] [subscribers]`: how fast missed-message
 * notifications leave. One sender posts `messages` stream messages, each in its own topic, to
 * a stream of `subscribers` people who are all away with stream email and push notifications
 * on, a phone each and a one-second email batching period: every message is one push and one
 * email per other subscriber. Prints the rate at which the pushes reach Zulip's push service
 * and the emails an SMTP server (both sinks in this process), from the first send to the last
 * delivery. The server runs in its own process.
 */
import { reportToParent, startChild } from './lib/child.js';
import { startNotifySinks } from './lib/notify-sinks.js';
import { cpuBetween, sampleCpu } from './lib/proc-cpu.js';

if (process.argv[2] === 'child') {
  const [smtpUrl, pushBouncerUrl, subscribers] = process.argv.slice(3);
  const { startBenchApp } = await import('./lib/bench-app.js');
  const bench = await startBenchApp('notifications', { smtpUrl, pushBouncerUrl, ...(process.env.BENCH_LOG ? { logLevel: process.env.BENCH_LOG } : {}) });
  const users = await bench.addUsers(Number(subscribers), 'u', 'Bench User');
  await bench.addStream('announcements', users);
  const db = bench.app.ctx.store.db;
  const settings = { enable_stream_email_notifications: true, enable_stream_push_notifications: true, email_notifications_batching_period_seconds: 1 };
  await db.updateTable('users').set({ settings: JSON.stringify(settings) }).where('is_bot', '=', 0).execute();
  await db.insertInto('push_device').values(users.map((u) => ({ user_id: u.id, kind: 2, token: `fcm-${u.id}`, ios_app_id: null, last_updated: 0 }))).execute();
  const base = await bench.app.http.listen({ host: '127.0.0.1', port: 0 });
  reportToParent(bench, { base, email: users[0]!.email, key: users[0]!.api_key });
} else {
  const messages = Number(process.argv[2] ?? 50);
  const subscribers = Number(process.argv[3] ?? 200);
  const expected = messages * (subscribers - 1);
  const sinks = await startNotifySinks();
  const { child, setup } = await startChild<{ base: string; email: string; key: string }>(import.meta.filename, [sinks.smtpUrl, sinks.bouncerUrl, String(subscribers)]);
  const auth = `Basic ${Buffer.from(`${setup.email}:${setup.key}`).toString('base64')}`;
  const cpu = sampleCpu(child.pid!);
  const started = Date.now();
  for (let i = 0; i < messages; i++) {
    const res = await fetch(`${setup.base}/api/v1/messages`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'stream', to: 'announcements', topic: `topic ${i}`, content: `news number ${i}` }),
    });
    if (!res.ok) throw new Error(`send failed: ${res.status} ${await res.text()}`);
  }
  const sent = Date.now();
  process.stderr.write(`  ${messages} messages sent in ${sent - started} ms; waiting for ${expected} pushes and ${expected} emails\n`);
  const deadline = started + 10 * 60_000;
  let pushesDone = 0;
  let mailsDone = 0;
  let lastReport = 0;
  while ((pushesDone === 0 || mailsDone === 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    if (!pushesDone && sinks.pushes >= expected) pushesDone = Date.now();
    if (!mailsDone && sinks.mails >= expected) mailsDone = Date.now();
    if (Date.now() - lastReport > 2000) {
      lastReport = Date.now();
      process.stderr.write(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${sinks.pushes} pushes, ${sinks.mails} emails\r`);
    }
  }
  process.stderr.write('\n');
  const used = cpuBetween(cpu, sampleCpu(child.pid!));
  child.kill('SIGTERM');
  const rate = (n: number, done: number) => (done ? `${Math.round((n / (done - started)) * 60_000).toLocaleString('en-US')}/min (${((done - started) / 1000).toFixed(1)} s)` : `unfinished: ${n} of ${expected} in 10 min`);
  process.stdout.write(`notifications: ${messages} messages x ${subscribers - 1} away subscribers\n`);
  process.stdout.write(`  pushes delivered: ${rate(sinks.pushes, pushesDone)}\n`);
  process.stdout.write(`  emails delivered: ${rate(sinks.mails, mailsDone)}\n`);
  if (used) process.stdout.write(`  server CPU: ${(used.total / 1000).toFixed(1)} s, ${Math.round((used.total * 1000) / (2 * expected))} µs per notification\n`);
  await sinks.close();
}
