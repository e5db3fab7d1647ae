import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * SQLite: recipient rows keyed by (message_id, user_id), and every row in exactly one
 * user-keyed index: unread or read.
 *
 * A send writes one row per recipient. Keyed by user, each of those rows landed on a
 * different page of the table and again of the unread index: two pages per recipient per
 * commit, most of the send path's storage time (bench `recipient-rows`). Keyed by message,
 * a message's rows are appended together; the per-user access every reader needs (unread,
 * newest, a user's whole history) goes through the two partial indexes, of which a new row
 * enters one. Marking messages read moves their rows from one to the other.
 *
 * PostgreSQL keeps its heap and (user_id, message_id) key: nothing changes there.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`CREATE TABLE user_message_by_message (
    user_id integer NOT NULL, message_id integer NOT NULL, flags integer NOT NULL DEFAULT 0,
    PRIMARY KEY (message_id, user_id)) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO user_message_by_message (user_id, message_id, flags)
    SELECT user_id, message_id, flags FROM user_message ORDER BY message_id, user_id`.execute(db);
  await sql`DROP TABLE user_message`.execute(db);
  await sql`ALTER TABLE user_message_by_message RENAME TO user_message`.execute(db);
  // With flags in them, these two answer a walk over a user's rows without visiting the table.
  await sql`CREATE INDEX user_message_unread ON user_message (user_id, message_id, flags) WHERE (flags & 1) = 0`.execute(db);
  await sql`CREATE INDEX user_message_read ON user_message (user_id, message_id, flags) WHERE (flags & 1) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_starred ON user_message (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_mentioned ON user_message (user_id, message_id) WHERE (flags & 24) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_private ON user_message (user_id, message_id) WHERE (flags & 2048) <> 0`.execute(db);
}
