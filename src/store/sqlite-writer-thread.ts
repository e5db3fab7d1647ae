/**
 * The body of the SQLite writer thread (sqlite-writer.ts starts it). It owns the write
 * connection: statements the request thread sends one by one on the sync port (each
 * awaited blocked: its transactions and lone writes), and batches of sends on their own
 * port, stored with the group commit's SQL (message-batch.ts), and scripts on that port:
 * whole transactions of background work (retention) run here in one go, when no send waits.
 */
import { parentPort, workerData, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { withStatementCache } from './statement-lifetime.js';
import {
  MAX_BATCH, RELEASE, ROLLBACK_TO, SAVEPOINT, SQLITE_BATCH, duplicateRowsError, firstMessageUpdate, recipientRowStatements,
  scheduledAlreadyHandled, scheduledDelivery, sortRecipientRows, type MessageUnit,
} from './message-batch.js';

interface WriterData { file: string; pragmas: string[]; sends: MessagePort; sync: MessagePort; answered: Int32Array }
interface QueuedUnit extends MessageUnit { id: number; at: number }
interface QueuedScript { id: number; script: Array<{ sql: string; params: unknown[] }>; at: number }
type ScriptStepResult = { rows: unknown[] } | { changes: number; lastInsertRowid: number | bigint };

const { file, pragmas, sends, sync, answered } = workerData as WriterData;
const port = parentPort!;

function open(): Database.Database {
  const conn = new Database(file);
  // exec, not pragma(): pragma() prepares a statement each time (see KEPT in statement-lifetime.ts).
  for (const p of pragmas) conn.exec(`PRAGMA ${p}`);
  return conn;
}
// Texts are few (IN-lists come in few lengths, recipient rows in powers of two); past the
// bound, the cache starts again on a new connection, which frees SQLite's statements.
const db = withStatementCache(open, true);
const statement = (text: string): Database.Statement => db.prepare(text);

const errorOf = (err: unknown) => ({ message: String((err as Error)?.message ?? err), code: (err as { code?: string })?.code });
const FIRST_SQL = firstMessageUpdate(SQLITE_BATCH);
const SCHEDULED_SQL = scheduledDelivery(SQLITE_BATCH);

function storeMessages(units: QueuedUnit[]): Array<{ id: number; first: boolean } | { error: ReturnType<typeof errorOf> }> {
  const results: Array<{ id: number; first: boolean } | { error: ReturnType<typeof errorOf> }> = [];
  const rows: Array<[number, number, number]> = [];
  statement('BEGIN').run();
  try {
    for (const u of units) {
      statement(SAVEPOINT).run();
      try {
        const id = Number(statement(u.sql).run(u.params).lastInsertRowid);
        if (u.scheduled && statement(SCHEDULED_SQL).run(id, u.scheduled[0], u.scheduled[1]).changes !== 1) throw scheduledAlreadyHandled();
        const first = u.firstOf !== null && statement(FIRST_SQL).run(id, u.firstOf).changes === 1;
        statement(RELEASE).run();
        results.push({ id, first });
        for (let i = 0; i < u.recipients.length; i += 2) rows.push([u.recipients[i]!, id, u.recipients[i + 1]!]);
      } catch (err) {
        statement(ROLLBACK_TO).run();
        statement(RELEASE).run();
        results.push({ error: errorOf(err) });
      }
    }
    for (const s of recipientRowStatements(sortRecipientRows(rows, SQLITE_BATCH), SQLITE_BATCH)) {
      const changes = statement(s.text).run(s.parameters).changes;
      // OR IGNORE skips a duplicate key silently; a duplicate would be a bug, so it fails the batch.
      if (changes !== s.rows) throw duplicateRowsError(s.rows - changes);
    }
    statement('COMMIT').run();
  } catch (err) {
    if (db.inTransaction) statement('ROLLBACK').run();
    throw err;
  }
  return results;
}

// Group commit. Sends that arrive while a batch is being stored make up the next one, so
// the writer never waits for the request thread. A batch writes a WAL frame for every page
// it touches (an unread-index page per recipient) whatever its size, so while sends keep
// coming the writer waits up to LINGER_MS for MIN_BATCH of them; after a quiet spell a send
// is stored at once. A transaction of the request thread's own is never entered: queued
// sends wait for its end.
const MIN_BATCH = 16;
const LINGER_MS = 2;
const BUSY_MS = 5;
/**
 * A script waits for a moment when no send is queued, so that a send never waits behind
 * background work it could have gone before; under sends that never pause, it runs anyway
 * once it has waited this long.
 */
const SCRIPT_PATIENCE_MS = 20;
const queued: QueuedUnit[] = [];
const scripts: QueuedScript[] = [];
let flushing = false;
let timer: NodeJS.Timeout | undefined;
let lastBatchEnd = -Infinity;

function later(): void {
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
}

function take(m: QueuedUnit | QueuedScript): void {
  m.at = performance.now();
  if ('script' in m) scripts.push(m);
  else queued.push(m);
}

function runScript(s: QueuedScript): void {
  const results: ScriptStepResult[] = [];
  const started = performance.now();
  try {
    statement('BEGIN').run();
    for (const step of s.script) {
      const stmt = statement(step.sql);
      if (stmt.reader) results.push({ rows: stmt.all(step.params) });
      else {
        const r = stmt.run(step.params);
        results.push({ changes: r.changes, lastInsertRowid: r.lastInsertRowid });
      }
    }
    statement('COMMIT').run();
    sends.postMessage({ scriptId: s.id, results, heldMs: performance.now() - started });
  } catch (err) {
    if (db.inTransaction) statement('ROLLBACK').run();
    sends.postMessage({ scriptId: s.id, error: errorOf(err) });
  }
}

function flush(): void {
  flushing = false;
  clearTimeout(timer);
  if (db.inTransaction) return;
  for (let m; (m = receiveMessageOnPort(sends)); ) take(m.message as QueuedUnit | QueuedScript);
  if (scripts.length > 0 && (queued.length === 0 || performance.now() - scripts[0]!.at >= SCRIPT_PATIENCE_MS)) {
    // Not a batch end: sends after a script go at once rather than linger for company.
    runScript(scripts.shift()!);
    if (queued.length > 0 || scripts.length > 0) later();
    return;
  }
  if (queued.length === 0) return;
  const now = performance.now();
  const waited = now - queued[0]!.at;
  if (now - lastBatchEnd < BUSY_MS && queued.length < MIN_BATCH && waited < LINGER_MS) {
    timer = setTimeout(flush, LINGER_MS - waited);
    return;
  }
  const batch = queued.splice(0, MAX_BATCH);
  const ids = batch.map((u) => u.id);
  try {
    sends.postMessage({ ids, results: storeMessages(batch) });
  } catch (err) {
    sends.postMessage({ ids, error: errorOf(err) });
  }
  lastBatchEnd = performance.now();
  if (queued.length > 0 || scripts.length > 0) later();
}

sends.on('message', (m: QueuedUnit | QueuedScript) => {
  take(m);
  later();
});

type Statement = { id: number; sql: string; params: unknown[]; begin?: boolean };

function run(m: Statement): object {
  try {
    // A transaction's BEGIN travels with its first statement (sqlite-dialect.ts).
    if (m.begin) statement('BEGIN').run();
    const stmt = statement(m.sql);
    if (stmt.reader) return { id: m.id, rows: stmt.all(m.params) };
    const r = stmt.run(m.params);
    return { id: m.id, changes: r.changes, lastInsertRowid: r.lastInsertRowid };
  } catch (err) {
    return { id: m.id, error: errorOf(err) };
  }
}

port.on('message', (m: 'close') => {
  if (m !== 'close') return;
  clearTimeout(timer);
  db.close();
  sends.close();
  sync.close();
  port.close();
});

// Statements: the request thread waits, blocked, for the word to change
// (SqliteWriter.querySync); the answer is on the port before it does.
sync.on('message', (m: Statement) => {
  sync.postMessage(run(m));
  Atomics.store(answered, 0, 1);
  Atomics.notify(answered, 0);
  if ((queued.length > 0 || scripts.length > 0) && !db.inTransaction) later();
});
