import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { startModuleWorker } from '../lib/module-worker.js';
import Database from 'better-sqlite3';
import type { MessageUnit } from './message-batch.js';
import { NO_WRITE_OBSERVER, type WriteObserver } from './write-observer.js';

/**
 * The thread that owns SQLite's write connection (its body: sqlite-writer-thread.ts). A
 * write holds the writer for as long as SQLite takes to change B-tree pages and append
 * them to the WAL: for a send to a stream of 100 members that is most of the request's
 * cost, and on the request thread it kept the event loop from parsing the next requests.
 * Here the writes of one batch run while the request thread prepares the next, on the
 * machine's other core.
 *
 * Other statements are the exception (querySync): the request thread waits for each,
 * blocked. A statement holds the writer (a transaction from BEGIN to COMMIT), and with a
 * round trip through the event loop per statement it held it for as many turns of a busy
 * loop (tens of milliseconds each at 2,000 simulated users), while every other write
 * queued behind it; blocked, it holds it for the statements' own time, tens of microseconds.
 */
const THREAD = new URL('./sqlite-writer-thread.js', import.meta.url);

export interface WriteResult {
  rows: unknown[];
  numAffectedRows?: bigint;
  insertId?: bigint;
}

export interface ScriptResult {
  results: WriteResult[];
  heldMs: number;
}

interface BatchReply {
  ids: number[];
  results?: Array<{ id: number; first: boolean } | { error: { message: string; code?: string } }>;
  error?: { message: string; code?: string };
}

interface ScriptReply {
  scriptId: number;
  results?: Array<{ rows: unknown[] } | { changes: number; lastInsertRowid: number | bigint }>;
  heldMs?: number;
  error?: { message: string; code?: string };
}

interface Reply {
  id: number;
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  error?: { message: string; code?: string };
}

/** Errors cross the thread as data; callers match on SQLite's code, so it is kept. */
const sqliteError = (e: { message: string; code?: string }) => new Database.SqliteError(e.message, e.code ?? 'SQLITE_ERROR');

function resultOf(m: Reply): WriteResult {
  if (m.error) throw sqliteError(m.error);
  if (m.rows) return { rows: m.rows };
  return { rows: [], numAffectedRows: BigInt(m.changes ?? 0), insertId: BigInt(m.lastInsertRowid ?? 0) };
}

/**
 * A statement that takes this long means the writer is stuck (or gone: its exit is heard
 * on the event loop, which a blocked thread does not turn).
 */
const SYNC_TIMEOUT_MS = 10 * 60_000;

export class SqliteWriter {
  private worker: Worker;
  private sends: MessagePort;
  private nextId = 1;
  private sending = new Map<number, { resolve: (r: { id: number; first: boolean }) => void; reject: (e: unknown) => void; at: number }>();
  private scripts = new Map<number, { resolve: (r: ScriptResult) => void; reject: (e: unknown) => void }>();
  /** Transactions waiting for the lock (the one holding it not counted). */
  private lockWaiters = 0;
  /** Told of each batch and wait (the metrics); nothing by default. */
  observer: WriteObserver = NO_WRITE_OBSERVER;
  private failed: Error | undefined;
  private exited: Promise<void>;
  /** FIFO lock: a transaction holds the writer from BEGIN to COMMIT or ROLLBACK, a lone write for itself. */
  private tail: Promise<void> = Promise.resolve();
  /** querySync's way: a port read synchronously, and a word the thread sets once it has answered. */
  private syncPort: MessagePort;
  private answered = new Int32Array(new SharedArrayBuffer(4));

  constructor(file: string, pragmas: string[], onError: (message: string) => void) {
    const channel = new MessageChannel();
    const syncChannel = new MessageChannel();
    this.sends = channel.port1;
    this.syncPort = syncChannel.port1;
    this.syncPort.unref();
    this.worker = startModuleWorker(THREAD, {
      workerData: { file, pragmas, sends: channel.port2, sync: syncChannel.port2, answered: this.answered },
      transferList: [channel.port2, syncChannel.port2],
    });
    this.sends.on('message', (m: BatchReply | ScriptReply) => ('scriptId' in m ? this.settleScript(m) : this.settleBatch(m)));
    this.sends.unref();
    this.worker.on('error', (err) => {
      onError(`SQLite writer failed: ${String(err)}`);
      this.fail(err instanceof Error ? err : new Error(String(err)));
    });
    this.exited = new Promise<void>((resolve) => this.worker.once('exit', () => {
      this.fail(new Error('SQLite writer has stopped'));
      resolve();
    }));
    // Only pending sends keep the process up (see storeMessage()); statements block.
    this.worker.unref();
  }

  /** Waits for the writer; the returned function hands it on. */
  async lock(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const before = this.tail;
    this.tail = before.then(() => held);
    if (this.observer === NO_WRITE_OBSERVER) {
      await before;
      return release;
    }
    const asked = performance.now();
    this.lockWaiters += 1;
    try {
      await before;
    } finally {
      this.lockWaiters -= 1;
    }
    this.observer.lockWait((performance.now() - asked) / 1000);
    return release;
  }

  /** Sends waiting for their batch's commit, scripts for theirs, and transactions waiting for the lock. */
  get queued(): number {
    return this.sending.size + this.scripts.size + this.lockWaiters;
  }

  /**
   * Runs one statement, blocking this thread until the writer answers (see above); the
   * caller holds the lock. `begin` opens a transaction just before it.
   */
  querySync(sql: string, params: readonly unknown[], begin = false): WriteResult {
    if (this.failed) throw this.failed;
    const id = this.nextId++;
    Atomics.store(this.answered, 0, 0);
    this.syncPort.postMessage(begin ? { id, sql, params, begin } : { id, sql, params });
    const deadline = Date.now() + SYNC_TIMEOUT_MS;
    for (;;) {
      // The thread queues its answer on the port before it sets the word. An answer to a
      // statement given up on (past the deadline) is dropped.
      for (let r; (r = receiveMessageOnPort(this.syncPort)); ) if ((r.message as Reply).id === id) return resultOf(r.message as Reply);
      if (Atomics.wait(this.answered, 0, 0, 1000) === 'timed-out' && (this.failed || Date.now() > deadline)) {
        throw this.failed ?? new Error('SQLite writer did not answer');
      }
    }
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
      this.sending.set(id, { resolve, reject, at: performance.now() });
      this.sends.postMessage({ id, ...unit });
    });
  }

  /**
   * Runs the statements as one transaction on the writer thread, in one go, when no send
   * is queued (or once it has waited a little: sqlite-writer-thread.ts); resolves with each
   * statement's result once committed, and how long it held the writer (its wait for an
   * idle moment not counted). The request thread never blocks on it, unlike a
   * transaction of its own (querySync), so background work (retention) costs requests
   * nothing but the writer's time.
   */
  script(steps: ReadonlyArray<{ sql: string; params: readonly unknown[] }>): Promise<ScriptResult> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    this.sends.ref();
    return new Promise((resolve, reject) => {
      this.scripts.set(id, { resolve, reject });
      this.sends.postMessage({ id, script: steps.map((s) => ({ sql: s.sql, params: [...s.params] })) });
    });
  }

  private settleScript(m: ScriptReply): void {
    const w = this.scripts.get(m.scriptId);
    if (!w) return;
    this.scripts.delete(m.scriptId);
    if (m.error) w.reject(sqliteError(m.error));
    else {
      const results = (m.results ?? []).map((r) => ('rows' in r ? { rows: r.rows } : { rows: [], numAffectedRows: BigInt(r.changes), insertId: BigInt(r.lastInsertRowid) }));
      w.resolve({ results, heldMs: m.heldMs ?? 0 });
    }
    this.unrefWhenIdle();
  }

  private unrefWhenIdle(): void {
    if (this.sending.size === 0 && this.scripts.size === 0) this.sends.unref();
  }

  private settleBatch(m: BatchReply): void {
    const now = performance.now();
    let stored = 0;
    for (const [i, id] of m.ids.entries()) {
      const w = this.sending.get(id);
      if (!w) continue;
      this.sending.delete(id);
      this.observer.sendWait((now - w.at) / 1000);
      const r = m.results?.[i];
      if (m.error) w.reject(sqliteError(m.error));
      else if (!r) w.reject(new Error('SQLite writer gave no result for a send'));
      else if ('error' in r) w.reject(sqliteError(r.error));
      else {
        stored += 1;
        w.resolve(r);
      }
    }
    this.observer.batch(m.ids.length, stored);
    this.unrefWhenIdle();
  }

  async close(): Promise<void> {
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const w of [...this.sending.values(), ...this.scripts.values()]) w.reject(err);
    this.sending.clear();
    this.scripts.clear();
    this.sends.close();
    this.syncPort.close();
  }
}
