import type { BotServiceRow, Q } from '../rows.js';

export const botServices = {
  insert: async (q: Q, row: Omit<BotServiceRow, 'id'>): Promise<void> => {
    await q.insertInto('bot_service').values(row).execute();
  },

  listByBots: async (q: Q, botIds: readonly number[]): Promise<BotServiceRow[]> =>
    botIds.length === 0 ? [] : q.selectFrom('bot_service').selectAll().where('bot_id', 'in', botIds).orderBy('id').execute(),

  findByBot: (q: Q, botId: number): Promise<BotServiceRow | undefined> =>
    q.selectFrom('bot_service').selectAll().where('bot_id', '=', botId).orderBy('id').executeTakeFirst(),

  update: async (q: Q, botId: number, change: Partial<Pick<BotServiceRow, 'base_url' | 'interface' | 'token' | 'name'>>): Promise<void> => {
    await q.updateTable('bot_service').set(change).where('bot_id', '=', botId).execute();
  },
};
