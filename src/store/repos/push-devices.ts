import type { PushDeviceRow, Q } from '../rows.js';
import type { PushKind } from '../../lib/push-kind.js';

export const pushDevices = {
  listOfUser: (q: Q, userId: number): Promise<PushDeviceRow[]> =>
    q.selectFrom('push_device').selectAll().where('user_id', '=', userId).orderBy('id').execute(),

  findOfUser: (q: Q, userId: number, kind: PushKind, token: string): Promise<PushDeviceRow | undefined> =>
    q.selectFrom('push_device').selectAll().where('user_id', '=', userId).where('kind', '=', kind).where('token', '=', token).executeTakeFirst(),

  insert: async (q: Q, row: { user_id: number; kind: PushKind; token: string; ios_app_id: string | null; last_updated: number }): Promise<void> => {
    await q.insertInto('push_device').values(row).execute();
  },

  /** How many rows went (more than one only if two registrations raced). */
  deleteOfUser: async (q: Q, userId: number, kind: PushKind, token: string): Promise<number> =>
    Number((await q.deleteFrom('push_device').where('user_id', '=', userId).where('kind', '=', kind).where('token', '=', token).executeTakeFirst()).numDeletedRows),

  deleteAllOfUser: async (q: Q, userId: number): Promise<void> => {
    await q.deleteFrom('push_device').where('user_id', '=', userId).execute();
  },
};
