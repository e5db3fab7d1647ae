/** The interface's size limits (spec, "Limits"), shared by the checks that enforce them and register, which announces them. */
export const MAX_MESSAGE_BYTES = 10_000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_NAME_LENGTH = 100;
export const MAX_ALERT_WORD_LENGTH = 100;
export const MAX_STATUS_TEXT_LENGTH = 60;

/**
 * The most items each list parameter may carry; past it the request is refused with
 * `<name> is too long (limit: N items)` (after Zulip's wording for capped strings; Zulip
 * itself sets no such limits). Each bounds the work and the SQL parameters one request
 * can ask for: queries built from these lists also chunk (store/repos/chunks.ts).
 */
export const LIST_LIMITS = {
  /** POST, DELETE and PATCH /users/me/subscriptions: `subscriptions`, `add`, `delete`. */
  streams: 1_000,
  /** `principals` of the subscription endpoints; `members`, `add`, `delete` of user groups. */
  users: 10_000,
  /** Stream-user pairs one subscribe may create: streams × principals. */
  subscriptionPairs: 10_000,
  /** POST /messages/flags `messages`, GET /messages/matches_narrow `msg_ids`. */
  messageIds: 10_000,
  /** `to` of POST /messages, POST /typing and drafts: a group conversation's members. */
  recipients: 1_000,
  /** `narrow`: its terms, and the items of one operand (`dm` / `pm-with` ids or emails). */
  narrowTerms: 100,
  narrowOperandItems: 1_000,
  /** POST and DELETE /users/me/alert_words `alert_words`. */
  alertWords: 1_000,
  /** Everything else list-shaped: drafts, subscription_data, profile field data and order, event types. */
  other: 1_000,
} as const;
