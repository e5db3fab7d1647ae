import type { Q, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { botRequestsRefused, insufficientPermission, noSuchBot, notForGuests } from '../errors.js';
import { fitsIdColumn } from '../lib/ids.js';
import { isAdminRole, Role } from '../lib/roles.js';

/** Zulip's require_member_or_admin, which guards every bot-management endpoint. */
export function requireMemberOrAdmin(user: UserRow): void {
  if (user.role === Role.GUEST) throw notForGuests();
  if (user.is_bot === 1) throw botRequestsRefused();
}

/**
 * Zulip's access_bot_by_id: a bot of the caller's organization that the caller may
 * administer (its owner, or an administrator). Deactivated bots are found too, so they can
 * be edited and reactivated. The system bots are nobody's to manage.
 */
export async function accessBotById(q: Q, acting: UserRow, id: number): Promise<UserRow> {
  const bot = fitsIdColumn(id) ? await users.findInRealm(q, acting.realm_id, id) : undefined;
  if (!bot || bot.is_bot !== 1 || bot.is_system_bot === 1) throw noSuchBot();
  if (bot.bot_owner_id !== acting.id && !isAdminRole(acting.role)) throw insufficientPermission();
  return bot;
}
