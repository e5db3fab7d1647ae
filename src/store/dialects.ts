import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from './schema.js';
import type { Q } from './rows.js';
import { messages, type UserMessageBounds } from './repos/messages.js';
import { prepared } from './prepared.js';
import { POSTGRES_BATCH, SQLITE_BATCH, type BatchSyntax } from './message-batch.js';

/**
 * What differs between the engines, each difference once, as an object per engine. Code
 * outside the store asks these questions and never tests an engine's name.
 */
export interface StoreDialect {
  name: 'sqlite' | 'postgres';
  /**
   * Recipient rows keyed by message (SQLite, migration 009): a narrow that no message
   * index answers walks the viewer's own rows along the partial indexes, and a walk over
   * messages stops at the viewer's first and last message. PostgreSQL keeps Zulip's
   * user-keyed layout and needs neither.
   */
  walksOwnRows: boolean;
  /** The id range of a user's messages, where walks need it (see walksOwnRows); null otherwise. */
  userBounds(q: Q, userId: number): Promise<UserMessageBounds | null>;
  /** The user's newest message id, -1 when none. */
  maxMessageId(q: Q, userId: number): Promise<number>;
  /** Full-text search: every word must match, as a prefix. */
  searchMatch(words: string[]): Expression<SqlBool>;
  /** How the group commit's SQL is written for this engine (message-batch.ts). */
  batch: BatchSyntax;
  /**
   * `n` new ids of an id table, ascending and reserved once the transaction commits, for rows
   * inserted with explicit ids then or later (the importer: recipient rows need their
   * message's id before it is stored, and its rows are stored in a Store.script).
   */
  nextIds(q: Q, table: 'message', n: number): Promise<number[]>;
  /**
   * The id the current transaction's last insert into `table` took, as an SQL expression
   * for a later statement of the same transaction (Store.script, whose steps cannot pass
   * answers on). Only after such an insert.
   */
  lastInsertedId(table: 'archive_transaction'): RawBuilder<number>;
}

const range = (first: number, n: number) => Array.from({ length: n }, (_, i) => first + i);

export const sqliteDialect: StoreDialect = {
  name: 'sqlite',
  walksOwnRows: true,
  userBounds: (q, userId) => messages.userBounds(q, userId),
  // The user's last message comes from the ends of their partial indexes.
  maxMessageId: async (q, userId) => (await messages.userBounds(q, userId)).last ?? -1,
  searchMatch: (words) => {
    const match = words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(' AND ');
    return sql<SqlBool>`message.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ${match})`;
  },
  batch: SQLITE_BATCH,
  // AUTOINCREMENT never reuses an id, even a deleted newest one: past both the counter and the
  // newest row. The caller's write transaction holds the only writer, so nothing takes them meanwhile.
  nextIds: async (q, table, n) => {
    const { rows } = await sql<{ m: number | null }>`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ${table}), 0), coalesce((SELECT max(id) FROM ${sql.table(table)}), 0)) AS m`.execute(q);
    const first = Number(rows[0]?.m ?? 0) + 1;
    // Reserved, as nextval reserves on PostgreSQL: an AUTOINCREMENT table's next id is above
    // sqlite_sequence's, so rows inserted after this commits (sends, while an import stores
    // its rows in a later transaction) never take these.
    const last = first + n - 1;
    const updated = await sql`UPDATE sqlite_sequence SET seq = ${last} WHERE name = ${table}`.execute(q);
    if (Number(updated.numAffectedRows ?? 0) === 0) await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table}, ${last})`.execute(q);
    return range(first, n);
  },
  // The transaction holds the only writer: the row it just inserted is the newest.
  lastInsertedId: (table) => sql<number>`(SELECT max(id) FROM ${sql.table(table)})`,
};

// Recipient rows keyed by user: one index step.
const maxQuery = prepared((db, userId: number) =>
  db.selectFrom('user_message').select((eb) => eb.fn.max('message_id').as('m')).where('user_id', '=', userId), [0]);

export const postgresDialect: StoreDialect = {
  name: 'postgres',
  walksOwnRows: false,
  userBounds: async () => null,
  maxMessageId: async (q, userId) => {
    const [row] = await maxQuery(q as Kysely<DB>, userId);
    return row?.m == null ? -1 : Number(row.m);
  },
  searchMatch: (words) => {
    const query = words.map((w) => `${w.replace(/[^\p{L}\p{N}_]/gu, '')}:*`).join(' & ');
    return sql<SqlBool>`message.search_tsv @@ to_tsquery('english', ${query})`;
  },
  batch: POSTGRES_BATCH,
  // From the sequence, as every other insert takes them: ascending, though not always contiguous.
  nextIds: async (q, table, n) => {
    const { rows } = await sql<{ id: string | number }>`SELECT nextval(pg_get_serial_sequence(${table}, 'id')) AS id FROM generate_series(1, ${n})`.execute(q);
    return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  },
  // The session's own last value of the sequence, whatever other sessions took since.
  lastInsertedId: (table) => sql<number>`currval(pg_get_serial_sequence(${sql.lit(table)}, 'id'))`,
};
