import {
  BinaryOperationNode, CompiledQuery, OperatorNode, PrimitiveValueListNode, SqliteAdapter, SqliteDialect, SqliteIntrospector, SqliteQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryCompiler, type QueryResult,
} from 'kysely';
import type Database from 'better-sqlite3';
import type { SqliteWriter } from './sqlite-writer.js';
import { longInList } from './long-lists.js';

/** Prepared statements by SQL text, as Kysely would otherwise prepare one per query. */
export type StatementSource = { prepare(text: string): Database.Statement; close(): void };

/**
 * SQLite for Kysely with reads and writes on different threads. A statement outside a
 * transaction that only reads runs at once on the request thread's connection (WAL lets
 * it read the last commit while a write is under way); a transaction, and any statement
 * that writes, goes to the writer thread, one at a time in arrival order.
 *
 * What this changes for callers: a read outside a transaction no longer waits for an
 * open transaction to end, so it sees the state before it, as on PostgreSQL.
 */
export class ThreadedSqliteDialect implements Dialect {
  constructor(private reader: StatementSource, private writer: SqliteWriter) {}
  createAdapter() { return new SqliteAdapter(); }
  createDriver(): Driver { return new ThreadedSqliteDriver(this.reader, this.writer); }
  createIntrospector(db: Kysely<unknown>) { return new SqliteIntrospector(db); }
  createQueryCompiler(): QueryCompiler { return new BoundedSqliteCompiler(); }
}

/** Kysely's own SQLite dialect (one connection: migrations, in-memory stores), compiling as above. */
export class BoundedSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler { return new BoundedSqliteCompiler(); }
}

/**
 * Every SQL text becomes a prepared statement that its connection keeps for good (see
 * withStatementCache in statement-lifetime.ts), so a query must have few texts, and an IN-list of every
 * length would give it one per length. A list is padded to the next power of two (past
 * 1024, to the next multiple of 1024) by repeating its last value, which changes no answer
 * of IN or NOT IN.
 */
export class BoundedSqliteCompiler extends SqliteQueryCompiler {
  protected override visitPrimitiveValueList(node: PrimitiveValueListNode): void {
    // A long list is one JSON parameter (long-lists.ts): one text whatever its length, too.
    if (longInList(node, this.parentNode)) {
      this.append('(select value from json_each(');
      this.appendValue(JSON.stringify(node.values));
      this.append('))');
      return;
    }
    const n = node.values.length;
    const parent = this.parentNode;
    if (n > 1 && parent && BinaryOperationNode.is(parent) && parent.rightOperand === node && OperatorNode.is(parent.operator)
      && (parent.operator.operator === 'in' || parent.operator.operator === 'not in')) {
      const padded = n > 1024 ? Math.ceil(n / 1024) * 1024 : 2 ** Math.ceil(Math.log2(n));
      if (padded > n) node = PrimitiveValueListNode.create([...node.values, ...Array<unknown>(padded - n).fill(node.values[n - 1])]);
    }
    super.visitPrimitiveValueList(node);
  }
}

class ThreadedSqliteDriver implements Driver {
  constructor(private reader: StatementSource, private writer: SqliteWriter) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> { return new Connection(this.reader, this.writer); }
  async beginTransaction(c: DatabaseConnection): Promise<void> { await (c as Connection).begin(); }
  async commitTransaction(c: DatabaseConnection): Promise<void> { await (c as Connection).end('commit'); }
  async rollbackTransaction(c: DatabaseConnection): Promise<void> { await (c as Connection).end('rollback'); }
  async releaseConnection(c: DatabaseConnection): Promise<void> { (c as Connection).release(); }
  async destroy(): Promise<void> {
    await this.writer.close();
    this.reader.close();
  }
}

class Connection implements DatabaseConnection {
  private unlock: (() => void) | undefined;
  /**
   * BEGIN is sent with the transaction's first statement, not on its own: each trip to
   * the writer thread is time the writer is held, and a transaction that never ran a
   * statement needs neither BEGIN nor COMMIT.
   */
  private beginPending = false;

  constructor(private reader: StatementSource, private writer: SqliteWriter) {}

  async begin(): Promise<void> {
    this.unlock = await this.writer.lock();
    this.beginPending = true;
  }

  async end(command: 'commit' | 'rollback'): Promise<void> {
    try {
      if (!this.beginPending) this.writer.querySync(command, []);
    } finally {
      this.beginPending = false;
      this.release();
    }
  }

  release(): void {
    const unlock = this.unlock;
    this.unlock = undefined;
    unlock?.();
  }

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    if (this.unlock) {
      const begin = this.beginPending;
      this.beginPending = false;
      // Blocking while the writer is held: see SqliteWriter.querySync.
      return this.writer.querySync(q.sql, q.parameters, begin) as QueryResult<R>;
    }
    const stmt = this.reader.prepare(q.sql);
    if (stmt.readonly) return { rows: stmt.all(q.parameters as unknown[]) as R[] };
    // A write on its own holds the writer too, so it waits blocked as well (querySync).
    const unlock = await this.writer.lock();
    try {
      return this.writer.querySync(q.sql, q.parameters) as QueryResult<R>;
    } finally {
      unlock();
    }
  }

  // Parley never streams a query; Kysely's own SQLite driver streams only SELECTs.
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on SQLite');
  }
}
