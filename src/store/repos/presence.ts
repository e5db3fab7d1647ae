import { sql } from 'kysely';
import type { Q } from '../rows.js';
import { dialectOf } from '../db.js';

export interface PresenceRecord { user_id: number; client: string; last_active_time: number; last_connected_time: number }

export const presence = {
  /**
   * One statement (writeAlone): a report a minute from every client must not hold the
   * writer for a transaction's round trips. `active` false (an idle report) keeps the
   * stored last activity of an existing row. Answers the write's number (migration 034),
   * taken in the same statement so that numbers are gapless and commit in their order.
   */
  upsert: async (q: Q, realmId: number, row: PresenceRecord, active: boolean): Promise<number> => {
    const lastActive = active ? sql<number>`excluded.last_active_time` : sql<number>`user_presence.last_active_time`;
    if (dialectOf(q).name === 'postgres') {
      // The realm's sequence row is locked until this statement commits: the next write
      // of the realm waits for it, so no number is seen before a smaller one.
      const r = await sql<{ last_update_id: string | number }>`
        WITH seq AS (
          INSERT INTO presence_sequence (realm_id, last_update_id) VALUES (${realmId}, 1)
          ON CONFLICT (realm_id) DO UPDATE SET last_update_id = presence_sequence.last_update_id + 1
          RETURNING last_update_id
        )
        INSERT INTO user_presence (user_id, realm_id, client, last_active_time, last_connected_time, last_update_id)
        VALUES (${row.user_id}, ${realmId}, ${row.client}, ${row.last_active_time}, ${row.last_connected_time}, (SELECT last_update_id FROM seq))
        ON CONFLICT (user_id) DO UPDATE SET client = excluded.client, last_connected_time = excluded.last_connected_time,
          last_active_time = ${lastActive}, last_update_id = excluded.last_update_id
        RETURNING last_update_id`.execute(q);
      return Number(r.rows[0]!.last_update_id);
    }
    // SQLite runs one statement at a time: the realm's highest number plus one (rows are never deleted).
    const r = await q.insertInto('user_presence')
      .values({
        ...row, realm_id: realmId,
        last_update_id: sql<number>`(SELECT COALESCE(MAX(last_update_id), 0) + 1 FROM user_presence WHERE realm_id = ${realmId})`,
      })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({
        client: row.client, last_connected_time: row.last_connected_time, last_active_time: lastActive,
        last_update_id: sql<number>`excluded.last_update_id`,
      }))
      .returning('last_update_id')
      .executeTakeFirstOrThrow();
    return Number(r.last_update_id);
  },

  findByUser: (q: Q, userId: number): Promise<PresenceRecord | undefined> =>
    q.selectFrom('user_presence').select(['user_id', 'client', 'last_active_time', 'last_connected_time']).where('user_id', '=', userId).executeTakeFirst(),

  /**
   * Every active human's row of the realm, with their emails, and the realm's highest
   * number (of any row, shown or not), read in one statement: every write numbered up to
   * it is in the rows.
   */
  listActiveHumans: async (q: Q, realmId: number) => {
    const rows = await q.selectFrom('user_presence').innerJoin('users', 'users.id', 'user_presence.user_id')
      .select(['user_presence.user_id', 'user_presence.client', 'user_presence.last_active_time', 'user_presence.last_connected_time',
        'user_presence.last_update_id', 'users.email', 'users.settings'])
      .select((eb) => eb.selectFrom('user_presence as p').select((e) => e.fn.max('p.last_update_id').as('m')).where('p.realm_id', '=', realmId).as('max_id'))
      .where('user_presence.realm_id', '=', realmId)
      .where('users.is_active', '=', 1).where('users.is_bot', '=', 0).execute();
    // Without rows to carry it, the highest number is read alone.
    const maxId = rows.length ? rows[0]!.max_id : (await q.selectFrom('user_presence').select((e) => e.fn.max('last_update_id').as('m')).where('realm_id', '=', realmId).executeTakeFirst())?.m;
    return {
      rows: rows.map(({ max_id: _m, ...r }) => ({ ...r, last_update_id: Number(r.last_update_id), last_active_time: Number(r.last_active_time), last_connected_time: Number(r.last_connected_time) })),
      maxId: maxId == null ? 0 : Number(maxId),
    };
  },
};
