/**
 * `npm run bench -- mark-read-layout`: why PostgreSQL's mark_all_as_read costs what it does,
 * measured on a bare copy of user_message (200,000 messages x 5 users, one with 100,000 unread),
 * outside the server. Wall-clock on a shared machine is noisy, so beside EXPLAIN's execution
 * time it prints shared buffers touched and WAL records, which do not move between runs:
 *  - statement forms on today's indexes: Zulip's batches of 2,000 (`IN (SELECT ... LIMIT)`),
 *    batches bounded by the 2,000th unread id, one statement for everything;
 *  - table layouts for the one-statement UPDATE: today's, with fillfactor 70, and with `flags`
 *    in no index (the only layout in which PostgreSQL may update a row in place, HOT).
 */
import pg from 'pg';
import { findPgBin, startCluster } from '../test/helpers/pg.js';

const bin = findPgBin();
if (!bin) throw new Error('no PostgreSQL binaries found (set PARLEY_PG_BIN)');
const cluster = await startCluster(bin);
const cl = new pg.Client(cluster.url);
await cl.connect();
const q = (s: string) => cl.query(s);
const BATCH = 2000;
// Today's PostgreSQL indexes (migrations 001, 007, 043: 009 changes SQLite only).
const TODAY = ['CREATE TABLE um (user_id int NOT NULL, message_id int NOT NULL, flags int NOT NULL DEFAULT 0, PRIMARY KEY (user_id, message_id))',
  'CREATE INDEX um_message ON um (message_id)',
  'CREATE INDEX um_unread ON um (user_id, message_id) WHERE (flags & 1) = 0',
  'CREATE INDEX um_starred ON um (user_id, message_id) WHERE (flags & 2) <> 0',
  'CREATE INDEX um_mentioned ON um (user_id, message_id) WHERE (flags & 56) <> 0',
  'CREATE INDEX um_private ON um (user_id, message_id) WHERE (flags & 2048) <> 0'];
const FF70 = [`${TODAY[0]} WITH (fillfactor = 70)`, ...TODAY.slice(1)];
const NO_FLAGS = [FF70[0]!, TODAY[1]!];

let hits = 0, wal = 0, ms = 0;
const explain = async (stmt: string): Promise<number> => {
  const plan = (await q(`EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${stmt}`)).rows[0]['QUERY PLAN'][0];
  hits += plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'];
  wal += plan.Plan['WAL Records'] ?? 0;
  ms += plan['Execution Time'];
  return plan.Plan['Actual Rows'] as number;
};
const unreadLeft = async () => Number((await q('SELECT count(*) AS n FROM um WHERE user_id = 1 AND (flags & 1) = 0')).rows[0].n);
const load = async (ddl: string[]) => {
  await q('DROP TABLE IF EXISTS um');
  for (const s of ddl) await q(s);
  await q(`INSERT INTO um SELECT u, m, CASE WHEN u = 1 AND m > 100000 THEN 0 ELSE 1 END
    FROM generate_series(1, 200000) m, generate_series(1, 5) u ORDER BY m, u`);
  await q('VACUUM ANALYZE um');
};
const FORMS: Record<string, () => Promise<void>> = {
  'batches, IN (SELECT ... LIMIT 2000)': async () => {
    for (;;) {
      const before = await unreadLeft();
      await q('BEGIN');
      await explain(`UPDATE um SET flags = flags | 1 WHERE user_id = 1 AND message_id IN (SELECT message_id FROM um WHERE user_id = 1 AND (flags & 1) = 0 LIMIT ${BATCH})`);
      await q('COMMIT');
      if (before <= BATCH) return;
    }
  },
  'batches, bounded by the 2,000th unread id': async () => {
    for (;;) {
      await q('BEGIN');
      const edgeSql = `SELECT message_id FROM um WHERE user_id = 1 AND (flags & 1) = 0 ORDER BY message_id LIMIT 1 OFFSET ${BATCH - 1}`;
      await explain(edgeSql);
      const edge = (await q(edgeSql)).rows[0] as { message_id: number } | undefined;
      await explain(`UPDATE um SET flags = flags | 1 WHERE user_id = 1 AND (flags & 1) = 0${edge ? ` AND message_id <= ${edge.message_id}` : ''}`);
      await q('COMMIT');
      if (!edge) return;
    }
  },
  'one statement': async () => { await explain('UPDATE um SET flags = flags | 1 WHERE user_id = 1 AND (flags & 1) = 0'); },
};
const ROUNDS = 3;
const measure = async (label: string, run: () => Promise<void>) => {
  const out: string[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await q('UPDATE um SET flags = flags & ~1 WHERE user_id = 1 AND message_id > 100000');
    await q('VACUUM um');
    hits = 0; wal = 0; ms = 0;
    await run();
    if (await unreadLeft() !== 0) throw new Error(`${label}: unread left`);
    out.push(`${ms.toFixed(0)} ms / ${(hits / 1000).toFixed(0)}k buffers / ${(wal / 1000).toFixed(0)}k WAL records`);
  }
  process.stdout.write(`${label}: ${out.join('; ')}\n`);
};
try {
  await load(TODAY);
  for (const [label, run] of Object.entries(FORMS)) await measure(`today's indexes, ${label}`, run);
  for (const [label, ddl] of [['fillfactor 70', FF70], ['fillfactor 70, flags in no index (HOT possible)', NO_FLAGS]] as const) {
    await load(ddl);
    await measure(`${label}, one statement`, FORMS['one statement']!);
  }
} finally {
  await cl.end();
  cluster.stop();
}
