import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Retention's walk by age (repos/archive.ts): a stream's messages, and an organization's
 * private ones, in (date_sent, id) order, so that each run reads only the expired messages.
 * Along (stream_id, id) and (realm_id, id) it read every message younger than the cutoff
 * too, on the request thread: at the end of a 1,000,000-message run the private walk alone
 * held an SQLite server 54 s, and an hourly run of a busy organization would read all of it.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX message_stream_age ON message (stream_id, date_sent, id)`.execute(db);
  await sql`CREATE INDEX message_private_age ON message (realm_id, date_sent, id) WHERE stream_id IS NULL`.execute(db);
}
