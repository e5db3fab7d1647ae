import type { Q } from '../rows.js';
import { RecipientType } from '../../lib/recipient-type.js';

export const recipients = {
  listByIds: (q: Q, ids: number[]) =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('recipient').select(['id', 'type', 'type_id']).where('id', 'in', ids).execute(),

  /** Stream names by stream id. */
  streamNames: async (q: Q, streamIds: number[]): Promise<Map<number, string>> => {
    if (streamIds.length === 0) return new Map();
    const rows = await q.selectFrom('stream').select(['id', 'name']).where('id', 'in', streamIds).execute();
    return new Map(rows.map((s) => [s.id, s.name]));
  },

  /** A new recipient row (a user's, a stream's or a huddle's); answers its id. */
  insert: async (q: Q, type: RecipientType, typeId: number): Promise<number> =>
    (await q.insertInto('recipient').values({ type, type_id: typeId }).returning('id').executeTakeFirstOrThrow()).id,

  /** The personal recipients of users, by user id. */
  mapPersonalOf: async (q: Q, userIds: number[]): Promise<Map<number, number>> => {
    if (userIds.length === 0) return new Map();
    const rows = await q.selectFrom('recipient').select(['id', 'type_id']).where('type', '=', RecipientType.PERSONAL).where('type_id', 'in', userIds).execute();
    return new Map(rows.map((r) => [r.type_id, r.id]));
  },

  /** The personal recipient of a user: what a one-to-one conversation with them is addressed to. */
  personalOf: async (q: Q, userId: number): Promise<number> =>
    (await q.selectFrom('recipient').select('id').where('type', '=', RecipientType.PERSONAL).where('type_id', '=', userId).executeTakeFirstOrThrow()).id,
};
