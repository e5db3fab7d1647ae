import type { Q, UserRow } from '../store/rows.js';
import type { UnreadMessageDetails } from '../events/types.js';
import { userMessages } from '../store/repos/user-messages.js';
import { recipients as recipientRows } from '../store/repos/recipients.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { userTopics } from '../store/repos/user-topics.js';
import { isTopicMuted } from '../lib/visibility-policy.js';
import { FLAG_BITS } from '../lib/message-flags.js';
import { RecipientType } from '../lib/recipient-type.js';

/**
 * The `message_details` of an update_message_flags event that marks messages unread
 * (feature level 121, Zulip's format_unread_message_details): for each of `messageIds`
 * now unread, where a client files it in unread_msgs. Private conversations name the other
 * participants (none for notes to self); `mentioned` follows register's `mentions`
 * (src/reads/register/messages.ts), so that a client applying it lands on register's state.
 */
export async function unreadMessageDetails(q: Q, user: UserRow, messageIds: number[]): Promise<Record<string, UnreadMessageDetails>> {
  const rows = await userMessages.listUnreadByIds(q, user.id, messageIds);
  const recRows = await recipientRows.listByIds(q, [...new Set(rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id))]);
  const recipients = new Map(recRows.map((r) => [r.id, r]));
  const huddles = await userMessages.huddleHashes(q, recRows.filter((r) => r.type === RecipientType.HUDDLE).map((r) => r.id));
  const streamMuted = new Map<number, boolean>();
  const topicPolicy = new Map<string, number>();
  const out: Record<string, UnreadMessageDetails> = {};
  for (const r of rows) {
    let d: UnreadMessageDetails;
    if (r.stream_id !== null) {
      if (!streamMuted.has(r.stream_id)) streamMuted.set(r.stream_id, (await subscriptions.findActive(q, user.id, r.stream_id))?.is_muted === 1);
      const key = `${r.stream_id}\u0000${r.topic.toLowerCase()}`;
      if (!topicPolicy.has(key)) topicPolicy.set(key, await userTopics.policyOf(q, user.id, r.stream_id, r.topic));
      // A muted stream's unmuted or followed topic is not muted (feature level 213).
      d = { type: 'stream', stream_id: r.stream_id, topic: r.topic, unmuted_stream_msg: !isTopicMuted(streamMuted.get(r.stream_id)!, topicPolicy.get(key)!) };
    } else {
      const rec = recipients.get(r.recipient_id);
      const members = rec?.type === RecipientType.HUDDLE
        ? (huddles.get(r.recipient_id) ?? '').split(',').map(Number)
        : [r.sender_id === user.id ? rec!.type_id : r.sender_id];
      d = { type: 'private', user_ids: members.filter((id) => id !== user.id).sort((a, b) => a - b) };
    }
    // As register's `mentions`: wildcard mentions only where the message is not muted.
    const unmuted = d.type !== 'stream' || d.unmuted_stream_msg;
    if ((r.flags & FLAG_BITS.mentioned) !== 0 || ((r.flags & (FLAG_BITS.wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0 && unmuted)) d.mentioned = true;
    out[String(r.id)] = d;
  }
  return out;
}
