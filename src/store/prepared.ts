import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * A query built and compiled once per database handle, then run with fresh parameters.
 * Kysely's builder and compiler cost more than SQLite itself on the hottest small
 * queries. `build` receives placeholder values and must use each parameter exactly once,
 * in the order the caller passes them.
 */
export function prepared<R, P extends unknown[]>(build: (db: Kysely<DB>, ...placeholders: P) => { compile(): CompiledQuery<R> }, placeholders: P) {
  const byDb = new WeakMap<Kysely<DB>, CompiledQuery<R>>();
  return async (db: Kysely<DB>, ...params: P): Promise<R[]> => {
    let compiled = byDb.get(db);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      byDb.set(db, compiled);
    }
    return (await db.executeQuery<R>({ ...compiled, parameters: params })).rows;
  };
}
