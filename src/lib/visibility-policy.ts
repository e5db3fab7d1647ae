/** Zulip's UserTopic.VisibilityPolicy: a user's policy for one topic. "Inherit" is no policy at all. */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export const VISIBILITY_POLICIES: readonly number[] = Object.values(VisibilityPolicy);

/** Policies that show a topic of a muted stream (Zulip's exclude_stream_and_topic_mutes). */
export const SHOWING_POLICIES: readonly number[] = [VisibilityPolicy.UNMUTED, VisibilityPolicy.FOLLOWED];

/**
 * Whether a stream message is muted for its reader (Zulip's is_row_muted, feature level 213):
 * a muted stream hides its topics but the unmuted and followed ones; a muted topic is hidden.
 */
export const isTopicMuted = (streamMuted: boolean, policy: number): boolean =>
  streamMuted ? !SHOWING_POLICIES.includes(policy) : policy === VisibilityPolicy.MUTED;

/**
 * register's order of `user_topics`, which applying `user_topic` events keeps: by when the
 * policy was set, then stream, then topic (lower-cased, by code unit: the same everywhere).
 */
export function compareUserTopics(a: { last_updated: number; stream_id: number; topic_name: string },
  b: { last_updated: number; stream_id: number; topic_name: string }): number {
  if (a.last_updated !== b.last_updated) return a.last_updated - b.last_updated;
  if (a.stream_id !== b.stream_id) return a.stream_id - b.stream_id;
  const x = a.topic_name.toLowerCase();
  const y = b.topic_name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
