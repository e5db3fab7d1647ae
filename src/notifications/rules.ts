import type { NotificationTrigger } from './triggers.js';
import type { UserSettings } from '../lib/user-settings.js';
import { FLAG_BITS } from '../lib/message-flags.js';
import { VisibilityPolicy } from '../lib/visibility-policy.js';

/** A recipient's subscription settings as the rules read them (null: the user's default). */
export interface StreamSettings {
  isMuted: boolean;
  email: boolean | null;
  push: boolean | null;
  wildcard: boolean | null;
}

/** What one recipient's decision needs to know of a message. */
export interface RecipientFacts {
  userId: number;
  senderId: number;
  flags: number;
  settings: UserSettings;
  /** Null for a private message. */
  stream: StreamSettings | null;
  /** Their policy for the message's topic (0: none). */
  topicPolicy: number;
  senderMuted: boolean;
  /** Whether followed topics exist at the server's feature level (219). */
  followedTopics: boolean;
}

export interface Decision { email: NotificationTrigger | null; push: NotificationTrigger | null }

/**
 * Zulip's user_allows_notifications_in_StreamTopic: a muted topic, or a muted stream whose
 * topic is not unmuted, allows nothing; then the subscription's own setting, then the user's.
 */
export function allowsInStreamTopic(streamMuted: boolean, policy: number, streamSetting: boolean | null, userSetting: boolean): boolean {
  if (streamMuted && policy !== VisibilityPolicy.UNMUTED) return false;
  if (policy === VisibilityPolicy.MUTED) return false;
  return streamSetting ?? userSetting;
}

/**
 * The trigger for each channel, as if the recipient were away: Zulip's
 * UserMessageNotificationsData (from_user_id_sets with get_recipient_info's sets), and the
 * order of get_email_notification_trigger / get_push_notification_trigger. Whether they are
 * away is the caller's (an email only then; a push also when online push is on).
 */
export function decide(f: RecipientFacts): Decision {
  if (f.userId === f.senderId || f.senderMuted) return { email: null, push: null };
  const s = f.settings;
  const mentioned = (f.flags & FLAG_BITS.mentioned) !== 0;
  const streamWildcard = (f.flags & FLAG_BITS.wildcard_mentioned) !== 0;
  const topicWildcard = (f.flags & FLAG_BITS.topic_wildcard_mentioned) !== 0;
  const channel = (offline: boolean, streamKey: 'email' | 'push', userStreamDefault: boolean, followedSetting: boolean): NotificationTrigger | null => {
    if (!f.stream) return offline ? 'private_message' : null;
    const st = f.stream;
    const followed = f.followedTopics && f.topicPolicy === VisibilityPolicy.FOLLOWED;
    const wildcardAllowed = allowsInStreamTopic(st.isMuted, f.topicPolicy, st.wildcard, s.wildcard_mentions_notify);
    const followedWildcard = followed && s.enable_followed_topic_wildcard_mentions_notify;
    if (offline && mentioned) return 'mentioned';
    if (offline && topicWildcard && followedWildcard) return 'topic_wildcard_mentioned_in_followed_topic';
    if (offline && streamWildcard && followedWildcard) return 'stream_wildcard_mentioned_in_followed_topic';
    if (offline && topicWildcard && wildcardAllowed) return 'topic_wildcard_mentioned';
    if (offline && streamWildcard && wildcardAllowed) return 'stream_wildcard_mentioned';
    if (followed && followedSetting) return streamKey === 'email' ? 'followed_topic_email_notify' : 'followed_topic_push_notify';
    if (allowsInStreamTopic(st.isMuted, f.topicPolicy, st[streamKey], userStreamDefault)) return streamKey === 'email' ? 'stream_email_notify' : 'stream_push_notify';
    return null;
  };
  return {
    email: channel(s.enable_offline_email_notifications, 'email', s.enable_stream_email_notifications, s.enable_followed_topic_email_notifications),
    push: channel(s.enable_offline_push_notifications, 'push', s.enable_stream_push_notifications, s.enable_followed_topic_push_notifications),
  };
}

/** A mention span of the stored rendering: personal (data-user-id) or a group's, silent ones left out. */
const PERSONAL = /<span class="user-mention" data-user-id="(\d+)"/g;
const GROUP = /<span class="user-group-mention" data-user-group-id="(\d+)"/g;

export function mentionsIn(html: string): { userIds: Set<number>; groupIds: number[] } {
  const userIds = new Set<number>();
  const groupIds = new Set<number>();
  if (!html.includes('mention')) return { userIds, groupIds: [] };
  for (const m of html.matchAll(PERSONAL)) userIds.add(Number(m[1]));
  for (const m of html.matchAll(GROUP)) groupIds.add(Number(m[1]));
  return { userIds, groupIds: [...groupIds] };
}

/**
 * Zulip's get_user_group_mentions_data: for each member of a mentioned group not mentioned
 * personally, the mentioned group they are in with the fewest members.
 */
export function groupMentionOf(personal: ReadonlySet<number>, groupMembers: ReadonlyMap<number, ReadonlySet<number>>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [groupId, members] of groupMembers) {
    for (const userId of members) {
      if (personal.has(userId)) continue;
      const previous = out.get(userId);
      if (previous === undefined || groupMembers.get(previous)!.size > members.size) out.set(userId, groupId);
    }
  }
  return out;
}
