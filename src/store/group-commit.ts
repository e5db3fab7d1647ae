import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Store } from './db.js';
import type { DB, MessageTable } from './schema.js';
import { rowsWritten } from './changes.js';
import { NO_WRITE_OBSERVER, type WriteObserver } from './write-observer.js';
import {
  MAX_BATCH, POSTGRES_BATCH, RELEASE, ROLLBACK_TO, SAVEPOINT, SQLITE_BATCH, duplicateRowsError, firstMessageUpdate,
  messageInsert, recipientRowStatements, scheduledAlreadyHandled, scheduledDelivery, sortRecipientRows, type UnitResult,
} from './message-batch.js';

/** A send, ready to store: everything about it was decided before it joined a batch. */
export interface MessageWrite {
  message: Insertable<MessageTable>;
  /** The stream, when its first_message_id was unset as the send was prepared. */
  firstOf: number | null;
  recipients: Array<{ user_id: number; flags: number }>;
  /** A scheduled message this send delivers: [its id, the lease the delivery holds] (message-batch.ts). */
  scheduled?: [number, number] | null;
}

export interface MessageWritten {
  id: number;
  /** This message became its stream's first_message_id. */
  first: boolean;
}

interface Item {
  write: MessageWrite;
  at: number;
  resolve: (v: MessageWritten) => void;
  reject: (e: unknown) => void;
}

/**
 * One batch on PostgreSQL, with the same SQL in the same order as the SQLite writer
 * thread's (message-batch.ts).
 */
async function storeBatch(db: Kysely<DB>, writes: MessageWrite[]): Promise<UnitResult[]> {
  const s = POSTGRES_BATCH;
  const run = (q: Kysely<DB>, text: string, parameters: readonly unknown[] = []) => q.executeQuery<{ id: number }>(CompiledQuery.raw(text, [...parameters]));
  return db.transaction().execute(async (trx) => {
    const results: UnitResult[] = [];
    const rows: Array<[number, number, number]> = [];
    for (const w of writes) {
      await run(trx, SAVEPOINT);
      try {
        const insert = messageInsert(w.message as Record<string, unknown>, s);
        const id = Number((await run(trx, insert.text, insert.parameters)).rows[0]!.id);
        if (w.scheduled && Number((await run(trx, scheduledDelivery(s), [id, ...w.scheduled])).numAffectedRows) !== 1) throw scheduledAlreadyHandled();
        const first = w.firstOf !== null && Number((await run(trx, firstMessageUpdate(s), [id, w.firstOf])).numAffectedRows) === 1;
        await run(trx, RELEASE);
        results.push({ id, first });
        for (const r of w.recipients) rows.push([r.user_id, id, r.flags]);
      } catch (error) {
        await run(trx, ROLLBACK_TO);
        await run(trx, RELEASE);
        results.push({ error: error instanceof Error ? error : new Error(String(error)) });
      }
    }
    for (const st of recipientRowStatements(sortRecipientRows(rows, s), s)) {
      const r = await run(trx, st.text, st.parameters);
      if (r.numAffectedRows !== undefined && Number(r.numAffectedRows) !== st.rows) throw duplicateRowsError(st.rows - Number(r.numAffectedRows));
    }
    return results;
  });
}

/**
 * Group commit for sends: the sends that arrive while a batch is being stored wait for
 * it, then all go in the next transaction (see message-batch.ts). One COMMIT (one WAL
 * write or fsync) serves the batch.
 *
 * On SQLite the writer thread batches by itself (sqlite-writer-thread.ts): sends go
 * straight to it, and it stores together whatever arrived while it was busy. This
 * batcher serves PostgreSQL.
 */
class GroupCommitter {
  private pending: Item[] = [];
  private running = false;
  /** Sends taken from `pending` whose batch has not committed yet. */
  private storing = 0;
  observer: WriteObserver = NO_WRITE_OBSERVER;

  constructor(private store: Store) {}

  get queued(): number {
    return this.pending.length + this.storing;
  }

  submit(write: MessageWrite): Promise<MessageWritten> {
    return new Promise<MessageWritten>((resolve, reject) => {
      this.pending.push({ write, at: performance.now(), resolve, reject });
      if (!this.running) {
        this.running = true;
        // Waiting one turn of the event loop lets every request that already arrived join.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.runBatch(this.pending.splice(0, MAX_BATCH));
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Item[]): Promise<void> {
    let results: UnitResult[];
    this.storing = batch.length;
    try {
      results = await storeBatch(this.store.db, batch.map((i) => i.write));
    } catch (error) {
      // The batch as a whole failed (its recipient rows or its COMMIT): nothing was stored.
      this.settled(batch, 0);
      for (const item of batch) item.reject(error);
      return;
    } finally {
      this.storing = 0;
    }
    let stored = 0;
    for (const r of results) if (!('error' in r)) stored += 1;
    this.settled(batch, stored);
    for (const [i, item] of batch.entries()) {
      const r = results[i]!;
      if ('error' in r) item.reject(r.error);
      else item.resolve(r);
    }
  }

  private settled(batch: Item[], stored: number): void {
    if (this.observer === NO_WRITE_OBSERVER) return;
    const now = performance.now();
    for (const item of batch) this.observer.sendWait((now - item.at) / 1000);
    this.observer.batch(batch.length, stored);
  }
}

const committers = new WeakMap<Store, GroupCommitter>();

function committerOf(store: Store): GroupCommitter {
  let c = committers.get(store);
  if (!c) committers.set(store, (c = new GroupCommitter(store)));
  return c;
}

/** Tells `observer` of every batch of this store's sends, and of its writer's waits. */
export function observeWrites(store: Store, observer: WriteObserver): void {
  if (store.writer) store.writer.observer = observer;
  else committerOf(store).observer = observer;
}

/** Sends (and, on SQLite, transactions) waiting for the writer now. */
export function queuedWrites(store: Store): number {
  return store.writer ? store.writer.queued : committerOf(store).queued;
}

/**
 * Stores one send within the next batch; resolves once that batch has committed. Never
 * await it inside a transaction: on SQLite no batch starts while a transaction is open.
 */
export async function storeMessage(store: Store, write: MessageWrite): Promise<MessageWritten> {
  let written: MessageWritten;
  if (store.writer) {
    const { text, parameters } = messageInsert(write.message as Record<string, unknown>, SQLITE_BATCH);
    const recipients: number[] = [];
    for (const r of write.recipients) recipients.push(r.user_id, r.flags);
    written = await store.writer.storeMessage({ sql: text, params: parameters, firstOf: write.firstOf, recipients, scheduled: write.scheduled ?? null });
  } else {
    written = await committerOf(store).submit(write);
  }
  // The stream row changed under whatever holds it.
  if (written.first) rowsWritten(store.db, 'streams');
  return written;
}
