import type { Q, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { NOTIFICATION_BOT, WELCOME_BOT } from '../lib/system-bots.js';
import { realmBotsOf } from './users.js';

/** The organization's Notification Bot, the sender of breadcrumbs and announcements. */
export async function notificationBot(q: Q, realmId: number): Promise<UserRow> {
  const bot = await users.findByEmail(q, realmId, NOTIFICATION_BOT.email);
  if (!bot || bot.is_system_bot !== 1) throw new Error(`realm ${realmId} has no Notification Bot`);
  return bot;
}

/** The organization's Welcome Bot, the sender of the welcome to new users. */
export async function welcomeBot(q: Q, realmId: number): Promise<UserRow> {
  const bot = await users.findByEmail(q, realmId, WELCOME_BOT.email);
  if (!bot || bot.is_system_bot !== 1) throw new Error(`realm ${realmId} has no Welcome Bot`);
  return bot;
}

/** register's cross_realm_bots: the system bots, which user lists leave out. Shared, never modified. */
export const systemBotsOf = async (q: Q, realmId: number): Promise<readonly UserRow[]> => (await realmBotsOf(q, realmId)).systemBots;
