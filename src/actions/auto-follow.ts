import type { Tx } from './transaction.js';
import type { Q, StreamRow, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { userTopics } from '../store/repos/user-topics.js';
import { users } from '../store/repos/users.js';
import { userSettings } from '../lib/user-settings.js';
import { VisibilityPolicy } from '../lib/visibility-policy.js';
import { canReadHistory } from '../access/stream.js';
import { doSetUserTopicPolicy } from './user-topics.js';

/**
 * Topics followed or unmuted automatically (Zulip's automatically_follow_topics_policy and
 * automatically_unmute_topics_in_muted_streams_policy, feature level 214, and
 * automatically_follow_topics_where_mentioned, 235; zerver/lib/message.py and
 * zerver/actions/message_send.py). Servers of earlier levels never do it: their clients have
 * no way to see or change the settings.
 */
export const AUTO_FOLLOW_LEVEL = 214;
export const FOLLOW_WHERE_MENTIONED_LEVEL = 235;

/** Zulip's AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_*. */
export const AutoPolicy = { ON_PARTICIPATION: 1, ON_SEND: 2, ON_INITIATION: 3, NEVER: 4 } as const;

interface AutoSettings { automatically_follow_topics_policy: number; automatically_unmute_topics_in_muted_streams_policy: number }

function settingsOf(user: UserRow): AutoSettings {
  const s = userSettings(user.settings);
  return { automatically_follow_topics_policy: s.automatically_follow_topics_policy, automatically_unmute_topics_in_muted_streams_policy: s.automatically_unmute_topics_in_muted_streams_policy };
}

/** Zulip's visibility_policy_for_participation / _for_send: the policy that acting on this trigger asks for, if any. */
function policyOn(trigger: number, s: AutoSettings, streamMuted: boolean): number | null {
  if (s.automatically_follow_topics_policy === trigger) return VisibilityPolicy.FOLLOWED;
  if (streamMuted && s.automatically_unmute_topics_in_muted_streams_policy === trigger) return VisibilityPolicy.UNMUTED;
  return null;
}

/** Zulip's set_visibility_policy_possible: humans, in streams of their own organization. */
const possible = (user: UserRow, stream: StreamRow | undefined): stream is StreamRow =>
  stream !== undefined && user.is_bot !== 1 && stream.realm_id === user.realm_id;

/**
 * Zulip's visibility_policy_for_send_message: the policy a message just sent (`messageId`) gives
 * its sender's topic, or null when the settings cannot make the topic more visible. Following
 * wins over unmuting; a followed topic is left alone.
 */
async function policyForSend(q: Q, sender: UserRow, s: AutoSettings, stream: StreamRow, topic: string, messageId: number,
  streamMuted: boolean, current: number): Promise<number | null> {
  if (current === VisibilityPolicy.FOLLOWED) return null;
  const asked = [policyOn(AutoPolicy.ON_PARTICIPATION, s, streamMuted), policyOn(AutoPolicy.ON_SEND, s, streamMuted)];
  if (asked.includes(VisibilityPolicy.FOLLOWED)) return VisibilityPolicy.FOLLOWED;
  let policy: number | null = asked.includes(VisibilityPolicy.UNMUTED) ? VisibilityPolicy.UNMUTED : null;
  // A topic with a policy was not started by this message.
  if (current !== VisibilityPolicy.INHERIT) return policy !== null && policy === current ? null : policy;
  const initiates = s.automatically_follow_topics_policy === AutoPolicy.ON_INITIATION
    || (streamMuted && s.automatically_unmute_topics_in_muted_streams_policy === AutoPolicy.ON_INITIATION);
  if (!initiates) return policy;
  const sub = await subscriptions.findActive(q, sender.id, stream.id);
  // Without access to the stream's history, only the sender's own messages count (nothing leaks).
  const started = !(await messages.anotherInTopic(q, stream.id, topic.toLowerCase(), messageId,
    canReadHistory(sender, stream, sub ?? null) ? undefined : sender.id));
  if (started && s.automatically_follow_topics_policy === AutoPolicy.ON_INITIATION) return VisibilityPolicy.FOLLOWED;
  if (started && streamMuted && s.automatically_unmute_topics_in_muted_streams_policy === AutoPolicy.ON_INITIATION) policy = VisibilityPolicy.UNMUTED;
  return policy;
}

/**
 * After a stream message is stored: its sender's topic policy by their settings, and the topic
 * followed for each human mentioned by name who asked for it (not where they muted it). Answers
 * the sender's new policy, for POST /messages' `automatic_new_visibility_policy` (level 218).
 */
export async function doAutoFollowAfterSend(tx: Tx, sender: UserRow, stream: StreamRow | undefined, topic: string, messageId: number,
  mentionedUserIds: ReadonlySet<number>, recipientIds: readonly number[], featureLevel: number): Promise<number | undefined> {
  if (stream === undefined || featureLevel < AUTO_FOLLOW_LEVEL) return undefined;
  let changed: number | undefined;
  const s = settingsOf(sender);
  if (possible(sender, stream) && !(s.automatically_follow_topics_policy === AutoPolicy.NEVER && s.automatically_unmute_topics_in_muted_streams_policy === AutoPolicy.NEVER)) {
    const current = await userTopics.policyOf(tx.db, sender.id, stream.id, topic);
    const sub = await subscriptions.findActive(tx.db, sender.id, stream.id);
    const policy = await policyForSend(tx.db, sender, s, stream, topic, messageId, sub?.is_muted === 1, current);
    if (policy !== null) {
      await doSetUserTopicPolicy(tx, sender, stream.id, topic, policy);
      changed = policy;
    }
  }
  if (featureLevel >= FOLLOW_WHERE_MENTIONED_LEVEL && mentionedUserIds.size > 0) {
    const recipients = new Set(recipientIds);
    for (const id of mentionedUserIds) {
      if (!recipients.has(id)) continue;
      const user = await users.findById(tx.db, id);
      if (!user || user.is_active !== 1 || user.is_bot === 1 || !userSettings(user.settings).automatically_follow_topics_where_mentioned) continue;
      const current = await userTopics.policyOf(tx.db, id, stream.id, topic);
      // An explicit mute wins over the setting; a followed topic stays as it is.
      if (current === VisibilityPolicy.MUTED || current === VisibilityPolicy.FOLLOWED) continue;
      await doSetUserTopicPolicy(tx, user, stream.id, topic, VisibilityPolicy.FOLLOWED);
    }
  }
  return changed;
}

/**
 * Taking part in a topic otherwise (a reaction): Zulip's ON_PARTICIPATION rule, for a
 * subscriber; never lowers a followed topic to unmuted.
 */
export async function doAutoFollowOnParticipation(tx: Tx, user: UserRow, stream: StreamRow | undefined, topic: string, featureLevel: number): Promise<void> {
  if (featureLevel < AUTO_FOLLOW_LEVEL || !possible(user, stream)) return;
  const s = settingsOf(user);
  if (s.automatically_follow_topics_policy !== AutoPolicy.ON_PARTICIPATION && s.automatically_unmute_topics_in_muted_streams_policy !== AutoPolicy.ON_PARTICIPATION) return;
  const sub = await subscriptions.findActive(tx.db, user.id, stream.id);
  if (!sub) return;
  const policy = policyOn(AutoPolicy.ON_PARTICIPATION, s, sub.is_muted === 1);
  if (policy === null) return;
  const current = await userTopics.policyOf(tx.db, user.id, stream.id, topic);
  if (current === policy || current === VisibilityPolicy.FOLLOWED) return;
  await doSetUserTopicPolicy(tx, user, stream.id, topic, policy);
}
