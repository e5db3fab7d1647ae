/**
 * `npm run bench -- reactions [seconds] [case]`: POST and DELETE /messages/{id}/reactions
 * throughput on SQLite with 32 concurrent users, on messages of streams of 10 and 100
 * subscribers (everyone hears each reaction) and on private messages. Each user alternates
 * adding and removing its own reaction, so that every request succeeds (one never meets
 * "Reaction already exists."). The server runs in its own process.
 */
import { runLoad, printStats, type LoadStats } from './lib/http-load.js';
import { reportToParent, startChild } from './lib/child.js';
import { cpuBetween, sampleCpu } from './lib/proc-cpu.js';

const USERS = Number(process.env.BENCH_SENDERS ?? 32);

interface Setup { base: string; users: Array<{ email: string; key: string }>; messages: Record<string, number[]> }

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { sendMessage } = await import('../src/actions/message-send.js');
  const bench = await startBenchApp('reactions');
  const users = await bench.addUsers(100, 'u', 'Bench User');
  const messages: Record<string, number[]> = {};
  for (const n of [10, 100]) {
    await bench.addStream(`subs${n}`, users.slice(0, n));
    messages[`subs${n}`] = [];
    for (let i = 0; i < 8; i++) {
      messages[`subs${n}`]!.push(await sendMessage(bench.app.ctx, bench.realm, users[i]!, { to: { kind: 'stream', name: `subs${n}` }, topic: 'bench', content: `message ${i}`, client: 'bench' }));
    }
  }
  // One private message per pair of neighbours: user w reacts to the one it shares with w + 1.
  messages.private = [];
  for (let w = 0; w < USERS; w++) {
    messages.private.push(await sendMessage(bench.app.ctx, bench.realm, users[w]!, { to: { kind: 'private', ids: [users[(w + 1) % USERS]!.id] }, content: 'psst', client: 'bench' }));
  }
  const base = await bench.app.http.listen({ host: '127.0.0.1', port: 0 });
  const setup: Setup = { base, users: users.slice(0, USERS).map((u) => ({ email: u.email, key: u.api_key })), messages };
  reportToParent(bench, setup);
} else {
  const seconds = Number(process.argv[2] ?? 8);
  const { child, setup: { base, users, messages } } = await startChild<Setup>(import.meta.filename);
  const auth = users.map((s) => 'Basic ' + Buffer.from(`${s.email}:${s.key}`).toString('base64'));
  const rows: LoadStats[] = [];
  // Emoji per worker vary, so that some reactions are votes for another user's and some are new.
  const EMOJI = ['smile', 'heart', 'tada', 'octopus'];
  const cases: Array<[string, string]> = [['stream, 10 subscribers', 'subs10'], ['stream, 100 subscribers', 'subs100'], ['private, 1:1', 'private']];
  for (const [label, key] of cases.filter(([l]) => l.includes(process.argv[3] ?? ''))) {
    const ids = messages[key]!;
    // Each worker removes what its previous request added, and adds after a removal: its
    // requests are sequential, so the state it toggles is the server's.
    const has = new Array<boolean>(USERS).fill(false);
    const request = (w: number) => {
      has[w] = !has[w];
      const body = new URLSearchParams({ emoji_name: EMOJI[w % EMOJI.length]! }).toString();
      return { method: has[w] ? 'POST' : 'DELETE', path: `/api/v1/messages/${ids[w % ids.length]}/reactions`, auth: auth[w]!, body };
    };
    process.stderr.write(`  ${label} (${seconds}s)...\n`);
    await runLoad('warm-up', { base, concurrency: USERS, durationMs: 2000, request });
    const before = sampleCpu(child.pid!);
    const stats = await runLoad(label, { base, concurrency: USERS, durationMs: seconds * 1000, request });
    const used = cpuBetween(before, sampleCpu(child.pid!));
    rows.push(stats);
    if (used) process.stderr.write(`  ${label}: server CPU ${Math.round((used.total * 1000) / stats.requests)} µs/request\n`);
  }
  child.kill('SIGTERM');
  printStats(rows);
}
