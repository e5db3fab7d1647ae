/**
 * `npm run bench -- retention [messages] [seconds]`: message retention on SQLite under send
 * load. The store is seeded with `messages` (default 1,000,000) stream messages two years
 * old, 10 recipients each, in an organization keeping 30 days; then POST /messages p99
 * (32 senders, a 10-subscriber stream) is measured for `seconds` (default 15) without
 * retention (before and after), and while archiveExpiredMessages moves every seeded message to the
 * archive. The goal (issue 36): send p99 unchanged while 1,000,000 messages expire.
 * BENCH_RATE=N sends N messages a second on a schedule (open loop, latency from each
 * scheduled start) instead of as fast as the server answers: at saturation any background
 * work costs send latency on a 2-core machine shared with the load generator, so the paced
 * run is the one that says whether a server at a busy organization's load notices retention.
 * BENCH_WARMUP is the uncounted load before the first baseline, in seconds (default 20).
 * BENCH_PAUSE_FACTOR sets the pause between batches (src/actions/retention-pace.ts), BENCH_BATCH_SIZE
 * a fixed batch size instead of the adaptive one, BENCH_HOLD_MS the adaptive one's target.
 */
import readline from 'node:readline';
import { runLoad, printStats } from './lib/http-load.js';
import { reportToParent, startChild } from './lib/child.js';

const SENDERS = 32;
const RECIPIENTS = 10;
const STREAMS = 20;
const YEAR = 365 * 86_400;

interface Setup { base: string; seeded: number; senders: Array<{ email: string; key: string }> }
interface Done { archived: number; batches: number; seconds: number }

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { archiveExpiredMessages } = await import('../src/actions/retention.js');
  const { realms } = await import('../src/store/repos/realms.js');
  const size = Number(process.argv[3]);
  const bench = await startBenchApp('retention');
  const { app, realm } = bench;
  const db = app.ctx.store.db;
  const users = await bench.addUsers(SENDERS, 'u', 'Bench User');
  await bench.addStream('subs10', users.slice(0, 10));
  const readers = users.slice(0, RECIPIENTS);
  const old: Array<Awaited<ReturnType<typeof bench.addStream>>> = [];
  for (let s = 0; s < STREAMS; s++) old.push(await bench.addStream(`old${s}`, readers));
  const t0 = Date.now();
  const when = Math.floor(Date.now() / 1000) - 2 * YEAR;
  for (let seeded = 0; seeded < size;) {
    const batch = Math.min(5000, size - seeded);
    await db.transaction().execute(async (trx) => {
      const msgs = [];
      for (let i = 0; i < batch; i++) {
        const n = seeded + i;
        const s = old[n % STREAMS]!;
        const content = `old message ${n}`;
        msgs.push({ realm_id: realm.id, sender_id: readers[n % RECIPIENTS]!.id, recipient_id: s.recipient_id!, stream_id: s.id, topic: `topic ${n % 50}`,
          topic_lower: `topic ${n % 50}`, content, rendered_content: `<p>${content}</p>`, rendered_content_version: 1, date_sent: when + Math.floor(n / 100),
          client: 'bench', last_edit_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 });
      }
      const ids: number[] = [];
      for (let i = 0; i < msgs.length; i += 500) ids.push(...(await trx.insertInto('message').values(msgs.slice(i, i + 500)).returning('id').execute()).map((r) => r.id));
      const ums = ids.flatMap((id) => readers.map((p) => ({ user_id: p.id, message_id: id, flags: 1 })));
      for (let i = 0; i < ums.length; i += 5000) await trx.insertInto('user_message').values(ums.slice(i, i + 5000)).execute();
    });
    seeded += batch;
    if (seeded % 50_000 === 0 || seeded === size) process.stderr.write(`  seeded ${seeded}/${size} messages (${Math.round((Date.now() - t0) / 1000)}s)\n`);
  }
  const settings = { ...JSON.parse(realm.settings) as Record<string, unknown>, message_retention_days: 30 };
  await realms.update(db, realm.id, { settings: JSON.stringify(settings) });
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  process.on('SIGUSR2', async () => {
    const started = performance.now();
    let last = 0;
    const pauseFactor = process.env.BENCH_PAUSE_FACTOR === undefined ? undefined : Number(process.env.BENCH_PAUSE_FACTOR);
    const batchSize = process.env.BENCH_BATCH_SIZE === undefined ? undefined : Number(process.env.BENCH_BATCH_SIZE);
    const holdMs = process.env.BENCH_HOLD_MS === undefined ? undefined : Number(process.env.BENCH_HOLD_MS);
    const r = await archiveExpiredMessages(app.ctx, {
      ...(holdMs !== undefined ? { holdMs } : {}),
      ...(pauseFactor !== undefined ? { pauseFactor } : {}),
      ...(batchSize !== undefined ? { batchSize } : {}),
      onProgress: ({ archived }) => {
        if (archived - last >= 50_000) {
          last = archived;
          process.stderr.write(`  archived ${archived}/${size} (${Math.round((performance.now() - started) / 1000)}s)\n`);
        }
      },
    });
    process.stdout.write(`${JSON.stringify({ archived: r.messages, batches: r.batches, seconds: (performance.now() - started) / 1000 } satisfies Done)}\n`);
  });
  reportToParent(bench, { base, seeded: size, senders: users.map((u) => ({ email: u.email, key: u.api_key })) } satisfies Setup);
} else {
  const size = Number(process.argv[2] ?? 1_000_000);
  const seconds = Number(process.argv[3] ?? 15);
  process.stderr.write(`  seeding ${size} expired messages...\n`);
  const { child, setup } = await startChild<Setup>(import.meta.filename, [String(size)]);
  const auth = setup.senders.map((s) => 'Basic ' + Buffer.from(`${s.email}:${s.key}`).toString('base64'));
  const rate = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
  const send = (w: number, i: number) => ({
    method: 'POST', path: '/api/v1/messages', auth: auth[w]!,
    body: new URLSearchParams({ type: 'stream', to: 'subs10', topic: `t${w % 4}`, content: `message ${i} from ${w} with **markdown**` }).toString(),
  });
  // Seeding leaves a large WAL to checkpoint and cold caches: without a long warm-up the first
  // baseline measured the machine settling (p99 37-74 ms against 8-9 ms after).
  const warmup = Number(process.env.BENCH_WARMUP ?? 20);
  await runLoad('warm-up', { base: setup.base, concurrency: SENDERS, durationMs: warmup * 1000, rate, request: send });
  const without = await runLoad('send, no retention', { base: setup.base, concurrency: SENDERS, durationMs: seconds * 1000, rate, request: send });
  // Each phase's figure as it ends: a run cut short (it can take an hour) still tells something.
  process.stderr.write(`  before archiving: send p99 ${without.p99} ms, p50 ${without.p50} ms\n`);
  let done: Done | undefined;
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    done = JSON.parse(line) as Done;
  });
  process.stderr.write(`  archiving ${setup.seeded} messages under send load...\n`);
  child.kill('SIGUSR2');
  const during = await runLoad('send, while archiving', {
    base: setup.base, concurrency: SENDERS, durationMs: 24 * 3600_000, stop: () => done !== undefined, rate, request: send,
    progress: { everyMs: 300_000, report: (s) => process.stderr.write(`  while archiving so far: send p99 ${s.p99} ms, p50 ${s.p50} ms, ${s.requests} sends, ${s.errors} errors\n`) },
  });
  process.stderr.write(`  while archiving: send p99 ${during.p99} ms, p50 ${during.p50} ms\n`);
  // Again without: the machine's other load drifts, and two baselines bracket the figure.
  const afterwards = await runLoad('send, after retention', { base: setup.base, concurrency: SENDERS, durationMs: seconds * 1000, rate, request: send });
  child.kill('SIGTERM');
  printStats([without, during, afterwards]);
  const d = done!;
  process.stdout.write(`archived ${d.archived} messages in ${d.batches} batches in ${d.seconds.toFixed(1)} s: ${Math.round(d.archived / d.seconds)} messages/s under load\n`
    + `send p99: ${without.p99} ms before and ${afterwards.p99} ms after retention, ${during.p99} ms while archiving\n`);
}
