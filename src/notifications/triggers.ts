/**
 * Why a recipient is notified of a message: Zulip's NotificationTriggers
 * (zerver/lib/notification_data.py), stored with each pending notification and shown in
 * the email ("you were mentioned", "sent to #stream", ...) and push payloads.
 */
export const TRIGGERS = [
  'private_message',
  'mentioned',
  'topic_wildcard_mentioned',
  'stream_wildcard_mentioned',
  'stream_push_notify',
  'stream_email_notify',
  'followed_topic_push_notify',
  'followed_topic_email_notify',
  'topic_wildcard_mentioned_in_followed_topic',
  'stream_wildcard_mentioned_in_followed_topic',
] as const;

export type NotificationTrigger = (typeof TRIGGERS)[number];

export const isTrigger = (s: string): s is NotificationTrigger => (TRIGGERS as readonly string[]).includes(s);

/** One message a user is to hear of, and why (a group mention names its group). */
export interface MissedMessage {
  messageId: number;
  trigger: NotificationTrigger;
  mentionedUserGroupId: number | null;
}
