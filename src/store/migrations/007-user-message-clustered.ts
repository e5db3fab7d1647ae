import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * SQLite: keep recipient rows in their (user_id, message_id) key order (WITHOUT ROWID).
 * A rowid table stored every row twice, once in the table and once in the key's index,
 * and a send writes one row per recipient; clustering drops one B-tree write per row.
 * PostgreSQL tables are heaps either way, so nothing changes there.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`CREATE TABLE user_message_clustered (
    user_id integer NOT NULL, message_id integer NOT NULL, flags integer NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, message_id)) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO user_message_clustered (user_id, message_id, flags) SELECT user_id, message_id, flags FROM user_message ORDER BY user_id, message_id`.execute(db);
  await sql`DROP TABLE user_message`.execute(db);
  await sql`ALTER TABLE user_message_clustered RENAME TO user_message`.execute(db);
  // Secondary indexes of a WITHOUT ROWID table carry the key, so this one is (message_id, user_id).
  await sql`CREATE INDEX user_message_message ON user_message (message_id)`.execute(db);
  await sql`CREATE INDEX user_message_unread ON user_message (user_id, message_id) WHERE (flags & 1) = 0`.execute(db);
  await sql`CREATE INDEX user_message_starred ON user_message (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_mentioned ON user_message (user_id, message_id) WHERE (flags & 24) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_private ON user_message (user_id, message_id) WHERE (flags & 2048) <> 0`.execute(db);
}
