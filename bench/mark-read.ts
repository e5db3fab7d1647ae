/**
 * `npm run bench -- mark-read [unread] [--pg]`: a reader with `unread` unread messages
 * (100,000 by default) behind as many read ones, in an organization where four others
 * received the same messages (ten streams of twenty topics); the time of POST
 * /mark_all_as_read over HTTP, and of /mark_stream_as_read (a tenth of them) and
 * /messages/flags (1,000 ids read, then unread), each over 5 rounds that first reset the
 * reader's rows with a direct UPDATE. SQLite by default; `--pg` runs on a throwaway PostgreSQL
 * cluster (test/helpers/pg.ts). Seeding writes rows directly.
 */
import { sql } from 'kysely';
import { startBenchApp } from './lib/bench-app.js';
import { findPgBin, startCluster, type PgCluster } from '../test/helpers/pg.js';
import type { StreamRow } from '../src/store/rows.js';

const args = process.argv.slice(2);
const usePg = args.includes('--pg');
const UNREAD = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const STREAMS = 10;
const ROUNDS = 5;

let cluster: PgCluster | undefined;
if (usePg) {
  const bin = findPgBin();
  if (!bin) throw new Error('no PostgreSQL binaries found (set PARLEY_PG_BIN)');
  cluster = await startCluster(bin);
}
const bench = await startBenchApp('mark-read', cluster ? { databaseUrl: cluster.url } : {});
try {
  const { app, realm } = bench;
  const db = app.ctx.store.db;
  const people = await bench.addUsers(5, 'm', 'Marker');
  const reader = people[0]!;
  const streams: StreamRow[] = [];
  for (let s = 0; s < STREAMS; s++) streams.push(await bench.addStream(`stream${s}`, people));
  const total = UNREAD * 2;
  const t0 = Date.now();
  let firstUnreadId = 0;
  for (let seeded = 0; seeded < total;) {
    const batch = Math.min(5000, total - seeded);
    await db.transaction().execute(async (trx) => {
      const msgs = [];
      for (let i = seeded; i < seeded + batch; i++) {
        const s = streams[i % STREAMS]!;
        msgs.push({ realm_id: realm.id, sender_id: people[1 + (i % 4)]!.id, recipient_id: s.recipient_id!, stream_id: s.id, topic: `topic ${i % 20}`,
          topic_lower: `topic ${i % 20}`, content: `message ${i}`, rendered_content: `<p>message ${i}</p>`, rendered_content_version: 1,
          date_sent: 1_700_000_000 + i, client: 'bench', last_edit_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 });
      }
      const ids: number[] = [];
      for (let i = 0; i < msgs.length; i += 500) ids.push(...(await trx.insertInto('message').values(msgs.slice(i, i + 500)).returning('id').execute()).map((r) => r.id));
      // The older half is read by everyone; of the newer half only the reader has not read it.
      const rows = ids.flatMap((id, k) => people.map((p, j) => ({ user_id: p.id, message_id: id, flags: seeded + k < UNREAD || j > 0 ? 1 : 0 })));
      if (seeded + batch > UNREAD && firstUnreadId === 0) firstUnreadId = ids[Math.max(0, UNREAD - seeded)]!;
      for (let i = 0; i < rows.length; i += 2000) await trx.insertInto('user_message').values(rows.slice(i, i + 2000)).execute();
    });
    seeded += batch;
    if (seeded % 50_000 === 0 || seeded === total) process.stderr.write(`  seeded ${seeded}/${total} messages (${Math.round((Date.now() - t0) / 1000)}s)\r`);
  }
  process.stderr.write('\n');
  // What autovacuum would have done after such a load: without statistics the planner guesses.
  if (usePg) await sql`ANALYZE`.execute(db);

  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  const auth = 'Basic ' + Buffer.from(`${reader.email}:${reader.api_key}`).toString('base64');
  const post = async (path: string, body = ''): Promise<number> => {
    const t = performance.now();
    const res = await fetch(`${base}/api/v1${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${text}`);
    return performance.now() - t;
  };
  const unreadCount = async () => Number((await db.selectFrom('user_message').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', reader.id)
    .where(sql<boolean>`(flags & 1) = 0`).executeTakeFirstOrThrow()).n);
  const markUnread = () => db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '&', sql.lit(~1)) }))
    .where('user_id', '=', reader.id).where('message_id', '>=', firstUnreadId).execute();
  const markRead = () => db.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', sql.lit(1)) })).where('user_id', '=', reader.id).execute();
  const rounds = async (label: string, run: () => Promise<number>, expectLeft: number, reset = markUnread) => {
    const ms: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await reset();
      ms.push(await run());
      const left = await unreadCount();
      if (left !== expectLeft) throw new Error(`${label}: ${left} unread left, expected ${expectLeft}`);
    }
    ms.sort((a, b) => a - b);
    process.stdout.write(`${label}: median ${ms[Math.floor(ROUNDS / 2)]!.toFixed(0)} ms, best ${ms[0]!.toFixed(0)} ms, worst ${ms.at(-1)!.toFixed(0)} ms\n`);
  };
  const engine = usePg ? 'PostgreSQL' : 'SQLite';
  process.stdout.write(`${engine}: reader with ${UNREAD.toLocaleString('en')} unread of ${total.toLocaleString('en')} messages `
    + `(${(total * people.length).toLocaleString('en')} recipient rows), ${ROUNDS} rounds\n`);
  await rounds('POST /mark_all_as_read', () => post('/mark_all_as_read'), 0);
  await rounds(`POST /mark_stream_as_read (${(UNREAD / STREAMS).toLocaleString('en')} unread)`, () => post('/mark_stream_as_read', `stream_id=${streams[3]!.id}`), UNREAD - UNREAD / STREAMS);
  const thousand = JSON.stringify(Array.from({ length: 1000 }, (_, i) => firstUnreadId + i * 7));
  await rounds('POST /messages/flags (read, 1,000 ids)', () => post('/messages/flags', `op=add&flag=read&messages=${encodeURIComponent(thousand)}`), UNREAD - 1000);
  await rounds('POST /messages/flags (unread, 1,000 ids, with message_details)', () => post('/messages/flags', `op=remove&flag=read&messages=${encodeURIComponent(thousand)}`), 1000, markRead);
} finally {
  await bench.close();
  cluster?.stop();
}
