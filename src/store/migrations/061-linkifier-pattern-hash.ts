import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * PostgreSQL refuses a B-tree entry over about 2,700 bytes, so a long linkifier pattern
 * failed its (realm_id, pattern) unique index with a 500. The uniqueness moves to the
 * pattern's md5 there; SQLite has no such limit and keeps migration 024's index.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`DROP INDEX IF EXISTS realm_filter_realm_pattern`.execute(db);
  await sql`CREATE UNIQUE INDEX realm_filter_realm_pattern ON realm_filter (realm_id, md5(pattern))`.execute(db);
}
