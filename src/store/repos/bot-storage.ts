import { sql } from 'kysely';
import type { Q } from '../rows.js';

export interface StorageEntry { key: string; value: string }

export const botStorage = {
  listByUser: (q: Q, userId: number): Promise<StorageEntry[]> =>
    q.selectFrom('bot_storage').select(['key', 'value']).where('user_id', '=', userId).orderBy('id').execute(),

  listByKeys: async (q: Q, userId: number, keys: readonly string[]): Promise<StorageEntry[]> =>
    keys.length === 0 ? [] : q.selectFrom('bot_storage').select(['key', 'value']).where('user_id', '=', userId).where('key', 'in', keys).execute(),

  /** Characters held, keys and values together (both engines' length() counts characters). */
  sizeOfUser: async (q: Q, userId: number): Promise<number> => {
    const r = await q.selectFrom('bot_storage').select(sql<string | number | null>`sum(length(key) + length(value))`.as('n'))
      .where('user_id', '=', userId).executeTakeFirst();
    return Number(r?.n ?? 0);
  },

  insert: async (q: Q, userId: number, entry: StorageEntry): Promise<void> => {
    await q.insertInto('bot_storage').values({ user_id: userId, key: entry.key, value: entry.value }).execute();
  },

  updateValue: async (q: Q, userId: number, entry: StorageEntry): Promise<void> => {
    await q.updateTable('bot_storage').set({ value: entry.value }).where('user_id', '=', userId).where('key', '=', entry.key).execute();
  },

  deleteByKeys: async (q: Q, userId: number, keys: readonly string[]): Promise<void> => {
    if (keys.length) await q.deleteFrom('bot_storage').where('user_id', '=', userId).where('key', 'in', keys).execute();
  },
};
