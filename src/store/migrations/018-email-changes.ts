import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Pending email-address changes (Zulip's EmailChangeStatus with its confirmation key): an
 * address changes only once its owner follows the link sent to it.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const id = dialect === 'postgres' ? sql`id SERIAL PRIMARY KEY` : sql`id INTEGER PRIMARY KEY AUTOINCREMENT`;
  await sql`CREATE TABLE email_change (
    ${id},
    user_id INTEGER NOT NULL,
    realm_id INTEGER NOT NULL,
    old_email TEXT NOT NULL,
    new_email TEXT NOT NULL,
    token TEXT NOT NULL UNIQUE,
    date_created BIGINT NOT NULL,
    status INTEGER NOT NULL DEFAULT 0
  )`.execute(db);
  await sql`CREATE INDEX email_change_user ON email_change (user_id)`.execute(db);
}
