import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { userMessages } from '../store/repos/user-messages.js';
import { mutedUsers } from '../store/repos/muted-users.js';
import { accessMessage } from '../access/message.js';
import { badRequest } from '../errors.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';

/**
 * GET /messages/{message_id}/read_receipts (Zulip's read_receipts view, levels 137 and 144):
 * the active users holding the message with its read flag, but not the sender (who read it
 * by writing it), not those who turned send_read_receipts off, and neither those the
 * requester muted nor those who muted the requester (who could otherwise tell). Bots count.
 */
export async function readReceipts(q: Q, realm: RealmRow, user: UserRow, messageId: number, featureLevel = 0): Promise<number[]> {
  const { message } = await accessMessage(q, user, messageId, featureLevel);
  if (!realmSettings(realm.settings).enable_read_receipts) throw badRequest('Read receipts are disabled in this organization.');
  const readers = await userMessages.listActiveReaders(q, message.id, message.sender_id);
  const muting = await mutedUsers.partnersOf(q, user.id);
  return readers.filter((r) => userSettings(r.settings).send_read_receipts && !muting.has(r.user_id)).map((r) => r.user_id);
}
