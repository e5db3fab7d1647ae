import { CompiledQuery, sql, type Insertable, type Kysely, type SqlBool } from 'kysely';
import { prepared } from '../prepared.js';
import { dialectOf } from '../db.js';
import type { MessageTable } from '../schema.js';
import type { DB } from '../schema.js';
import type { MessageWrite, MessageWritten } from '../group-commit.js';
import type { SqliteWriter, UnitResult } from '../sqlite-writer.js';
import type { MessageRow, Q } from '../rows.js';
import { FLAG_BITS } from '../../lib/message-flags.js';

const FLAG_READ = FLAG_BITS.read;

const insertTexts = new Map<string, string>();

function insertSql(n: number, pg: boolean): string {
  const key = `${pg ? 'p' : 's'}${n}`;
  let text = insertTexts.get(key);
  if (!text) {
    const values = Array.from({ length: n }, (_, i) => (pg ? `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3})` : '(?, ?, ?)'));
    // OR IGNORE on SQLite: a multi-row insert that could abort part way needs a statement
    // journal, a copy of every page it touches (one or more per recipient), and that
    // copying was a seventh of the send path's storage time. A conflict (which would be a bug) is still
    // caught: insertUserMessages counts the rows stored.
    text = `INSERT ${pg ? '' : 'OR IGNORE '}INTO user_message (user_id, message_id, flags) VALUES ${values.join(', ')}`;
    if (insertTexts.size > 2000) insertTexts.clear();
    insertTexts.set(key, text);
  }
  return text;
}

/**
 * The user-keyed partial indexes of user_message on SQLite (migrations 009 and 001), by
 * their conditions, written as literals so that the planner always matches them. Every
 * row is in `unread` or `read`.
 */
export const OWN_INDEXES = {
  unread: '(flags & 1) = 0',
  read: '(flags & 1) <> 0',
  starred: '(flags & 2) <> 0',
  mentioned: '(flags & 24) <> 0',
  private: '(flags & 2048) <> 0',
} as const;
export type OwnIndex = keyof typeof OWN_INDEXES;

// Each bound comes from one end of one partial index (every row is in the read or the
// unread one), so none of them walks a user's rows. Four parameters, all the user id.
const bounds = prepared((db, a: number, b: number, c: number, d: number) => db.selectNoFrom((eb) => [
  eb.selectFrom('user_message').select((e) => e.fn.min('message_id').as('v')).where('user_id', '=', a).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.unread)}`).as('first_unread'),
  eb.selectFrom('user_message').select((e) => e.fn.min('message_id').as('v')).where('user_id', '=', b).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.read)}`).as('first_read'),
  eb.selectFrom('user_message').select((e) => e.fn.max('message_id').as('v')).where('user_id', '=', c).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.unread)}`).as('last_unread'),
  eb.selectFrom('user_message').select((e) => e.fn.max('message_id').as('v')).where('user_id', '=', d).where(sql<SqlBool>`${sql.raw(OWN_INDEXES.read)}`).as('last_read'),
]), [0, 0, 0, 0]);

const messageInserts = new Map<string, string>();

/**
 * The message row's INSERT for the writer thread, its text built once per column set:
 * Kysely's builder and compiler took a twentieth of a send's time on the request thread.
 */
function messageInsert(row: Insertable<MessageTable>): { text: string; parameters: unknown[] } {
  const columns = Object.keys(row) as Array<keyof typeof row>;
  const key = columns.join(',');
  let text = messageInserts.get(key);
  if (!text) {
    text = `INSERT INTO "message" (${columns.map((c) => `"${String(c)}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    if (messageInserts.size > 100) messageInserts.clear();
    messageInserts.set(key, text);
  }
  return { text, parameters: columns.map((c) => row[c]) };
}


/** The id range of a user's messages (null when they have none), and their oldest unread one. */
export interface UserMessageBounds { first: number | null; last: number | null; firstUnread: number | null }

const FIRST_MESSAGE_SQL = 'UPDATE stream SET first_message_id = ? WHERE id = ? AND first_message_id IS NULL';

export const messages = {
  /**
   * On SQLite recipient rows are keyed by message (migration 009), so a reader that walks
   * messages by id needs these bounds not to walk past a user's first or last message.
   * SQLite only: on PostgreSQL, with no partial index of read rows, the read half would
   * filter all of the user's rows.
   */
  userBounds: async (q: Q, userId: number): Promise<UserMessageBounds> => {
    const [r] = await bounds(q as Kysely<DB>, userId, userId, userId, userId);
    const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    const pick = (f: (...x: number[]) => number, a: number | null, b: number | null) => (a === null ? b : b === null ? a : f(a, b));
    return {
      first: pick(Math.min, n(r?.first_unread), n(r?.first_read)),
      last: pick(Math.max, n(r?.last_unread), n(r?.last_read)),
      firstUnread: n(r?.first_unread),
    };
  },

  /**
   * A send for the SQLite writer thread, which stores it with whatever other sends reach it
   * while it is busy (see sqlite-writer.ts). The SQL is built here, on the request thread.
   */
  storeOnWriter: async (writer: SqliteWriter, w: MessageWrite): Promise<MessageWritten> => {
    const { text, parameters } = messageInsert(w.message);
    const recipients: number[] = [];
    for (const r of w.recipients) recipients.push(r.user_id, r.flags);
    return writer.storeMessage({ sql: text, params: parameters, firstOf: w.firstOf, recipients, firstSql: FIRST_MESSAGE_SQL, rowsSql: insertSql(0, false) });
  },

  /**
   * Stores a batch of sends in one transaction (see group-commit.ts): each message in its
   * own savepoint, then every recipient row in key order.
   */
  storeBatch: (db: Kysely<DB>, writes: MessageWrite[]): Promise<UnitResult[]> =>
    db.transaction().execute(async (trx) => {
      const results: UnitResult[] = [];
      const rows: Array<{ user_id: number; message_id: number; flags: number }> = [];
      for (const w of writes) {
        await sql`SAVEPOINT parley_unit`.execute(trx);
        try {
          const id = await messages.insert(trx, w.message);
          const first = w.firstOf !== null && Number((await trx.updateTable('stream').set({ first_message_id: id })
            .where('id', '=', w.firstOf).where('first_message_id', 'is', null).executeTakeFirst()).numUpdatedRows) === 1;
          await sql`RELEASE SAVEPOINT parley_unit`.execute(trx);
          results.push({ id, first });
          for (const r of w.recipients) rows.push({ user_id: r.user_id, message_id: id, flags: r.flags });
        } catch (error) {
          await sql`ROLLBACK TO SAVEPOINT parley_unit`.execute(trx);
          await sql`RELEASE SAVEPOINT parley_unit`.execute(trx);
          results.push({ error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
      rows.sort((a, b) => a.user_id - b.user_id || a.message_id - b.message_id);
      await messages.insertUserMessages(trx, rows);
      return results;
    }),

  insert: async (q: Q, row: Insertable<MessageTable>): Promise<number> =>
    (await q.insertInto('message').values(row).returning('id').executeTakeFirstOrThrow()).id,

  /**
   * One statement for every recipient row: the send path's biggest write. The SQL text is
   * built once per row count and the values bound flat: Kysely's per-row parsing cost more
   * than SQLite's insert for large streams.
   */
  insertUserMessages: async (q: Q, rows: Array<{ user_id: number; message_id: number; flags: number }>): Promise<void> => {
    const pg = dialectOf(q) === 'postgres';
    // SQLite allows 32766 bound parameters; three per row.
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      const params: number[] = [];
      for (const r of chunk) params.push(r.user_id, r.message_id, r.flags);
      const r = await q.executeQuery(CompiledQuery.raw(insertSql(chunk.length, pg), params));
      if (r.numAffectedRows !== undefined && Number(r.numAffectedRows) !== chunk.length) {
        throw new Error(`recipient rows: ${chunk.length - Number(r.numAffectedRows)} duplicate (user_id, message_id) keys`);
      }
    }
  },

  /** Marks every recipient's copy of a stream's messages read (an archived stream's, as Zulip does). */
  markRecipientRead: (q: Q, recipientId: number) =>
    q.updateTable('user_message').set((eb) => ({ flags: eb('flags', '|', FLAG_READ) }))
      .where((eb) => eb(eb.parens(eb('flags', '&', FLAG_READ)), '=', 0))
      .where('message_id', 'in', (eb) => eb.selectFrom('message').select('id').where('recipient_id', '=', recipientId))
      .execute(),

  listByIds: (q: Q, ids: number[]): Promise<MessageRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('message').selectAll().where('id', 'in', ids).execute(),

  findById: (q: Q, id: number): Promise<MessageRow | undefined> =>
    q.selectFrom('message').selectAll().where('id', '=', id).executeTakeFirst(),

  flagsOf: (q: Q, userId: number, messageId: number): Promise<{ flags: number } | undefined> =>
    q.selectFrom('user_message').select('flags').where('user_id', '=', userId).where('message_id', '=', messageId).executeTakeFirst(),

  /** Private-message recipients: personal recipients are users; huddles list their members. */
  huddleMembers: async (q: Q, recipientIds: number[]): Promise<Map<number, number[]>> => {
    const out = new Map<number, number[]>();
    if (recipientIds.length === 0) return out;
    const rows = await q.selectFrom('huddle').select(['recipient_id', 'huddle_hash']).where('recipient_id', 'in', recipientIds).execute();
    for (const r of rows) out.set(r.recipient_id!, r.huddle_hash.split(',').map(Number));
    return out;
  },

  reactionsFor: (q: Q, ids: number[]) =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('reaction').selectAll().where('message_id', 'in', ids).orderBy('id').execute(),
};
