/**
 * A user's policy for one topic changed (Zulip's user_topic event, feature level 134):
 * `visibility_policy` 0 (none: the stream's muting applies), 1 muted, 2 unmuted, 3 followed.
 * It reaches the user's queues that take `user_topic`; the legacy `muted_topics` event
 * reaches the others (src/events/queue.ts).
 */
export interface UserTopicEvent { type: 'user_topic'; stream_id: number; topic_name: string; last_updated: number; visibility_policy: number }
