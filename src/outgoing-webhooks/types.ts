import type { RealmRow, UserRow } from '../rows.js';
import type { WireMessage } from '../presenters/message.js';

/** Why a bot is called (Zulip's trigger names): a mention in a stream, or a private message it is in. */
/** `private_message` was renamed `direct_message` at feature level 201. */
export type Trigger = 'mention' | 'private_message' | 'direct_message';

/** One message for one outgoing-webhook bot: what the delivery queue holds. */
export interface OutgoingWebhookJob {
  realm: RealmRow;
  botId: number;
  trigger: Trigger;
  /** The message as Zulip sends it to a service: raw markdown `content`, plus `rendered_content`. */
  message: WireMessage;
  /** Set on a retry: the one service (of the bot's) being tried again. */
  serviceId?: number;
  /** Failed tries so far (Zulip's failed_tries). */
  failedTries: number;
}

/** What the send path sees of the delivery queue. */
export interface OutgoingWebhookQueue {
  /** Takes the job without waiting for anything; a full backlog drops it (logged, the owner told). */
  enqueue(job: OutgoingWebhookJob): void;
  /** Deliveries accepted and not finished (waiting, calling, posting the answer, or between tries). */
  readonly pending: number;
}

/** What a delivery posts as the bot: a reply or a failure in the conversation, or a notice to its owner. */
export interface BotPost {
  to: { kind: 'stream'; id: number } | { kind: 'private'; ids: number[] };
  topic?: string;
  content: string;
  client: string;
  /** As Zulip's internal sends: the bot answers where it was mentioned, without the stream access check. */
  internal: true;
}

/**
 * How deliveries post: the send action, handed in by startServices. outgoing-webhooks/ sits
 * below actions/ (the send path hands it jobs), so it cannot import the action itself.
 */
export type PostAsBot = (realm: RealmRow, bot: UserRow, post: BotPost) => Promise<unknown>;
