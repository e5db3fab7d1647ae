import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * A query built and compiled once per database, then run with fresh parameters.
 * Kysely's builder and compiler cost more than SQLite itself on the hottest small
 * queries. `build` receives placeholder values and must use each parameter exactly once,
 * in the order the caller passes them. The compiled form is kept per adapter, which a
 * database's transactions share, so it also serves queries inside transactions.
 */
export function prepared<R, P extends unknown[]>(build: (db: Kysely<DB>, ...placeholders: P) => { compile(): CompiledQuery<R> }, placeholders: P) {
  const byAdapter = new WeakMap<object, CompiledQuery<R>>();
  return async (db: Kysely<DB>, ...params: P): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      byAdapter.set(adapter, compiled);
    }
    return (await db.executeQuery<R>({ ...compiled, parameters: params })).rows;
  };
}
