import { EMPTY_TOPIC_DISPLAY_NAME, topicForClient } from '../lib/empty-topic.js';
import type { MessageRow, RealmRow, UserRow } from '../rows.js';
import { avatarUrl } from './user.js';
import { realmSettings } from '../lib/realm-settings.js';
import type { WireDisplayRecipientUser, WireEditHistoryEntry, WireMessage as ExactWireMessage, WireReaction, WireTopicLink } from '../schemas/wire.js';
import { RecipientType } from '../lib/recipient-type.js';

export type { ExactWireMessage, WireReaction };

/**
 * A message as the layers above pass it around: presentMessage's output (exactly
 * ExactWireMessage, the schema's Message) or something shaped like it. Kept loose because
 * test/bots/outgoing-webhook-parts.test.ts hands src/outgoing-webhooks partial messages.
 */
export interface WireMessage { id: number; [key: string]: unknown }

export interface MessagePresentOpts {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  realm: RealmRow;
  /** The server's level: the names of the wildcard flags follow it (level 224). Absent: 122. */
  featureLevel?: number;
  /** The reader, for level 327 (loadWireMessages finds their incoming 1:1 messages' senderRecipientId). */
  viewerId?: number;
  /**
   * false: the empty topic is shown by its display name, in `subject` and the edit history
   * (level 334's allow_empty_topic_name). Absent: as stored (events, which personalize per queue).
   */
  allowEmptyTopicName?: boolean;
}

export type PmUser = WireDisplayRecipientUser;

/** Who is in each message's conversation, keyed by recipient id. */
export interface RecipientInfo {
  type: RecipientType;
  /** Stream name for streams; members (sorted by id) for private messages. */
  streamName?: string;
  streamId?: number;
  members?: PmUser[];
}

export const pmUser = (u: Pick<UserRow, 'id' | 'email' | 'full_name'>): PmUser => ({ id: u.id, email: u.email, full_name: u.full_name, is_mirror_dummy: false });

export function displayRecipient(info: RecipientInfo | undefined, senderId: number, sender: PmUser | undefined): string | PmUser[] {
  if (!info) return [];
  if (info.type === RecipientType.STREAM) return info.streamName ?? '';
  const members = [...(info.members ?? [])];
  if (sender && !members.some((u) => u.id === senderId)) members.push(sender);
  return members.sort((a, b) => a.id - b.id);
}

export function presentMessage(
  m: MessageRow, sender: UserRow, recipient: RecipientInfo | undefined, opts: MessagePresentOpts,
  // `reactions` are presentReaction's output (src/reads/messages.ts's loadReactions declares them as plain records).
  // `senderRecipientId` (level 327): a 1:1 message the reader received carries the recipient id their own
  // messages to that conversation do (the sender's personal recipient), not the reader's own.
  extra: { flags?: string[]; reactions: Array<Record<string, unknown>>; topicLinks?: WireTopicLink[]; senderRecipientId?: number | undefined },
): ExactWireMessage {
  const isStream = m.stream_id !== null;
  const level = opts.featureLevel ?? 122;
  const out: ExactWireMessage = {
    id: m.id,
    type: isStream ? 'stream' : 'private',
    sender_id: m.sender_id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: opts.realm.string_id,
    avatar_url: avatarUrl(sender, opts.clientGravatar),
    client: m.client,
    content: opts.applyMarkdown ? m.rendered_content : m.content,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
    display_recipient: displayRecipient(recipient, m.sender_id, pmUser(sender)),
    recipient_id: extra.senderRecipientId ?? m.recipient_id,
    subject: isStream ? topicForClient(m.topic, opts.allowEmptyTopicName !== false) : m.topic,
    topic_links: extra.topicLinks ?? [],
    timestamp: m.date_sent,
    is_me_message: m.is_me_message === 1,
    // Level 328 dropped each reaction's deprecated `user` from message objects.
    reactions: level >= 328 ? (extra.reactions as WireReaction[]).map(({ user: _user, ...r }) => r) : extra.reactions as WireReaction[],
    submessages: [],
  };
  if (isStream) out.stream_id = m.stream_id!;
  if (extra.flags) out.flags = extra.flags;
  if (m.last_edit_time !== null) {
    if (level >= 365) Object.assign(out, editTimes(m));
    else out.last_edit_timestamp = m.last_edit_time;
    // An organization that hides edit history hides it from every reader (Zulip's allow_edit_history;
    // from level 358 message_edit_history_visibility_policy, whose "moves" shows only moves).
    const settings = realmSettings(opts.realm.settings);
    const policy = settings.allow_edit_history ? settings.message_edit_history_visibility_policy : 'none';
    if (m.edit_history && policy !== 'none') {
      const history = JSON.parse(m.edit_history) as WireEditHistoryEntry[];
      // Level 284 dropped prev_rendered_content_version (stored still, for older levels).
      if (level >= 284) for (const e of history) delete e.prev_rendered_content_version;
      const shown = policy === 'moves' ? movesOnly(history) : history;
      out.edit_history = opts.allowEmptyTopicName === false ? shown.map(emptyTopicsNamed) : shown;
    }
  }
  return out;
}

/** "moves" (level 358): content edits left out, a move that also edited keeps only the move. */
function movesOnly(history: WireEditHistoryEntry[]): WireEditHistoryEntry[] {
  const out: WireEditHistoryEntry[] = [];
  for (const entry of history) {
    if (entry.prev_content === undefined) {
      out.push(entry);
      continue;
    }
    if (entry.prev_topic === undefined && entry.prev_stream === undefined) continue;
    const { prev_content: _content, prev_rendered_content: _rendered, prev_rendered_content_version: _version, ...move } = entry;
    out.push(move);
  }
  return out;
}

/** Zulip's RESOLVED_TOPIC_PREFIX (as src/actions/message-move-notices.ts; importing it here would close an import cycle). */
const RESOLVED_TOPIC_PREFIX = '\u2714 ';

/** Whether an edit-history entry only resolved or unresolved its topic (Zulip's topic_resolved / topic_unresolved). */
export function onlyResolveToggle(e: { prev_topic?: string | undefined; topic?: string | undefined; prev_stream?: number | undefined }): boolean {
  if (e.prev_stream !== undefined || e.prev_topic === undefined || e.topic === undefined) return false;
  const strip = (t: string): string => (t.startsWith(RESOLVED_TOPIC_PREFIX) ? strip(t.slice(RESOLVED_TOPIC_PREFIX.length)) : t);
  return (e.topic === RESOLVED_TOPIC_PREFIX + e.prev_topic && !e.prev_topic.startsWith(RESOLVED_TOPIC_PREFIX))
    || (e.prev_topic.startsWith(RESOLVED_TOPIC_PREFIX) && !e.topic.startsWith(RESOLVED_TOPIC_PREFIX) && strip(e.prev_topic) === e.topic);
}

/**
 * Level 365: `last_edit_timestamp` of the last content edit only, `last_moved_timestamp` of
 * the last move to another stream or topic (resolving or unresolving one is no move),
 * both from the stored history (newest first); each absent when there was none.
 */
function editTimes(m: MessageRow): { last_edit_timestamp?: number; last_moved_timestamp?: number } {
  if (!m.edit_history) return m.last_edit_time !== null ? { last_edit_timestamp: m.last_edit_time } : {};
  const history = JSON.parse(m.edit_history) as WireEditHistoryEntry[];
  const out: { last_edit_timestamp?: number; last_moved_timestamp?: number } = {};
  for (const e of history) {
    if (out.last_edit_timestamp === undefined && e.prev_content !== undefined) out.last_edit_timestamp = e.timestamp;
    if (out.last_moved_timestamp === undefined && (e.prev_stream !== undefined || e.prev_topic !== undefined) && !onlyResolveToggle(e)) {
      out.last_moved_timestamp = e.timestamp;
    }
  }
  return out;
}

/** An edit-history entry with its empty topics shown by their display name (level 334). */
export function emptyTopicsNamed<T extends { topic?: unknown; prev_topic?: unknown }>(entry: T): T {
  const out = { ...entry };
  if (out.topic === '') out.topic = EMPTY_TOPIC_DISPLAY_NAME;
  if (out.prev_topic === '') out.prev_topic = EMPTY_TOPIC_DISPLAY_NAME;
  return out;
}

/** One entry of a message's `reactions`. */
export function presentReaction(r: { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }, u: Pick<UserRow, 'email' | 'full_name'> | undefined): WireReaction {
  return {
    // Stored only as one of the three namespaces (src/emoji/reaction.ts checks it on the way in).
    emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type as WireReaction['reaction_type'], user_id: r.user_id,
    user: { id: r.user_id, email: u?.email ?? '', full_name: u?.full_name ?? '', is_mirror_dummy: false },
  };
}
