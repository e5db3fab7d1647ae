import type { Insertable } from 'kysely';
import type { Store } from './db.js';
import type { MessageTable } from './schema.js';
import type { UnitResult } from './sqlite-writer.js';
import { messages } from './repos/messages.js';

/** A send, ready to store: everything about it was decided before it joined a batch. */
export interface MessageWrite {
  message: Insertable<MessageTable>;
  /** The stream, when its first_message_id was unset as the send was prepared. */
  firstOf: number | null;
  recipients: Array<{ user_id: number; flags: number }>;
}

export interface MessageWritten {
  id: number;
  /** This message became its stream's first_message_id. */
  first: boolean;
}

interface Item {
  write: MessageWrite;
  resolve: (v: MessageWritten) => void;
  reject: (e: unknown) => void;
}

const MAX_BATCH = 128;

/**
 * Group commit for sends: the sends that arrive while a batch is being stored wait for
 * it, then all go in the next transaction, each message in its own savepoint so that one
 * failing rolls back alone, with every recipient row of the batch in one sorted insert.
 * One COMMIT (one WAL write or fsync) serves the batch.
 *
 * On SQLite the writer thread batches by itself (sqlite-writer.ts): sends go straight to
 * it, and it stores together whatever arrived while it was busy. This batcher serves the
 * other engines.
 */
class GroupCommitter {
  private pending: Item[] = [];
  private running = false;

  constructor(private store: Store) {}

  submit(write: MessageWrite): Promise<MessageWritten> {
    return new Promise<MessageWritten>((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
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
    try {
      results = await messages.storeBatch(this.store.db, batch.map((i) => i.write));
    } catch (error) {
      // The batch as a whole failed (its recipient rows or its COMMIT): nothing was stored.
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) {
      const r = results[i]!;
      if ('error' in r) item.reject(r.error);
      else item.resolve(r);
    }
  }
}

const committers = new WeakMap<Store, GroupCommitter>();

/**
 * Stores one send within the next batch; resolves once that batch has committed. Never
 * await it inside a transaction: on SQLite no batch starts while a transaction is open.
 */
export function storeMessage(store: Store, write: MessageWrite): Promise<MessageWritten> {
  if (store.writer) return messages.storeOnWriter(store.writer, write);
  let c = committers.get(store);
  if (!c) committers.set(store, (c = new GroupCommitter(store)));
  return c.submit(write);
}
