import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';

/**
 * The thread that owns SQLite's write connection. A write holds the writer for as long as
 * SQLite takes to change B-tree pages and append them to the WAL: for a send to a stream
 * of 100 members that is most of the request's cost, and on the request thread it kept the
 * event loop from parsing the next requests. Here the writes of one batch run while the
 * request thread prepares the next, on the machine's other core.
 *
 * Plain JavaScript, evaluated as a worker, so that it runs the same under tsx and plain node.
 */
const WORKER = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const Database = require(workerData.driver);
// Every database and statement this thread makes is kept until the thread ends: collected by
// the garbage collector, one can abort the process on Node 24 (see KEPT in db.ts).
const kept = [];
function open() {
  const db = new Database(workerData.file);
  kept.push(db);
  for (const p of workerData.pragmas) db.exec('PRAGMA ' + p);
  return db;
}
let db = open();
let cache = new Map();
function statement(text) {
  let stmt = cache.get(text);
  if (!stmt) {
    // Texts are few (IN-lists come in few lengths, recipient rows in powers of two); should they
    // pass the bound all the same, start again on a new connection, which frees SQLite's statements.
    if (cache.size >= 2000 && !db.inTransaction) {
      const next = open();
      db.close();
      db = next;
      cache = new Map();
    }
    stmt = db.prepare(text);
    kept.push(stmt);
    cache.set(text, stmt);
  }
  return stmt;
}
function errorOf(err) {
  return { message: String(err && err.message || err), code: err && err.code };
}
// A batch of sends in one transaction: each message in its own savepoint, so that one that
// fails rolls back alone, then every recipient row of the batch in key order (message, then
// user: appended to the table; each user's unread-index entries arrive in id order), then
// COMMIT.
function storeMessages(units) {
  const results = [];
  const rows = [];
  statement('BEGIN').run();
  try {
    for (const u of units) {
      statement('SAVEPOINT parley_unit').run();
      try {
        const id = Number(statement(u.sql).run(u.params).lastInsertRowid);
        const first = u.firstOf !== null && statement(u.firstSql).run(id, u.firstOf).changes === 1;
        statement('RELEASE SAVEPOINT parley_unit').run();
        results.push({ id, first });
        for (let i = 0; i < u.recipients.length; i += 2) rows.push([u.recipients[i], id, u.recipients[i + 1]]);
      } catch (err) {
        statement('ROLLBACK TO SAVEPOINT parley_unit').run();
        statement('RELEASE SAVEPOINT parley_unit').run();
        results.push({ error: errorOf(err) });
      }
    }
    rows.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    // In chunks of 4,096 rows and then of the powers of two that make up the rest: thirteen
    // statement texts for any number of rows.
    for (let i = 0, n = 4096; i < rows.length; i += n) {
      while (n > rows.length - i) n >>= 1;
      const chunk = rows.slice(i, i + n);
      const text = units[0].rowsSql + Array(chunk.length).fill('(?, ?, ?)').join(', ');
      const changes = statement(text).run(chunk.flat()).changes;
      // OR IGNORE skips a duplicate key silently; a duplicate would be a bug, so it fails the batch.
      if (changes !== chunk.length) throw new Error('recipient rows: ' + (chunk.length - changes) + ' duplicate (user_id, message_id) keys');
    }
    statement('COMMIT').run();
  } catch (err) {
    if (db.inTransaction) statement('ROLLBACK').run();
    throw err;
  }
  return results;
}
// Group commit. Sends arrive on their own port, and those that arrive while a batch is being
// stored make up the next one, so the writer never waits for the request thread. A batch
// writes a WAL frame for every page it touches (an unread-index page per recipient)
// whatever its size, so while sends keep coming the writer waits up to LINGER_MS for
// MIN_BATCH of them; after a quiet spell a send is stored at once. A transaction of the request thread's own (statement
// by statement on parentPort) is never entered: queued sends wait for its end.
const MIN_BATCH = 16;
const LINGER_MS = 2;
const BUSY_MS = 5;
const sends = workerData.sends;
const queued = [];
let flushing = false;
let timer;
let lastBatchEnd = -Infinity;
function later() {
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
}
function flush() {
  flushing = false;
  clearTimeout(timer);
  if (db.inTransaction) return;
  for (let m; (m = receiveMessageOnPort(sends)); ) queued.push({ ...m.message, at: performance.now() });
  if (queued.length === 0) return;
  const now = performance.now();
  const waited = now - queued[0].at;
  if (now - lastBatchEnd < BUSY_MS && queued.length < MIN_BATCH && waited < LINGER_MS) {
    timer = setTimeout(flush, LINGER_MS - waited);
    return;
  }
  const batch = queued.splice(0, workerData.maxBatch);
  const ids = batch.map((u) => u.id);
  try {
    sends.postMessage({ ids, results: storeMessages(batch) });
  } catch (err) {
    sends.postMessage({ ids, error: errorOf(err) });
  }
  lastBatchEnd = performance.now();
  if (queued.length > 0) later();
}
sends.on('message', (u) => {
  u.at = performance.now();
  queued.push(u);
  later();
});
parentPort.on('message', (m) => {
  if (m === 'close') {
    clearTimeout(timer);
    db.close();
    sends.close();
    parentPort.close();
    return;
  }
  try {
    const stmt = statement(m.sql);
    if (stmt.reader) parentPort.postMessage({ id: m.id, rows: stmt.all(m.params) });
    else {
      const r = stmt.run(m.params);
      parentPort.postMessage({ id: m.id, changes: r.changes, lastInsertRowid: r.lastInsertRowid });
    }
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: errorOf(err) });
  }
  if (queued.length > 0 && !db.inTransaction) later();
});
`;

export interface WriteResult {
  rows: unknown[];
  numAffectedRows?: bigint;
  insertId?: bigint;
}

/** One send for storeMessages: its message row, and its recipients as flat (user_id, flags) pairs. */
export interface MessageUnit {
  sql: string;
  params: readonly unknown[];
  /** A stream whose first_message_id is still unset: this message may become it. */
  firstOf: number | null;
  recipients: number[];
  /** Sets a stream's first_message_id: (message id, stream id). */
  firstSql: string;
  /** The recipient insert up to its VALUES. */
  rowsSql: string;
}

interface BatchReply {
  ids: number[];
  results?: Array<{ id: number; first: boolean } | { error: { message: string; code?: string } }>;
  error?: { message: string; code?: string };
}

const MAX_BATCH = 256;

export type UnitResult = { id: number; first: boolean } | { error: Error };

interface Reply {
  id: number;
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  error?: { message: string; code?: string };
}

/** Errors cross the thread as data; callers match on SQLite's code, so it is kept. */
const sqliteError = (e: { message: string; code?: string }) => new Database.SqliteError(e.message, e.code ?? 'SQLITE_ERROR');

export class SqliteWriter {
  private worker: Worker;
  private sends: MessagePort;
  private nextId = 1;
  private waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void }>();
  private sending = new Map<number, { resolve: (r: { id: number; first: boolean }) => void; reject: (e: unknown) => void }>();
  private failed: Error | undefined;
  private exited: Promise<void>;
  /** FIFO lock: a transaction holds the writer from BEGIN to COMMIT or ROLLBACK. */
  private tail: Promise<void> = Promise.resolve();

  constructor(file: string, pragmas: string[], onError: (message: string) => void) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const channel = new MessageChannel();
    this.sends = channel.port1;
    this.worker = new Worker(WORKER, { eval: true, workerData: { file, driver, pragmas, sends: channel.port2, maxBatch: MAX_BATCH }, transferList: [channel.port2] });
    this.worker.on('message', (m: Reply) => this.settle(m));
    this.sends.on('message', (m: BatchReply) => this.settleBatch(m));
    this.sends.unref();
    this.worker.on('error', (err) => {
      onError(`SQLite writer failed: ${String(err)}`);
      this.fail(err instanceof Error ? err : new Error(String(err)));
    });
    this.exited = new Promise<void>((resolve) => this.worker.once('exit', () => {
      this.fail(new Error('SQLite writer has stopped'));
      resolve();
    }));
    // Only pending work keeps the process up (see call() and storeMessage()).
    this.worker.unref();
  }

  /** Waits for the writer; the returned function hands it on. */
  async lock(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const before = this.tail;
    this.tail = before.then(() => held);
    await before;
    return release;
  }

  async query(sql: string, params: readonly unknown[]): Promise<WriteResult> {
    const m = await this.call({ sql, params });
    if (m.rows) return { rows: m.rows };
    return { rows: [], numAffectedRows: BigInt(m.changes ?? 0), insertId: BigInt(m.lastInsertRowid ?? 0) };
  }

  /**
   * Stores a send in the writer's next batch (see flush above); resolves once that batch
   * has committed. Needs no lock: the writer never starts a batch inside a transaction.
   */
  storeMessage(unit: MessageUnit): Promise<{ id: number; first: boolean }> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    if (this.sending.size === 0) this.sends.ref();
    return new Promise((resolve, reject) => {
      this.sending.set(id, { resolve, reject });
      this.sends.postMessage({ id, ...unit });
    });
  }

  private settleBatch(m: BatchReply): void {
    for (const [i, id] of m.ids.entries()) {
      const w = this.sending.get(id);
      if (!w) continue;
      this.sending.delete(id);
      const r = m.results?.[i];
      if (m.error) w.reject(sqliteError(m.error));
      else if (!r) w.reject(new Error('SQLite writer gave no result for a send'));
      else if ('error' in r) w.reject(sqliteError(r.error));
      else w.resolve(r);
    }
    if (this.sending.size === 0) this.sends.unref();
  }

  private call(payload: object): Promise<Reply> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...payload });
    });
  }

  async close(): Promise<void> {
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  private settle(m: Reply): void {
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (m.error) w.reject(sqliteError(m.error));
    else w.resolve(m);
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const w of [...this.waiting.values(), ...this.sending.values()]) w.reject(err);
    this.waiting.clear();
    this.sending.clear();
    this.sends.close();
  }
}
