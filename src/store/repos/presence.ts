import { sql } from 'kysely';
import type { Q } from '../rows.js';

export interface PresenceRecord { user_id: number; client: string; last_active_time: number; last_connected_time: number }

export const presence = {
  /**
   * One statement (writeAlone): a report a minute from every client must not hold the
   * writer for a transaction's round trips. `active` false (an idle report) keeps the
   * stored last activity of an existing row.
   */
  upsert: async (q: Q, realmId: number, row: PresenceRecord, active: boolean): Promise<void> => {
    await q.insertInto('user_presence').values({ ...row, realm_id: realmId })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({
        client: row.client, last_connected_time: row.last_connected_time,
        last_active_time: active ? row.last_active_time : sql<number>`user_presence.last_active_time`,
      }))
      .execute();
  },

  findByUser: (q: Q, userId: number): Promise<PresenceRecord | undefined> =>
    q.selectFrom('user_presence').select(['user_id', 'client', 'last_active_time', 'last_connected_time']).where('user_id', '=', userId).executeTakeFirst(),

  /** Active humans of the realm connected since `since`, with their emails. */
  listActiveHumansSince: (q: Q, realmId: number, since: number) =>
    q.selectFrom('user_presence').innerJoin('users', 'users.id', 'user_presence.user_id')
      .select(['user_presence.user_id', 'user_presence.client', 'user_presence.last_active_time', 'user_presence.last_connected_time', 'users.email', 'users.settings'])
      .where('user_presence.realm_id', '=', realmId).where('user_presence.last_connected_time', '>=', since)
      .where('users.is_active', '=', 1).where('users.is_bot', '=', 0).execute(),
};
