import type Database from 'better-sqlite3';

/** Past this many distinct SQL texts, a connection's statement cache starts again on a new connection. */
export const MAX_STATEMENTS = 2000;

/**
 * Everything better-sqlite3 hands out on this thread, kept until the thread ends. Its
 * databases and statements (12.x) are node::ObjectWrap objects, and since Node 24.19 the
 * destructor of one asks for the current Node environment, which a garbage collection
 * started by an allocation in compiled code does not have: Node then aborts the process
 * (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook), at any moment
 * under load or as the process exits. Kept, none is ever collected; when the thread ends,
 * Node deletes those still alive itself, inside the environment. Closing a database
 * still frees what SQLite holds for it and its statements; a wrapper kept after that is
 * about a kilobyte. Anything that calls prepare(), pragma(), iterate() or backup()
 * must keep what it gets: use withStatementCache, on every thread (the SQLite writer thread's included).
 */
const KEPT: object[] = [];

/**
 * Kysely prepares a fresh statement for every query; preparing was the largest single
 * cost of a simple authenticated request. Statements are reusable in better-sqlite3
 * (Kysely only calls all()/run() on them), so keep the prepared ones by SQL text, for as
 * long as the thread lives (see KEPT). BoundedSqliteCompiler keeps the number of texts
 * small; should they pass MAX_STATEMENTS all the same, and `reopen` allows (a file
 * database, not an in-memory one), the connection is replaced between transactions:
 * closing it frees SQLite's statements, and only their small wrappers stay.
 */
export function withStatementCache(open: () => Database.Database, reopen = false) {
  let sqlite = open();
  KEPT.push(sqlite);
  let cache = new Map<string, Database.Statement>();
  return {
    get inTransaction(): boolean {
      return sqlite.inTransaction;
    },
    close: () => sqlite.close(),
    prepare: (text: string) => {
      let stmt = cache.get(text);
      if (!stmt) {
        if (cache.size >= MAX_STATEMENTS && reopen && !sqlite.inTransaction) {
          const next = open();
          KEPT.push(next);
          sqlite.close();
          sqlite = next;
          cache = new Map();
        }
        stmt = sqlite.prepare(text);
        KEPT.push(stmt);
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

