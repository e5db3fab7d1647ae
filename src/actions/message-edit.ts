import type { AppContext } from '../context.js';
import { checkUserGroupMentionAllowed } from '../access/group-setting.js';
import { relinkAttachments } from './attachment-claims.js';
import { transact, type Tx } from './transaction.js';
import { catchUpNewlyMentioned } from './soft-deactivation.js';
import type { MessageRow, Q, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { messageEdits } from '../store/repos/message-edits.js';
import { streamInRealm, subscriberIds } from '../reads/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { users } from '../store/repos/users.js';
import { accessMessage } from '../access/message.js';
import { accessStreamById, canSeeStream, sendPermissionError } from '../access/stream.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import { badRequest, invalidMessage, invalidStreamId, moveMessagesTimeLimitExceeded } from '../errors.js';
import { realmSettings, type RealmSettings } from '../lib/realm-settings.js';
import { FLAG_BITS, flagsFromMask } from '../lib/message-flags.js';
import { messages } from '../store/repos/messages.js';
import { Role, isModeratorOrAbove } from '../lib/roles.js';
import { nowSeconds } from '../lib/time.js';
import { renderMessage } from '../markdown/bounded.js';
import { renderContextFor } from '../reads/render-context.js';
import { topicLinker } from '../reads/linkifiers.js';
import { realmAlertWords } from '../reads/alert-words.js';
import { matchesAlertWord } from './alert-words.js';
import { checkContent, checkTopicCharacters, truncateTopic } from './message-send.js';
import { moveTopicMuting } from './topic-muting-move.js';
import { EMPTY_TOPIC_DISPLAY_NAME, EMPTY_TOPIC_LEVEL, NO_TOPIC, generalChatToEmpty } from '../lib/empty-topic.js';
import { RESOLVED_TOPIC_PREFIX, sendMoveNotices, type MoveNotice } from './message-move-notices.js';
import type { UpdateMessageEvent } from '../events/types.js';
import type { WireAttachment } from '../schemas/wire.js';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';
export const PROPAGATE_MODES: readonly PropagateMode[] = ['change_one', 'change_later', 'change_all'];

export interface MessageEditRequest {
  content?: string | undefined;
  topic?: string | undefined;
  streamId?: number | undefined;
  propagateMode: PropagateMode;
  notifyOldThread: boolean;
  notifyNewThread: boolean;
}

// Zulip allows 20 seconds past each limit: the web app offers editing until 15 seconds
// past it, and requests take time.
const EDIT_LIMIT_BUFFER = 20;
// Zulip's Realm.DEFAULT_COMMUNITY_TOPIC_EDITING_LIMIT_SECONDS: members' topic edits (3 days)
// below feature level 162, which made it the setting move_messages_within_stream_limit_seconds.
const TOPIC_EDIT_LIMIT_SECONDS = 259_200;

const noPermission = () => badRequest("You don't have permission to edit this message");

/**
 * Zulip's validate_user_can_edit_message: whether `user` may edit the content of `message`
 * now, with `bufferSeconds` of grace past the limit (typing while editing, level 351, has none).
 */
export function checkCanEditContent(realm: RealmRow, user: UserRow, message: MessageRow, bufferSeconds: number): void {
  const settings = realmSettings(realm.settings);
  if (!settings.allow_message_editing) throw badRequest('Your organization has turned off message editing');
  if (message.sender_id !== user.id) throw noPermission();
  const limit = settings.message_content_edit_limit_seconds;
  if (limit !== null && limit > 0 && nowSeconds() - message.date_sent > limit + bufferSeconds) {
    throw badRequest('The time limit for editing this message has passed');
  }
}

/** Zulip's check_stream_topic for an edit: a topic may not be emptied. */
function checkEditTopic(raw: string): string {
  const topic = raw.trim();
  if (topic === '') throw badRequest("Topic can't be empty!");
  checkTopicCharacters(topic);
  return topic;
}

/** Feature level 367: resolving or unresolving a topic takes can_resolve_topics_group instead of the topic move permission. */
export const RESOLVE_TOPICS_GROUP_LEVEL = 367;

/**
 * Zulip's build_message_edit_request: the new topic is the old one resolved (the mark put
 * in front) or unresolved (the mark taken off), and nothing else.
 */
function isResolveOrUnresolve(orig: string, topic: string): boolean {
  const strip = (t: string) => t.replace(/^[\u2714 ]+/u, '');
  const resolved = topic.startsWith(RESOLVED_TOPIC_PREFIX) && !orig.startsWith(RESOLVED_TOPIC_PREFIX) && strip(topic) === orig;
  const unresolved = orig.startsWith(RESOLVED_TOPIC_PREFIX) && !topic.startsWith(RESOLVED_TOPIC_PREFIX) && strip(orig) === topic;
  return resolved || unresolved;
}

interface Checked {
  message: MessageRow;
  content?: string;
  topic?: string;
  oldStream?: StreamRow;
  newStream?: StreamRow;
}

/**
 * Zulip's check_update_message, in its order, so that the first problem is the one reported,
 * with the rules of the reported feature `level`: from 162 the move time limits are the
 * organization's settings (a stream move had none before); from 172 "(no topic)" messages
 * are no longer anyone's to retitle, and a non-moderator's `change_all` move must be able
 * to take the whole topic (MOVE_MESSAGES_TIME_LIMIT_EXCEEDED).
 */
async function checkUpdate(q: Q, realm: RealmRow, user: UserRow, messageId: number, req: MessageEditRequest, level: number): Promise<Checked> {
  // Level 354: content access through the stream's groups reaches the message too.
  const { message, flags } = await accessMessage(q, user, messageId, level);
  // The level also opens archived streams' messages for reading (360), not for changing
  // (Zulip's is_modifying_message): reached without a row of one's own, they stay closed.
  if (flags === null && message.stream_id !== null && !(await streamInRealm(q, realm.id, message.stream_id))) throw invalidMessage();
  const settings = realmSettings(realm.settings);
  if (req.content !== undefined && !settings.allow_message_editing) throw badRequest('Your organization has turned off message editing');
  // From level 334 "general chat" names the empty topic.
  let topic = req.topic === undefined ? undefined : generalChatToEmpty(req.topic.trim(), level);
  if (topic === message.topic) topic = undefined;
  let streamId = req.streamId;
  if (streamId !== undefined && streamId === message.stream_id) streamId = undefined;

  if (topic === undefined && req.content === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (message.stream_id === null) {
    if (streamId !== undefined) throw badRequest('Private messages cannot be moved to streams.');
    if (topic !== undefined) throw badRequest('Private messages cannot have topics.');
  }
  if (req.propagateMode !== 'change_one' && topic === undefined && streamId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  if (level >= EMPTY_TOPIC_LEVEL) {
    // Zulip 10: a topic may be emptied, unless topics are required; the empty topic cannot be resolved.
    if (settings.mandatory_topics && (topic === '' || topic === NO_TOPIC)) throw badRequest('Topics are required in this organization.');
    if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}${EMPTY_TOPIC_DISPLAY_NAME}`) {
      throw badRequest('General chat cannot be marked as resolved');
    }
    if (topic !== undefined) checkTopicCharacters(topic);
  } else if (topic !== undefined) checkEditTopic(topic);
  if (streamId !== undefined && req.content !== undefined) throw badRequest('Cannot change message content while changing stream');

  if (req.content !== undefined && message.sender_id !== user.id) throw noPermission();
  // Below level 172 anyone may tend "(no topic)" messages, at any age.
  const noTopic = message.topic === '(no topic)' && level < 172;
  // Zulip 10 (level 367): resolving is can_resolve_topics_group's, without the topic time limit.
  const resolving = topic !== undefined && level >= RESOLVE_TOPICS_GROUP_LEVEL && isResolveOrUnresolve(message.topic, topic);
  if (resolving && !await hasRealmGroupPermission(q, realm, user, 'can_resolve_topics_group')) throw badRequest("You don't have permission to resolve topics.");
  // can_move_messages_between_topics_group (level 316) replaced edit_topic_policy.
  if (topic !== undefined && !resolving && !noTopic && !await hasRealmGroupPermission(q, realm, user, 'can_move_messages_between_topics_group')) throw noPermission();
  const age = nowSeconds() - message.date_sent;
  const contentLimit = settings.message_content_edit_limit_seconds;
  if (req.content !== undefined && contentLimit !== null && contentLimit > 0 && age > contentLimit + EDIT_LIMIT_BUFFER) {
    throw badRequest('The time limit for editing this message has passed');
  }
  const topicLimit = level >= 162 ? settings.move_messages_within_stream_limit_seconds : TOPIC_EDIT_LIMIT_SECONDS;
  if (topic !== undefined && !resolving && !isModeratorOrAbove(user.role) && !noTopic && topicLimit !== null && age > topicLimit + EDIT_LIMIT_BUFFER) {
    // Zulip 9's wording (feature level 277) once the limit is the setting.
    throw badRequest(level >= 162 ? "The time limit for editing this message's topic has passed." : "The time limit for editing this message's topic has passed");
  }

  const out: Checked = { message };
  if (req.content !== undefined) out.content = checkContent(req.content.replace(/\s+$/u, '') === '' ? '(deleted)' : req.content);
  if (topic !== undefined) out.topic = truncateTopic(topic);
  if (message.stream_id !== null) out.oldStream = await streamInRealm(q, realm.id, message.stream_id);
  if (streamId !== undefined) {
    // can_move_messages_between_channels_group (level 310) replaced move_messages_between_streams_policy.
    if (!await hasRealmGroupPermission(q, realm, user, 'can_move_messages_between_channels_group')) throw badRequest("You don't have permission to move this message");
    const oldSub = out.oldStream ? await subscriptions.findActive(q, user.id, out.oldStream.id) : undefined;
    if (!out.oldStream || !canSeeStream(user, out.oldStream, oldSub)) {
      throw badRequest("You don't have permission to move this message due to missing access to its stream");
    }
    const { stream } = await accessStreamById(q, user, streamId);
    if (stream.deactivated === 1) throw invalidStreamId();
    const policy = await sendPermissionError(q, user, stream, realm, level);
    if (policy) throw badRequest(policy);
    const limit = settings.move_messages_between_streams_limit_seconds;
    if (level >= 162 && !isModeratorOrAbove(user.role) && limit !== null && age > limit + EDIT_LIMIT_BUFFER) {
      throw badRequest("The time limit for editing this message's channel has passed");
    }
    out.newStream = stream;
  }
  if (level >= 172 && req.propagateMode === 'change_all' && !isModeratorOrAbove(user.role) && out.oldStream && (topic !== undefined || streamId !== undefined)) {
    await checkChangeAllTimeLimit(q, user, settings, message, out.oldStream, topic !== undefined, streamId !== undefined);
  }
  return out;
}

/**
 * Zulip's check_time_limit_for_change_all_propagate_mode (feature level 172): the stricter
 * of the limits that apply to this move must cover every message of the topic the mover
 * can see, or the request fails naming how many of the newest they may move.
 */
async function checkChangeAllTimeLimit(q: Q, user: UserRow, settings: Readonly<RealmSettings>, message: MessageRow, stream: StreamRow,
  topicMoved: boolean, streamMoved: boolean): Promise<void> {
  const limits = [
    topicMoved ? settings.move_messages_within_stream_limit_seconds : null,
    streamMoved ? settings.move_messages_between_streams_limit_seconds : null,
  ].filter((l): l is number => l !== null);
  if (limits.length === 0) return;
  const oldest = nowSeconds() - (Math.min(...limits) + EDIT_LIMIT_BUFFER);
  const all = await messageEdits.listTopicMessageDates(q, stream.id, message.topic,
    stream.history_public_to_subscribers !== 1 ? user.id : undefined);
  const allowed = all.filter((m) => m.date_sent > oldest);
  if (allowed.length === all.length) return;
  throw moveMessagesTimeLimitExceeded(allowed[0]?.id ?? null, all.length, allowed.length);
}

/** The flags an edit's new rendering gives each recipient (Zulip's update_user_message_flags). */
function recomputeFlags(flags: number, userId: number, senderId: number, content: string, mentioned: ReadonlySet<number>,
  wildcard: boolean, topicWildcard: ReadonlySet<number>, alertWords: ReadonlyMap<number, string[]>): number {
  const toggled = (f: number, on: boolean, bit: number) => (on ? f | bit : f & ~bit);
  let f = toggled(flags, mentioned.has(userId), FLAG_BITS.mentioned);
  f = toggled(f, wildcard, FLAG_BITS.wildcard_mentioned);
  f = toggled(f, topicWildcard.has(userId), FLAG_BITS.topic_wildcard_mentioned);
  return toggled(f, userId !== senderId && matchesAlertWord(content, alertWords.get(userId)), FLAG_BITS.has_alert_word);
}

const FLAG_MASK = FLAG_BITS.mentioned | FLAG_BITS.wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.has_alert_word;

/**
 * Everything an edit will write, worked out from reads made before its transaction: on
 * SQLite a transaction holds the one writer (sends wait for it), so it only writes.
 */
interface Plan {
  /** Answers the uploads the edit detached (level 285's detached_uploads). */
  write(tx: Tx): Promise<WireAttachment[]>;
  notice?: (q: Q) => Promise<MoveNotice>;
}

async function planUpdate(q: Q, realm: RealmRow, user: UserRow, c: Checked, req: MessageEditRequest, level: number): Promise<Plan> {
  const { message, oldStream, newStream } = c;
  const now = nowSeconds();
  const event: UpdateMessageEvent = {
    type: 'update_message', user_id: user.id, edit_timestamp: now, message_id: message.id, message_ids: [], rendering_only: false, flags_by_user: {},
  };
  const entry: Record<string, unknown> = { user_id: user.id, timestamp: now };
  if (oldStream) {
    event.stream_name = oldStream.name;
    event.stream_id = oldStream.id;
  }
  let rows = await messageEdits.listRecipientRows(q, message.id);
  const patch: Parameters<typeof messageEdits.updateMessage>[3] = { last_edit_time: now };
  // Recipients by the mention and alert-word bits the new content gives them.
  const flagGroups = new Map<number, number[]>();

  if (c.content !== undefined) {
    const rendered = await renderMessage(c.content, await renderContextFor(q, realm, user, c.content, level));
    // As Zulip's update_message: the editor must be allowed to mention the groups it names.
    await checkUserGroupMentionAllowed(q, user, rendered.mentionedGroupIds, level);
    const alertWords = await realmAlertWords(q, realm.id);
    // @**topic** (level 224): the topic's participants, the message's sender among them.
    const participants = rendered.topicWildcardMentioned && message.stream_id !== null
      ? (await messages.topicParticipants(q, message.stream_id, message.topic.toLowerCase())).add(message.sender_id) : new Set<number>();
    if (message.stream_id !== null && await catchUpNewlyMentioned(q, realm.id, message.stream_id, new Set(rows.map((r) => r.user_id)),
      [...rendered.mentionedUserIds, ...participants], rendered.wildcardMentioned)) rows = await messageEdits.listRecipientRows(q, message.id);
    rows = rows.map((r) => {
      const flags = recomputeFlags(r.flags, r.user_id, message.sender_id, c.content!, rendered.mentionedUserIds, rendered.wildcardMentioned, participants, alertWords);
      if (flags !== r.flags) flagGroups.set(flags & FLAG_MASK, [...(flagGroups.get(flags & FLAG_MASK) ?? []), r.user_id]);
      return { user_id: r.user_id, flags };
    });
    Object.assign(event, {
      orig_content: message.content, orig_rendered_content: message.rendered_content, content: c.content,
      rendered_content: rendered.html, is_me_message: rendered.isMeMessage,
    });
    // Level 284 dropped the field, an internal detail of the server's, from the event.
    if (level < 284) event.prev_rendered_content_version = 1;
    Object.assign(entry, { prev_content: message.content, prev_rendered_content: message.rendered_content, prev_rendered_content_version: message.rendered_content_version });
    Object.assign(patch, {
      content: c.content, rendered_content: rendered.html, rendered_content_version: 1, is_me_message: rendered.isMeMessage ? 1 : 0,
      has_link: rendered.hasLink ? 1 : 0, has_image: rendered.hasImage ? 1 : 0, has_attachment: rendered.hasAttachment ? 1 : 0,
    });
  }

  const moving = c.topic !== undefined || newStream !== undefined;
  const origTopic = message.topic;
  let losingRows: number[] = [];
  let losingAccess: number[] = [];
  let gaining: number[] = [];
  if (moving) event.propagate_mode = req.propagateMode;
  if (newStream && oldStream) {
    Object.assign(entry, { prev_stream: oldStream.id, stream: newStream.id });
    event.orig_subject = origTopic;
    event.new_stream_id = newStream.id;
    const oldSubs = await subscriberIds(q, oldStream.id);
    const newSubs = new Set(await subscriberIds(q, newStream.id));
    losingRows = oldSubs.filter((id) => !newSubs.has(id));
    // Guests, and everyone when the new stream is private, can no longer reach what moved:
    // for them the messages are deleted.
    const guests = new Set((await users.listByIds(q, losingRows)).filter((u) => u.role === Role.GUEST).map((u) => u.id));
    losingAccess = losingRows.filter((id) => guests.has(id) || newStream.invite_only === 1);
    const oldSet = new Set(oldSubs);
    if (newStream.history_public_to_subscribers !== 1) gaining = [...newSubs].filter((id) => !oldSet.has(id));
  }
  if (c.topic !== undefined) {
    Object.assign(patch, { topic: c.topic, topic_lower: c.topic.toLowerCase() });
    Object.assign(event, { orig_subject: origTopic, subject: c.topic, topic_links: (await topicLinker(q, realm.id))(c.topic) });
    Object.assign(entry, { prev_topic: origTopic, topic: c.topic });
  }
  if (newStream) Object.assign(patch, { stream_id: newStream.id, recipient_id: newStream.recipient_id! });

  // The other messages of the topic get only the topic and stream parts of the entry.
  let others: number[] = [];
  const moveEntry: Record<string, unknown> = { user_id: user.id, timestamp: now };
  if (moving && oldStream && req.propagateMode !== 'change_one') {
    if (c.topic !== undefined) Object.assign(moveEntry, { prev_topic: origTopic, topic: c.topic });
    if (newStream) Object.assign(moveEntry, { prev_stream: oldStream.id, stream: newStream.id });
    others = (await messageEdits.listTopicMessageIds(q, oldStream.id, origTopic, {
      ...(req.propagateMode === 'change_later' ? { afterId: message.id } : {}),
      // Without shared history, only what the mover received is theirs to move.
      ...(oldStream.history_public_to_subscribers !== 1 ? { receivedBy: user.id } : {}),
    })).filter((id) => id !== message.id);
  }
  const changed = [message.id, ...others].sort((a, b) => a - b);
  event.message_ids = changed;
  const gone = new Set(losingRows);
  rows = rows.filter((r) => !gone.has(r.user_id));

  // Everyone with a row hears of the edit; with shared history, so do the stream's other
  // subscribers (they may be looking at it), as in Zulip.
  for (const r of rows) event.flags_by_user[r.user_id] = flagsFromMask(r.flags, level);
  const told = new Set(rows.map((r) => r.user_id));
  if (oldStream && oldStream.history_public_to_subscribers === 1) {
    const deleted = new Set(losingAccess);
    for (const id of await subscriberIds(q, oldStream.id)) if (!deleted.has(id)) told.add(id);
  }
  const muters = moving && oldStream ? await messageEdits.listTopicMuters(q, oldStream.id, origTopic) : [];

  const write = async (tx: Tx) => {
    for (const [bits, ids] of flagGroups) await messageEdits.setFlagBits(tx.db, message.id, ids, FLAG_MASK, bits);
    await messageEdits.updateMessage(tx.db, message.id, JSON.stringify(entry), patch);
    const detached = c.content !== undefined ? await relinkAttachments(tx, user, message.id, message.content, c.content) : [];
    if (oldStream && others.length > 0) {
      const target = newStream ?? oldStream;
      await messageEdits.moveMessages(tx.db, others, { topic: c.topic ?? origTopic, streamId: target.id, recipientId: target.recipient_id! }, now, JSON.stringify(moveEntry));
    }
    if (newStream && oldStream) {
      // Zulip infers that those who gain rows were not mentioned: only `read` applies to them.
      await messageEdits.insertRecipientRows(tx.db, gaining, changed, FLAG_BITS.read);
      await messageEdits.deleteRecipientRows(tx.db, losingRows, changed);
      tx.notify({ type: 'delete_message', message_type: 'stream', message_ids: changed, stream_id: oldStream.id, topic: origTopic }, losingAccess, realm.id);
    }
    tx.notify(event, told, realm.id);
    if (muters.length > 0 && oldStream && (req.propagateMode === 'change_all' || await topicEmptyFor(tx.db, user, oldStream, origTopic))) {
      await moveTopicMuting(tx, muters, oldStream, origTopic, newStream ?? oldStream, c.topic ?? origTopic, new Set(losingAccess));
    }
    return detached;
  };
  if (!moving || !oldStream) return { write };
  const resolveToggled = c.topic !== undefined && !newStream && c.content === undefined
    && c.topic.startsWith(RESOLVED_TOPIC_PREFIX) !== origTopic.startsWith(RESOLVED_TOPIC_PREFIX);
  return {
    write,
    notice: async (after: Q) => ({
      oldStream, newStream, origTopic, newTopic: c.topic ?? origTopic, changedIds: changed,
      movedAll: req.propagateMode === 'change_all' || await topicEmptyFor(after, user, oldStream, origTopic),
      participants: resolveToggled ? await messageEdits.listParticipants(after, changed) : undefined,
      notifyOld: req.notifyOldThread, notifyNew: req.notifyNewThread,
      // Feature level 152: a move within the stream leaves breadcrumbs too.
      topicMoveNotices: level >= 152,
    }),
  };
}

/** Whether the mover can see nothing left in the topic: Zulip's moved_all_visible_messages. */
async function topicEmptyFor(q: Q, user: UserRow, stream: StreamRow, topic: string): Promise<boolean> {
  const left = await messageEdits.listTopicMessageIds(q, stream.id, topic, stream.history_public_to_subscribers !== 1 ? { receivedBy: user.id } : {});
  return left.length === 0;
}

/** PATCH /messages/{id}: checks and plans on reads, writes and tells in one transaction; breadcrumbs follow once it has committed. */
export async function updateMessage(ctx: AppContext, realm: RealmRow, user: UserRow, messageId: number, req: MessageEditRequest): Promise<WireAttachment[]> {
  const q = ctx.store.db;
  const level = ctx.config.featureLevel;
  const plan = await planUpdate(q, realm, user, await checkUpdate(q, realm, user, messageId, req, level), req, level);
  const detached = await transact(ctx, plan.write);
  if (plan.notice) await sendMoveNotices(ctx, realm, user, await plan.notice(q));
  return detached;
}
