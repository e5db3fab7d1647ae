import type { MessageRow, Q, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { canReadHistory } from './stream.js';
import { invalidMessage } from '../errors.js';

/**
 * A message the user received, or a stream message whose history they may read
 * (then without a user_message row: `flags` null means historical). Anything else is
 * "Invalid message(s)", the same answer as for a message that does not exist.
 */
export async function accessMessage(q: Q, user: UserRow, id: number): Promise<{ message: MessageRow; flags: number | null }> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) throw invalidMessage();
  const message = await messages.findById(q, id);
  if (!message || message.realm_id !== user.realm_id) throw invalidMessage();
  const um = await messages.flagsOf(q, user.id, id);
  if (um) return { message, flags: um.flags };
  if (message.stream_id !== null) {
    const stream = await streams.findInRealm(q, user.realm_id, message.stream_id);
    const sub = stream ? await subscriptions.findActive(q, user.id, stream.id) : undefined;
    if (stream && canReadHistory(user, stream, sub ?? null)) return { message, flags: null };
  }
  throw invalidMessage();
}
