/**
 * Zulip's Recipient.type: what a message's recipient row stands for. Stored in
 * recipient.type; `type_id` is then a user id, a stream id or a huddle id.
 */
export const RecipientType = {
  /** A one-to-one conversation: type_id is the user's id. */
  PERSONAL: 1,
  /** A stream: type_id is the stream's id. */
  STREAM: 2,
  /** A group private conversation of three or more: type_id is the huddle's id. */
  HUDDLE: 3,
} as const;

export type RecipientType = (typeof RecipientType)[keyof typeof RecipientType];
