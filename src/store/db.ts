import { createPrivateFile, restrictFiles } from '../lib/private-files.js';
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresAdapter, sql, type CompiledQuery, type QueryResult } from 'kysely';
import { BoundedPostgresDialect } from './long-lists.js';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { DB } from './schema.js';
import type { Q } from './rows.js';
import { migrations, type MigrationDb } from './migrations/index.js';
import { BACKSTOP_PAGES, startCheckpointer, type Checkpointer } from './checkpointer.js';
import { SqliteWriter } from './sqlite-writer.js';
import { BoundedSqliteDialect, ThreadedSqliteDialect } from './sqlite-dialect.js';
import { postgresDialect, sqliteDialect, type StoreDialect } from './dialects.js';
import { withStatementCache } from './statement-lifetime.js';

export type { StoreDialect } from './dialects.js';

/** Settings of every SQLite connection Parley opens, the writer thread's included. */
const connectionPragmas = (cacheMib: number) => [
  'synchronous = NORMAL',
  'foreign_keys = ON',
  'busy_timeout = 5000',
  // Recipient rows land on many index pages at once; a large page cache (64 MiB by default,
  // config.sqliteCacheMib) keeps them hot.
  `cache_size = -${cacheMib * 1024}`,
  // A send's multi-row recipient insert needs a statement journal (it may fail part way
  // inside the group commit's transaction); past 64 KB SQLite spills that journal to a temp
  // file, and those writes cost a fifth of the send path's storage time.
  'temp_store = MEMORY',
];

/** The engine behind a database handle (or a transaction of one). */
export function dialectOf(q: { getExecutor(): { adapter: object } }): StoreDialect {
  return q.getExecutor().adapter instanceof PostgresAdapter ? postgresDialect : sqliteDialect;
}

export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface Store {
  db: Kysely<DB>;
  /** The engine's differences (dialects.ts). */
  dialect: StoreDialect;
  /** PostgreSQL: the connection pool's counts, for the metrics (pg's Pool keeps them current). */
  pool?: PoolCounts;
  /** SQLite on a file: the thread that owns the write connection (see sqlite-writer.ts). */
  writer?: SqliteWriter;
  /**
   * Runs `fn` on one consistent read-only view of the database, whatever is written meanwhile
   * (an export while the server serves): PostgreSQL's REPEATABLE READ, READ ONLY transaction;
   * on an SQLite file a connection of its own holding one read transaction (WAL keeps its
   * snapshot). An in-memory SQLite store has one connection, and no writer beside it to hide.
   */
  snapshot<T>(fn: (q: Q) => Promise<T>): Promise<T>;
  /**
   * Runs statements known up front as one transaction; each one's result, in order, and how
   * long the transaction held the writer (ms; its wait for an idle writer not counted). Later
   * statements see what earlier ones wrote, so a step depends on another through SQL, not
   * through its answer. On an SQLite file the writer thread runs them in one go between two
   * group commits, when no send waits (SqliteWriter.script): for background work that must
   * not block the request thread, as a transaction of its own does there. Elsewhere, an
   * ordinary transaction.
   */
  script(steps: readonly CompiledQuery[]): Promise<{ results: Array<QueryResult<unknown>>; heldMs: number }>;
  close(): Promise<void>;
}

// bigint columns (times) come back from pg as strings unless told otherwise;
// every bigint Parley stores is a UNIX time, well inside Number's safe range.
pg.types.setTypeParser(20, (v) => Number(v));

export async function openStore(opts: { databaseUrl?: string; sqlitePath?: string; cacheMib?: number; onError?: (message: string) => void }): Promise<Store> {
  const pragmas = connectionPragmas(opts.cacheMib ?? 64);
  let db: Kysely<DB>;
  let dialect: StoreDialect;
  let sqlitePath: string | undefined;
  let migrated = false;
  let writer: SqliteWriter | undefined;
  let pool: pg.Pool | undefined;
  if (opts.databaseUrl) {
    dialect = postgresDialect;
    pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    db = new Kysely<DB>({ dialect: new BoundedPostgresDialect({ pool }) });
  } else {
    dialect = sqliteDialect;
    const file = opts.sqlitePath ?? ':memory:';
    if (file !== ':memory:') {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // 0600 before SQLite opens it (its -wal and -shm take the database file's mode); files
      // of earlier versions are made private too.
      createPrivateFile(file);
      restrictFiles(`${file}-wal`, `${file}-shm`, `${file}-journal`);
    }
    const reader = withStatementCache(() => {
      const sqlite = new Database(file);
      // exec, not pragma(): pragma() prepares a statement each time (see KEPT in statement-lifetime.ts). The busy
      // timeout first: a replacement connection (withStatementCache) opens beside the others.
      sqlite.exec([...pragmas, 'journal_mode = WAL'].map((p) => `PRAGMA ${p};`).join('\n'));
      return sqlite;
    }, file !== ':memory:');
    if (file === ':memory:') {
      db = new Kysely<DB>({ dialect: new BoundedSqliteDialect({ database: reader }) });
    } else {
      // Migrations run on one connection before the writer thread opens its own.
      const setup = new Kysely<DB>({ dialect: new BoundedSqliteDialect({ database: { ...reader, close: () => {} } }) });
      try {
        await migrate(setup, dialect);
      } catch (err) {
        reader.close();
        throw err;
      }
      migrated = true;
      writer = new SqliteWriter(file, [...pragmas, `wal_autocheckpoint = ${BACKSTOP_PAGES}`], opts.onError ?? ((m) => process.emitWarning(m)));
      db = new Kysely<DB>({ dialect: new ThreadedSqliteDialect(reader, writer) });
      // Kysely destroys only a driver it has started, which happens on first use: a store
      // opened and closed unused (a restore's final migration check) would leave its
      // connections, and the writer thread, open.
      await db.connection().execute(async () => {});
      sqlitePath = file;
      // The -wal and -shm files exist by now; should an SQLite build not copy the mode, fix it.
      restrictFiles(`${file}-wal`, `${file}-shm`);
    }
  }
  try {
    if (!migrated) await migrate(db, dialect);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  // Started once the schema is in place, so a failed migration leaves nothing running.
  const checkpointer: Checkpointer | undefined = sqlitePath
    ? startCheckpointer(sqlitePath, opts.onError ?? ((m) => process.emitWarning(m))) : undefined;
  const snapshot = <T>(fn: (q: Q) => Promise<T>): Promise<T> => {
    if (dialect === postgresDialect) return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(fn);
    return sqlitePath ? sqliteSnapshot(sqlitePath, fn) : fn(db);
  };
  const script = async (steps: readonly CompiledQuery[]): Promise<{ results: Array<QueryResult<unknown>>; heldMs: number }> => {
    if (writer) return writer.script(steps.map((s) => ({ sql: s.sql, params: s.parameters })));
    const started = performance.now();
    const results = await db.transaction().execute(async (trx) => {
      const out: Array<QueryResult<unknown>> = [];
      for (const s of steps) out.push(await trx.executeQuery(s));
      return out;
    });
    return { results, heldMs: performance.now() - started };
  };
  return {
    db, dialect, snapshot, script, ...(writer ? { writer } : {}), ...(pool ? { pool } : {}),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

export { withStatementCache } from './statement-lifetime.js';

async function sqliteSnapshot<T>(file: string, fn: (q: Q) => Promise<T>): Promise<T> {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  sqlite.exec('PRAGMA busy_timeout = 5000;');
  const snapshotDb = new Kysely<DB>({ dialect: new BoundedSqliteDialect({ database: sqlite }) });
  try {
    // A deferred transaction takes its snapshot at its first read: read at once.
    sqlite.exec('BEGIN');
    sqlite.prepare('SELECT count(*) FROM realm').get();
    return await fn(snapshotDb);
  } finally {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    await snapshotDb.destroy();
  }
}

/** Runs each migration not yet recorded, in order, each in its own transaction. */
async function migrate(db: Kysely<DB>, dialect: StoreDialect): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS parley_migration (name text PRIMARY KEY, applied_at bigint NOT NULL)`.execute(db);
  const done = new Set(
    (await sql<{ name: string }>`SELECT name FROM parley_migration`.execute(db)).rows.map((r) => r.name),
  );
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    await db.transaction().execute(async (trx) => {
      await m.up(trx as MigrationDb, dialect.name);
      await sql`INSERT INTO parley_migration (name, applied_at) VALUES (${m.name}, ${Math.floor(Date.now() / 1000)})`.execute(trx);
    });
  }
}
