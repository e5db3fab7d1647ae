import type { Q, UserRow } from '../store/rows.js';
import type { Trigger } from './types.js';
import { BotType } from '../lib/roles.js';
import { outgoingBotsAmong } from '../reads/render-context.js';

/**
 * Zulip's get_service_bot_events: the outgoing-webhook bots a new message calls. A stream
 * message calls the bots it really mentions (not mention syntax inside code), whether or
 * not they are subscribed; a private message, one-to-one or group, calls the bots among
 * its recipients. A bot's message calls none: no bot answers a bot, nor itself.
 */
export async function serviceBotCalls(
  q: Q, realmId: number, sender: UserRow,
  sent: { isStream: boolean; mentionedUserIds: ReadonlySet<number>; privateRecipients: readonly UserRow[] }, featureLevel: number,
): Promise<{ trigger: Trigger; botIds: number[] }> {
  if (sender.is_bot === 1) return { trigger: 'mention', botIds: [] };
  if (sent.isStream) {
    // Most messages mention nobody: no lookup then.
    const botIds = sent.mentionedUserIds.size === 0 ? [] : await outgoingBotsAmong(q, realmId, sent.mentionedUserIds);
    return { trigger: 'mention', botIds };
  }
  const botIds = sent.privateRecipients.filter((u) => u.bot_type === BotType.OUTGOING_WEBHOOK && u.is_active === 1 && u.id !== sender.id).map((u) => u.id);
  // Zulip renamed the trigger at feature level 201.
  return { trigger: featureLevel >= 201 ? 'direct_message' : 'private_message', botIds: [...new Set(botIds)] };
}
