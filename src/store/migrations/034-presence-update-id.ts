import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Zulip 9.0's presence `last_update_id` (feature level 263): every write of a presence row
 * takes the organization's next number, so that a client can ask for the rows changed
 * since the last number it saw. Numbers are handed out in commit order and without gaps
 * (src/store/repos/presence.ts): on SQLite the writer is alone and takes the realm's
 * highest number plus one (rows are never deleted); on PostgreSQL the realm's row of
 * `presence_sequence` is bumped in the write's statement, and its row lock orders the
 * commits of the realm's writes as Zulip's PresenceSequence does. Rows stored before this
 * migration share number 1 (a client that knows 1 or more has had them all).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('user_presence').addColumn('last_update_id', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.updateTable('user_presence').set({ last_update_id: 1 }).execute();
  await db.schema.createIndex('user_presence_update_id').on('user_presence').columns(['realm_id', 'last_update_id']).execute();
  if (dialect === 'postgres') {
    await db.schema.createTable('presence_sequence')
      .addColumn('realm_id', 'integer', (c) => c.primaryKey())
      .addColumn('last_update_id', 'bigint', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO presence_sequence (realm_id, last_update_id) SELECT DISTINCT realm_id, 1 FROM user_presence`.execute(db);
  }
}
