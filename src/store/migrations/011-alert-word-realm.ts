import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/** Sends read a realm's alert words at once (actions/send-lookups.ts). */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX alert_word_realm ON alert_word (realm_id)`.execute(db);
}
