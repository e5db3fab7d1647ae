import { sql } from 'kysely';
import { prepared } from '../prepared.js';
import type { Q, StreamRow } from '../rows.js';
import { cachedWrites } from './cached-writes.js';
import { fitsIdColumn } from '../../lib/ids.js';

/** Ids are 32-bit integer columns: PostgreSQL refuses larger values outright, so they match nothing. */

// The lookups every send and read makes, compiled once.
const byId = prepared((db, id: number) =>
  db.selectFrom('stream').selectAll().where('id', '=', id).where('deactivated', '=', sql.lit(0)), [0]);
const inRealm = prepared((db, id: number, realmId: number) =>
  db.selectFrom('stream').selectAll().where('id', '=', id).where('realm_id', '=', realmId).where('deactivated', '=', sql.lit(0)), [0, 0]);
const byName = prepared((db, realmId: number, nameLower: string) =>
  db.selectFrom('stream').selectAll().where('realm_id', '=', realmId).where('name_lower', '=', nameLower).where('deactivated', '=', sql.lit(0)), [0, '']);

/** Queries on the stream table. Archived (deactivated) streams are invisible to every lookup here. */
export const streams = {
  findById: async (q: Q, id: number): Promise<StreamRow | undefined> => !fitsIdColumn(id) ? undefined : (await byId(q, id))[0],

  findInRealm: async (q: Q, realmId: number, id: number): Promise<StreamRow | undefined> => !fitsIdColumn(id) ? undefined :
    (await inRealm(q, id, realmId))[0],

  findByName: async (q: Q, realmId: number, name: string): Promise<StreamRow | undefined> =>
    (await byName(q, realmId, name.toLowerCase()))[0],

  listByNames: (q: Q, realmId: number, names: string[]): Promise<StreamRow[]> =>
    names.length === 0 ? Promise.resolve([]) : q.selectFrom('stream').selectAll()
      .where('realm_id', '=', realmId).where('name_lower', 'in', names.map((n) => n.toLowerCase()))
      .where('deactivated', '=', 0).execute(),

  /**
   * The realm's archived streams of these names (archiving frees name_lower, so they are
   * matched on their kept display name), newest first where several share one.
   */
  listArchivedByNames: async (q: Q, realmId: number, names: string[]): Promise<StreamRow[]> => {
    if (names.length === 0) return [];
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    const rows = await q.selectFrom('stream').selectAll().where('realm_id', '=', realmId).where('deactivated', '=', 1)
      .orderBy('id', 'desc').execute();
    return rows.filter((r) => wanted.has(r.name.toLowerCase()));
  },

  /** A stream of the realm, archived or not (level 315: archived streams can be read). */
  findInRealmAny: async (q: Q, realmId: number, id: number): Promise<StreamRow | undefined> => !fitsIdColumn(id) ? undefined :
    q.selectFrom('stream').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst(),

  listArchivedByRealm: (q: Q, realmId: number): Promise<StreamRow[]> =>
    q.selectFrom('stream').selectAll().where('realm_id', '=', realmId).where('deactivated', '=', 1).orderBy('id').execute(),

  /**
   * Active streams whose is_recently_active is to change: created or sent to since `since`
   * (UNIX seconds), or not; each with its new value.
   */
  listRecentlyActiveChanges: async (q: Q, since: number): Promise<Array<{ stream: StreamRow; active: boolean }>> => {
    const sent = new Set((await q.selectFrom('message').select('stream_id').distinct()
      .where('stream_id', 'is not', null).where('date_sent', '>=', since).execute()).map((r) => r.stream_id));
    const all = await q.selectFrom('stream').selectAll().where('deactivated', '=', 0).execute();
    return all.flatMap((stream) => {
      const active = stream.date_created >= since || sent.has(stream.id);
      return active === (stream.is_recently_active === 1) ? [] : [{ stream, active }];
    });
  },

  listByRealm: (q: Q, realmId: number): Promise<StreamRow[]> =>
    q.selectFrom('stream').selectAll().where('realm_id', '=', realmId).where('deactivated', '=', 0).orderBy('id').execute(),

  listByIds: (q: Q, ids: number[]): Promise<StreamRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('stream').selectAll()
      .where('id', 'in', ids).where('deactivated', '=', 0).orderBy('id').execute(),

  /** The realm's active streams, each with whether `userId` is subscribed (sub_active 1) or not (null). */
  listActiveWithSubscription: (q: Q, realmId: number, userId: number) =>
    q.selectFrom('stream').leftJoin('subscription', (j) => j.onRef('subscription.stream_id', '=', 'stream.id').on('subscription.user_id', '=', userId))
      .selectAll('stream').select(['subscription.active as sub_active'])
      .where('stream.realm_id', '=', realmId).where('stream.deactivated', '=', 0).execute(),

  ...cachedWrites('stream'),

  listDefaultIds: async (q: Q, realmId: number): Promise<number[]> =>
    (await q.selectFrom('default_stream').innerJoin('stream', 'stream.id', 'default_stream.stream_id')
      .select('stream.id').where('default_stream.realm_id', '=', realmId).where('stream.deactivated', '=', 0)
      .orderBy('stream.id').execute()).map((r) => r.id),

  listDefaults: (q: Q, realmId: number): Promise<StreamRow[]> =>
    q.selectFrom('default_stream').innerJoin('stream', 'stream.id', 'default_stream.stream_id')
      .selectAll('stream').where('default_stream.realm_id', '=', realmId).where('stream.deactivated', '=', 0)
      .orderBy('stream.name_lower').execute(),

  addDefault: (q: Q, realmId: number, streamId: number) =>
    q.insertInto('default_stream').values({ realm_id: realmId, stream_id: streamId }).execute(),

  removeDefault: (q: Q, realmId: number, streamId: number) =>
    q.deleteFrom('default_stream').where('realm_id', '=', realmId).where('stream_id', '=', streamId).execute(),
};
