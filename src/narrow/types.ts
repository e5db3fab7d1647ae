/** A narrow term as clients send it, after the legacy pair form is normalised. */
export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

/**
 * A term with its operand resolved against the database (names to ids), so that the SQL
 * builder and the in-memory predicate evaluate exactly the same thing.
 */
export type ResolvedTerm = { negated: boolean } & (
  | { op: 'stream'; streamId: number }
  | { op: 'topic'; topicLower: string }
  | { op: 'sender'; userId: number }
  /** Conversation with exactly these participants (the viewer included). */
  | { op: 'pm-with'; memberIds: number[] }
  /** Private conversations that include this user. */
  | { op: 'dm-including'; userId: number }
  /** Group conversations (three or more people) that include this user. */
  | { op: 'group-pm-with'; userId: number }
  | { op: 'is'; what: 'private' | 'starred' | 'mentioned' | 'alerted' | 'unread' | 'resolved' }
  /**
   * What in:home keeps: private messages, and stream messages outside muted topics and
   * muted streams, but for the topics of muted streams the viewer unmuted or follows
   * (`shownTopics`, feature level 170). Topics are [stream id, lower-cased topic].
   */
  | { op: 'in-home'; mutedStreamIds: number[]; mutedTopics: Array<[number, string]>; shownTopics: Array<[number, string]> }
  /** Stream messages of these topics ([stream id, lower-cased topic]): is:followed. */
  | { op: 'topics'; topics: Array<[number, string]> }
  | { op: 'streams-public'; streamIds: number[] }
  | { op: 'id'; id: number }
  | { op: 'has'; what: 'link' | 'image' | 'attachment' | 'reaction' }
  | { op: 'search'; words: string[] }
  | { op: 'none' }
);

/** What the in-memory predicate needs to know about a message. */
export interface InternalMessage {
  id: number;
  sender_id: number;
  /** null for private messages. */
  stream_id: number | null;
  topic: string;
  /** Everyone in a private conversation, the sender included; empty for stream messages. */
  pm_user_ids: number[];
  content: string;
  has_link: boolean;
  has_image: boolean;
  has_attachment: boolean;
  /** Whether anyone reacted (has:reaction, level 249); absent: no reactions, as a message just sent. */
  has_reaction?: boolean;
}

/** A narrow's terms with names turned into ids for one viewer (src/reads/narrow-resolve.ts). */
export interface ResolvedNarrow {
  terms: ResolvedTerm[];
  /** Streams whose history the viewer reads through this narrow without having received it. */
  historyStreamIds: number[];
}
