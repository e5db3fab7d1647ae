import type { Insertable } from 'kysely';
import type { MessageTable } from '../schema.js';
import type { MessageRow, Q } from '../rows.js';

export const messages = {
  insert: async (q: Q, row: Insertable<MessageTable>): Promise<number> =>
    (await q.insertInto('message').values(row).returning('id').executeTakeFirstOrThrow()).id,

  /** One statement for every recipient row: the send path's biggest write. */
  insertUserMessages: async (q: Q, rows: Array<{ user_id: number; message_id: number; flags: number }>): Promise<void> => {
    // SQLite allows 32766 bound parameters; three per row.
    for (let i = 0; i < rows.length; i += 5000) await q.insertInto('user_message').values(rows.slice(i, i + 5000)).execute();
  },

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
