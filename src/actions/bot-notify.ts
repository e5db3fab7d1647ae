import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { botExtrasOf } from '../reads/bots.js';
import { presentBot } from '../presenters/bot.js';
import type { WireBot } from '../schemas/wire.js';

/**
 * Who hears of a bot (Zulip's bot_owner_user_ids): its owner and the organization's
 * administrators, whose register `realm_bots` lists it. Zulip narrows this to the owner
 * alone for a bot whose default streams are private; Parley does not, since the
 * administrators' realm_bots lists such bots too and would otherwise go stale.
 */
export async function botAudience(tx: Tx, bot: UserRow): Promise<Set<number>> {
  const ids = new Set(await users.listAdminIds(tx.db, bot.realm_id));
  if (bot.bot_owner_id !== null) ids.add(bot.bot_owner_id);
  return ids;
}

/** A realm_bot update naming only what changed, as Zulip's do_change_* actions send it. */
export async function notifyBotUpdate(tx: Tx, bot: UserRow, fields: Record<string, unknown>): Promise<void> {
  tx.notify({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, ...fields } }, await botAudience(tx, bot), bot.realm_id);
}

/** The whole Bot object, as a realm_bot add carries it (Zulip's created_bot_event). */
export async function fullBot(tx: Tx, bot: UserRow): Promise<WireBot> {
  return presentBot(bot, (await botExtrasOf(tx.db, [bot])).get(bot.id));
}
