/**
 * The SQL of a group commit (group-commit.ts), written once for both engines: the SQLite
 * writer thread (sqlite-writer-thread.ts) and the batcher that serves PostgreSQL run these
 * same texts in the same order. A batch is one transaction: each message in its own
 * savepoint, so that one failing rolls back alone, then every recipient row of the batch
 * in as few multi-row inserts as the engines' parameter limits allow, then COMMIT.
 *
 * Kept free of Kysely and the rest of the store: the writer thread loads it.
 */

/** The most sends one batch stores; more wait for the next. */
export const MAX_BATCH = 128;

/** Recipient rows per INSERT: three parameters each, under SQLite's 32,766 and PostgreSQL's 65,535. */
export const MAX_ROWS_PER_INSERT = 4096;

export const SAVEPOINT = 'SAVEPOINT parley_unit';
export const RELEASE = 'RELEASE SAVEPOINT parley_unit';
export const ROLLBACK_TO = 'ROLLBACK TO SAVEPOINT parley_unit';

/** How an engine writes what differs in these texts. */
export interface BatchSyntax {
  engine: 'sqlite' | 'postgres';
  /** Positional parameter `i`, from 0. */
  param(i: number): string;
  /**
   * SQLite: OR IGNORE. A multi-row insert that could abort part way needs a statement
   * journal, a copy of every page it touches (one or more per recipient), and that copying
   * was a seventh of the send path's storage time. A conflict (which would be a bug) is
   * still caught: the rows stored are counted.
   */
  insertRows: string;
  /** SQLite appends the message's rows (keyed by message, migration 009); PostgreSQL keys them by user. */
  rowOrder: 'message' | 'user';
}

export const SQLITE_BATCH: BatchSyntax = { engine: 'sqlite', param: () => '?', insertRows: 'INSERT OR IGNORE INTO', rowOrder: 'message' };
export const POSTGRES_BATCH: BatchSyntax = { engine: 'postgres', param: (i) => `$${i + 1}`, insertRows: 'INSERT INTO', rowOrder: 'user' };

const texts = new Map<string, string>();

function remembered(key: string, make: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    // Texts are per column set and row count: bounded in practice, but never unbounded.
    if (texts.size > 2000) texts.clear();
    texts.set(key, (text = make()));
  }
  return text;
}

/**
 * The message row's INSERT, its text built once per column set: Kysely's builder and
 * compiler took a twentieth of a send's time on the request thread.
 */
export function messageInsert(row: Record<string, unknown>, s: BatchSyntax): { text: string; parameters: unknown[] } {
  const columns = Object.keys(row);
  const text = remembered(`m${s.engine}${columns.join(',')}`, () =>
    `INSERT INTO "message" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => s.param(i)).join(', ')})`
    + (s.engine === 'postgres' ? ' RETURNING id' : ''));
  return { text, parameters: columns.map((c) => row[c]) };
}

/** Parameters: the message id, the stream id. Changes one row when this message is the stream's first. */
export const firstMessageUpdate = (s: BatchSyntax): string =>
  `UPDATE stream SET first_message_id = ${s.param(0)} WHERE id = ${s.param(1)} AND first_message_id IS NULL`;

/**
 * Parameters: the message id, the scheduled message's id, the lease its delivery holds.
 * Run in the message's savepoint: a send that delivers a scheduled message stores only if
 * this changes its row, so that it is delivered once even when several nodes try, and not
 * after it was edited, deleted or taken over by another node meanwhile.
 */
export const scheduledDelivery = (s: BatchSyntax): string =>
  `UPDATE scheduled_message SET delivered = 1, delivered_message_id = ${s.param(0)} WHERE id = ${s.param(1)} AND claimed_until = ${s.param(2)} AND delivered = 0 AND failed = 0`;

export const SCHEDULED_NOT_HELD = 'scheduled message no longer held by this delivery';
export const scheduledAlreadyHandled = () => new Error(SCHEDULED_NOT_HELD);

/** Parameters: user_id, message_id, flags for each of `n` rows. */
export function recipientRowsInsert(n: number, s: BatchSyntax): string {
  return remembered(`r${s.engine}${n}`, () =>
    `${s.insertRows} user_message (user_id, message_id, flags) VALUES ${Array.from({ length: n }, (_, i) => `(${s.param(3 * i)}, ${s.param(3 * i + 1)}, ${s.param(3 * i + 2)})`).join(', ')}`);
}

/** The batch's recipient rows as [user_id, message_id, flags], in the order the engine's key wants them. */
export function sortRecipientRows(rows: Array<[number, number, number]>, s: BatchSyntax): Array<[number, number, number]> {
  return s.rowOrder === 'message' ? rows.sort((a, b) => a[1] - b[1] || a[0] - b[0]) : rows.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/**
 * A batch's recipient rows as whole INSERT statements: chunks of MAX_ROWS_PER_INSERT rows,
 * then of the powers of two that make up the rest, so that any number of rows needs one
 * of thirteen statement texts (each text is a statement its connection keeps for good).
 */
export function* recipientRowStatements(rows: Array<[number, number, number]>, s: BatchSyntax): Generator<{ text: string; parameters: number[]; rows: number }> {
  for (let i = 0, n = MAX_ROWS_PER_INSERT; i < rows.length; i += n) {
    while (n > rows.length - i) n >>= 1;
    const chunk = rows.slice(i, i + n);
    yield { text: recipientRowsInsert(chunk.length, s), parameters: chunk.flat(), rows: chunk.length };
  }
}

export const duplicateRowsError = (missing: number) => new Error(`recipient rows: ${missing} duplicate (user_id, message_id) keys`);

/** One send for a batch: its message row's INSERT, and its recipients as flat (user_id, flags) pairs. */
export interface MessageUnit {
  sql: string;
  params: readonly unknown[];
  /** A stream whose first_message_id is still unset: this message may become it. */
  firstOf: number | null;
  recipients: number[];
  /** A scheduled message this send delivers: [its id, the lease the delivery holds]. */
  scheduled?: [number, number] | null;
}

export type UnitResult = { id: number; first: boolean } | { error: Error };
