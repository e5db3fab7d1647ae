import { CompiledQuery, type Insertable } from 'kysely';
import type { MessageTable } from '../schema.js';
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
    // journal, a copy of every page it touches (two per recipient), and that copying was a
    // seventh of the send path's storage time. A conflict (which would be a bug) is still
    // caught: insertUserMessages counts the rows stored.
    text = `INSERT ${pg ? '' : 'OR IGNORE '}INTO user_message (user_id, message_id, flags) VALUES ${values.join(', ')}`;
    if (insertTexts.size > 2000) insertTexts.clear();
    insertTexts.set(key, text);
  }
  return text;
}

export const messages = {
  insert: async (q: Q, row: Insertable<MessageTable>): Promise<number> =>
    (await q.insertInto('message').values(row).returning('id').executeTakeFirstOrThrow()).id,

  /**
   * One statement for every recipient row: the send path's biggest write. The SQL text is
   * built once per row count and the values bound flat: Kysely's per-row parsing cost more
   * than SQLite's insert for large streams.
   */
  insertUserMessages: async (q: Q, rows: Array<{ user_id: number; message_id: number; flags: number }>): Promise<void> => {
    const pg = q.selectFrom('user_message').select('flags').where('user_id', '=', 0).compile().sql.includes('$1');
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
