/**
 * The empty topic (Zulip 10, feature level 334): a stream message may have the topic "",
 * which clients that do not say they can show it (the `empty_topic_name` capability, or
 * `allow_empty_topic_name` on a read) are shown as the realm's display name for it.
 * Zulip's zerver/lib/topic.py.
 */

/** From this level "" is a topic of its own (below it, sending to "" stores "(no topic)"). */
export const EMPTY_TOPIC_LEVEL = 334;
/** From this level "(no topic)" sent with POST /messages or scheduled means "" (level 370): see sentNoTopicToEmpty. */
export const NO_TOPIC_AS_EMPTY_LEVEL = 370;
/** From this level "(no topic)" on POST /typing means "" (level 372, Zulip 10.1). */
export const TYPING_NO_TOPIC_AS_EMPTY_LEVEL = 372;

/** Zulip's Message.EMPTY_TOPIC_FALLBACK_NAME, untranslated: Parley has one language. */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';
/** What sending to an empty topic stored before level 334, and what clients still send for it. */
export const NO_TOPIC = '(no topic)';

/** Zulip's maybe_rename_general_chat_to_empty_topic: the display name names the empty topic. */
export function generalChatToEmpty(topic: string, level: number): string {
  return level >= EMPTY_TOPIC_LEVEL && topic === EMPTY_TOPIC_DISPLAY_NAME ? '' : topic;
}

/** Zulip's maybe_rename_no_topic_to_empty_topic, from the level that does it. */
export function noTopicToEmpty(topic: string, level: number, from: number): string {
  return level >= from && topic === NO_TOPIC ? '' : topic;
}

/**
 * Level 370 as Zulip 10 applies it: only in the views of POST /messages and POST/PATCH
 * /scheduled_messages, so an integration's own default topic "(no topic)" stays that topic.
 * Compared after trimming, as checkTopic trims.
 */
export function sentNoTopicToEmpty(raw: string | undefined, level: number): string | undefined {
  return raw !== undefined && raw.trim() === NO_TOPIC ? noTopicToEmpty(NO_TOPIC, level, NO_TOPIC_AS_EMPTY_LEVEL) : raw;
}

/** Zulip's maybe_rename_empty_topic_to_general_chat: what a client that cannot show "" sees. */
export function topicForClient(topic: string, allowEmpty: boolean): string {
  return topic === '' && !allowEmpty ? EMPTY_TOPIC_DISPLAY_NAME : topic;
}

/** Whether a request's `allow_empty_topic_name` counts: a server below level 334 knew no such parameter. */
export function allowsEmptyTopic(asked: boolean, level: number): boolean {
  return asked && level >= EMPTY_TOPIC_LEVEL;
}
