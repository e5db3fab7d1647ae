import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Every stream message lists its stream's subscribers. With the user id in the index, that
 * list is read from the index alone, already in user order, instead of visiting each
 * subscription row.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX subscription_stream_user ON subscription (stream_id, active, user_id)`.execute(db);
  await sql`DROP INDEX subscription_stream`.execute(db);
}
