/**
 * `npm run bench -- read [max]`: GET /messages on a growing organization (10k, 100k and
 * 1M messages by default): server-side p50 of a 100-message stream narrow, of a keyword
 * search, of the whole feed (no narrow) of a reader who received every message and of one
 * who received one in a thousand, and requests/s of the stream narrow over HTTP. SQLite; seeding writes rows
 * directly in large transactions (the send path is measured by bench/send.ts).
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { load } from './lib/load.js';
import { profileArgs } from './lib/profile.js';

const SIZES = [10_000, 100_000, 1_000_000].filter((n) => n <= Number(process.argv[3] ?? process.argv[2] ?? 1_000_000));
const STREAMS = 20;
const WORDS = ['deploy', 'release', 'lunch', 'coffee', 'review', 'incident', 'design', 'budget', 'roadmap', 'hiring', 'pizza', 'metrics'];

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { fetchMessages } = await import('../src/reads/messages.js');
  const bench = await startBenchApp('read');
  const { app, realm } = bench;
  const db = app.ctx.store.db;
  const people = await bench.addUsers(5, 'r', 'Reader');
  const streamRows: Array<Awaited<ReturnType<typeof bench.addStream>>> = [];
  for (let s = 0; s < STREAMS; s++) streamRows.push(await bench.addStream(`stream${s}`, people));
  const viewer = people[0]!;
  // A reader who receives one message in a thousand (a private message now and then, say):
  // their whole feed is a walk over many messages that are not theirs.
  const [sparse] = await bench.addUsers(1, 'sparse', 'Sparse Reader');
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  let seeded = 0;
  const input = readline.createInterface({ input: process.stdin });
  const lines = input[Symbol.asyncIterator]();
  for (const size of [10_000, 100_000, 1_000_000].filter((n) => n <= Number(process.argv[3] ?? 1_000_000))) {
    const t0 = Date.now();
    let rnd = seeded + 1;
    while (seeded < size) {
      const batch = Math.min(5000, size - seeded);
      await db.transaction().execute(async (trx) => {
        const msgs = [];
        for (let i = 0; i < batch; i++) {
          const s = streamRows[(seeded + i) % STREAMS]!;
          rnd = (rnd * 1103515245 + 12345) % 2147483648;
          const content = `${WORDS[rnd % WORDS.length]} ${WORDS[(rnd >> 4) % WORDS.length]} message ${seeded + i}`;
          msgs.push({ realm_id: realm.id, sender_id: people[(seeded + i) % 5]!.id, recipient_id: s.recipient_id!, stream_id: s.id, topic: `topic ${(seeded + i) % 50}`,
            topic_lower: `topic ${(seeded + i) % 50}`, content, rendered_content: `<p>${content}</p>`, rendered_content_version: 1, date_sent: 1_700_000_000 + seeded + i,
            client: 'bench', last_edit_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 });
        }
        const ids: number[] = [];
        for (let i = 0; i < msgs.length; i += 500) {
          const rows = await trx.insertInto('message').values(msgs.slice(i, i + 500)).returning('id').execute();
          ids.push(...rows.map((r) => r.id));
        }
        const ums = ids.flatMap((id) => people.map((p) => ({ user_id: p.id, message_id: id, flags: 1 })));
        for (const id of ids) if (id % 1000 === 0) ums.push({ user_id: sparse!.id, message_id: id, flags: 1 });
        for (let i = 0; i < ums.length; i += 5000) await trx.insertInto('user_message').values(ums.slice(i, i + 5000)).execute();
      });
      seeded += batch;
      if (seeded % 50_000 === 0 || seeded === size) process.stderr.write(`  seeded ${seeded}/${size} messages (${Math.round((Date.now() - t0) / 1000)}s)\r`);
    }
    process.stderr.write('\n');
    const time = async (narrow: unknown, n: number, who = viewer) => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fetchMessages(app.ctx.store.db, who, realm, { anchor: 'newest', numBefore: 100, numAfter: 0, includeAnchor: false, narrow, applyMarkdown: true, clientGravatar: true });
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      return Math.round(ms[Math.floor(n / 2)]! * 100) / 100;
    };
    await time([{ operator: 'stream', operand: 'stream3' }], 20);
    const narrowP50 = await time([{ operator: 'stream', operand: 'stream3' }], 200);
    const searchP50 = await time([{ operator: 'search', operand: 'incident' }], 50);
    await time([], 20);
    const homeP50 = await time([], 200);
    const sparseP50 = await time([], 20, sparse);
    const auth = 'Basic ' + Buffer.from(`${viewer.email}:${viewer.api_key}`).toString('base64');
    process.stdout.write(`${JSON.stringify({ size, base, auth, narrowP50, searchP50, homeP50, sparseP50 })}\n`);
    await lines.next();
  }
  await bench.close();
  process.exit(0);
} else {
  const child = spawn(process.execPath, [...profileArgs(), '--import', 'tsx', import.meta.filename, 'child', String(SIZES[SIZES.length - 1])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const rows: string[] = [];
  for (const _ of SIZES) {
    const line = (await out.next()).value as string;
    const r = JSON.parse(line) as { size: number; base: string; auth: string; narrowP50: number; searchP50: number; homeP50: number; sparseP50: number };
    const url = `${r.base}/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${encodeURIComponent(JSON.stringify([{ operator: 'stream', operand: 'stream3' }]))}`;
    const http = await load('read', { url, headers: { authorization: r.auth }, duration: 5, connections: 16 });
    rows.push(`${String(r.size).padEnd(10)} ${String(r.narrowP50).padEnd(22)} ${String(http.rps).padEnd(12)} ${String(http.p50).padEnd(12)} ${String(r.searchP50).padEnd(16)} ${String(r.homeP50).padEnd(15)} ${r.sparseP50}`);
    child.stdin!.write('next\n');
  }
  process.stdout.write(`messages   stream narrow p50 (ms)  HTTP req/s   HTTP p50 ms  search p50 (ms)  home p50 (ms)  sparse home p50 (ms)\n${rows.join('\n')}\n`);
}
