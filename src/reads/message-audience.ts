import type { MessageRow, Q, StreamRow } from '../store/rows.js';
import { userMessages } from '../store/repos/user-messages.js';
import { users } from '../store/repos/users.js';
import { subscriberIds } from './streams.js';
import { Role } from '../lib/roles.js';

/**
 * Who hears of an action on a message (a reaction, a deletion): Zulip's
 * event_recipient_ids_for_action_on_messages, the users who may read the message and are
 * likely to hold it. Private messages: whoever has a recipient row. Streams with protected
 * history: subscribers who received it. Private streams with shared history: their
 * subscribers. Public streams: their subscribers, plus non-guests who hold a row without
 * being subscribed (they reacted or starred, or have left since). Users who merely
 * browsed a public stream get nothing, as in Zulip; reacting gives them a row.
 */
export async function messageActionAudience(q: Q, message: MessageRow, stream: StreamRow | undefined): Promise<number[]> {
  const holders = await userMessages.listHolderIds(q, message.id);
  if (message.stream_id === null || !stream) return holders;
  // Cached outside a transaction, as for a send to the stream.
  const subscribers = await subscriberIds(q, stream.id);
  if (stream.history_public_to_subscribers !== 1) {
    const held = new Set(holders);
    return subscribers.filter((id) => held.has(id));
  }
  if (stream.invite_only === 1) return [...subscribers];
  const out = new Set(subscribers);
  // Usually every holder is a subscriber; only the others' roles need looking up.
  const others = holders.filter((id) => !out.has(id));
  if (others.length > 0) for (const u of await users.listByIds(q, others)) if (u.role !== Role.GUEST) out.add(u.id);
  return [...out];
}
