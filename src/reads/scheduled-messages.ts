import type { Q } from '../store/rows.js';
import { scheduledMessages } from '../store/repos/scheduled-messages.js';
import { presentScheduledMessage, type WireScheduledMessage } from '../presenters/scheduled-message.js';

/** The user's own undelivered scheduled messages, failed ones included (Zulip's get_undelivered_scheduled_messages). */
export async function scheduledMessagesOf(q: Q, userId: number): Promise<WireScheduledMessage[]> {
  return (await scheduledMessages.listUndeliveredOfUser(q, userId)).map(presentScheduledMessage);
}
