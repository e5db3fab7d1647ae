import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * SQLite: the full-text index reads its text from the message table (FTS5 "external
 * content") instead of keeping a second copy of every topic and message body. Each send
 * wrote that copy inside the send transaction; search only ever asks the index for rowids.
 * PostgreSQL's tsvector column is unchanged.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`DROP TRIGGER message_fts_insert`.execute(db);
  await sql`DROP TRIGGER message_fts_update`.execute(db);
  await sql`DROP TRIGGER message_fts_delete`.execute(db);
  await sql`DROP TABLE message_fts`.execute(db);
  await sql`CREATE VIRTUAL TABLE message_fts USING fts5(topic, content, content = 'message', content_rowid = 'id', tokenize = 'porter unicode61')`.execute(db);
  // An external-content index is told what to forget: the old text, as it was indexed.
  await sql`CREATE TRIGGER message_fts_insert AFTER INSERT ON message BEGIN
    INSERT INTO message_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
  await sql`CREATE TRIGGER message_fts_update AFTER UPDATE OF topic, content ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, topic, content) VALUES ('delete', old.id, old.topic, old.content);
    INSERT INTO message_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
  await sql`CREATE TRIGGER message_fts_delete AFTER DELETE ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, topic, content) VALUES ('delete', old.id, old.topic, old.content); END`.execute(db);
  await sql`INSERT INTO message_fts (message_fts) VALUES ('rebuild')`.execute(db);
}
