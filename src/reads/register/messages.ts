import type { Q, UserRow } from '../../store/rows.js';
import { userMessages } from '../../store/repos/user-messages.js';
import { recipients as recipientRows } from '../../store/repos/recipients.js';
import { subscriptions } from '../../store/repos/subscriptions.js';
import { userTopics } from '../../store/repos/user-topics.js';
import { FLAG_BITS } from '../../lib/message-flags.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { isTopicMuted, VisibilityPolicy } from '../../lib/visibility-policy.js';

const WILDCARD = FLAG_BITS.wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** Whether a stream message is muted for the user (Zulip's is_row_muted: level 213's rule). */
async function mutingOfUser(db: Q, userId: number): Promise<(streamId: number, topic: string) => boolean> {
  const mutedStreams = new Set(await subscriptions.listMutedStreamIds(db, userId));
  const policies = new Map((await userTopics.listOfUser(db, userId)).map((t) => [`${t.stream_id}\u0000${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  return (streamId, topic) => isTopicMuted(mutedStreams.has(streamId), policies.get(`${streamId}\u0000${topic.toLowerCase()}`) ?? VisibilityPolicy.INHERIT);
}

/** Zulip's MAX_UNREAD_MESSAGES: past it, register says old unreads are missing. */
const MAX_UNREADS = 50_000;

/**
 * register's `unread_msgs` (Zulip's aggregate_unread_data): `count` leaves out the stream
 * messages the user muted (by stream or topic), and `mentions` has personal and group
 * mentions everywhere but wildcard mentions only where not muted.
 */
export async function unreadMsgs(db: Q, user: UserRow): Promise<Record<string, unknown>> {
  const rows = await userMessages.listUnread(db, user.id, MAX_UNREADS);
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<number, number[]>();
  const mentions: number[] = [];
  const personal = new Map<number, number>();
  const recRows = await recipientRows.listByIds(db, [...new Set(rows.map((r) => r.recipient_id))]);
  const recipients = new Map(recRows.map((r) => [r.id, r]));
  for (const r of recRows) if (r.type === RecipientType.PERSONAL) personal.set(r.id, r.type_id);
  const huddleHash = await userMessages.huddleHashes(db, recRows.filter((r) => r.type === RecipientType.HUDDLE).map((r) => r.id));
  const muted = await mutingOfUser(db, user.id);
  let count = 0;
  for (const r of rows) {
    const isMuted = r.stream_id !== null && muted(r.stream_id, r.topic);
    if (!isMuted) count += 1;
    if ((r.flags & FLAG_BITS.mentioned) !== 0 || ((r.flags & WILDCARD) !== 0 && !isMuted)) mentions.push(r.id);
    if (r.stream_id !== null) {
      const key = `${r.stream_id}\u0000${r.topic}`;
      const e = streams.get(key) ?? { stream_id: r.stream_id, topic: r.topic, unread_message_ids: [] };
      e.unread_message_ids.push(r.id);
      streams.set(key, e);
    } else if (recipients.get(r.recipient_id)?.type === RecipientType.HUDDLE) {
      huddles.set(r.recipient_id, [...(huddles.get(r.recipient_id) ?? []), r.id]);
    } else {
      // The other person of a one-to-one conversation (yourself for notes to self).
      const other = r.sender_id === user.id ? personal.get(r.recipient_id)! : r.sender_id;
      pms.set(other, [...(pms.get(other) ?? []), r.id]);
    }
  }
  return {
    count,
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()],
    huddles: [...huddles].map(([rid, ids]) => ({ user_ids_string: huddleHash.get(rid) ?? '', unread_message_ids: ids })),
    mentions,
    old_unreads_missing: rows.length >= MAX_UNREADS,
  };
}

/** register's `recent_private_conversations`, newest first, at most 1,000. */
export async function recentPrivateConversations(db: Q, user: UserRow): Promise<Array<{ max_message_id: number; user_ids: number[] }>> {
  const rows = await userMessages.privateConversationMaxIds(db, user.id);
  const recRows = await recipientRows.listByIds(db, [...new Set(rows.map((r) => r.recipient_id))]);
  const recipients = new Map(recRows.map((r) => [r.id, r]));
  const hash = await userMessages.huddleHashes(db, recRows.filter((r) => r.type === RecipientType.HUDDLE).map((r) => r.id));
  const convs = new Map<string, { max_message_id: number; user_ids: number[] }>();
  for (const r of rows) {
    const rec = recipients.get(r.recipient_id);
    let others: number[];
    if (rec?.type === RecipientType.HUDDLE) others = (hash.get(r.recipient_id) ?? '').split(',').map(Number).filter((id) => id !== user.id);
    else others = [r.sender_id === user.id ? rec!.type_id : r.sender_id].filter((id) => id !== user.id);
    const key = others.join(',');
    const prev = convs.get(key);
    const maxId = Number(r.max_id);
    if (!prev || prev.max_message_id < maxId) convs.set(key, { max_message_id: maxId, user_ids: others });
  }
  return [...convs.values()].sort((a, b) => b.max_message_id - a.max_message_id).slice(0, 1000);
}

export const starredMessageIds = (q: Q, user: UserRow): Promise<number[]> => userMessages.listStarredIds(q, user.id);
