import { cachedWrites } from './cached-writes.js';
import type { Q, RealmRow } from '../rows.js';

export const realms = {
  findById: (q: Q, id: number): Promise<RealmRow | undefined> =>
    q.selectFrom('realm').selectAll().where('id', '=', id).executeTakeFirst(),

  findByStringId: (q: Q, stringId: string): Promise<RealmRow | undefined> =>
    q.selectFrom('realm').selectAll().where('string_id', '=', stringId).executeTakeFirst(),

  list: (q: Q): Promise<RealmRow[]> => q.selectFrom('realm').selectAll().orderBy('id').execute(),

  ...cachedWrites('realm'),
};
