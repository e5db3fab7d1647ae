import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { MessageRow, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { messageEdits } from '../store/repos/message-edits.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { users } from '../store/repos/users.js';
import { accessMessage } from '../access/message.js';
import { accessStreamById, canSeeStream, streamPostPolicyError } from '../access/stream.js';
import { hasPolicyPermission, Policy } from '../access/realm-policy.js';
import { badRequest, invalidStreamId } from '../errors.js';
import { realmSettings } from '../lib/realm-settings.js';
import { FLAG_BITS, flagsFromMask } from '../lib/message-flags.js';
import { Role, isModeratorOrAbove } from '../lib/roles.js';
import { nowSeconds } from '../lib/time.js';
import { renderMarkdown } from '../markdown/index.js';
import { renderContextFor } from '../reads/render-context.js';
import { realmAlertWords } from '../reads/alert-words.js';
import { matchesAlertWord } from './alert-words.js';
import { checkContent, checkTopicCharacters, truncateTopic } from './message-send.js';
import { moveTopicMuting } from './topic-muting-move.js';
import { RESOLVED_TOPIC_PREFIX, sendMoveNotices, type MoveNotice } from './message-move-notices.js';
import type { UpdateMessageEvent } from '../events/types.js';

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
// Zulip's Realm.DEFAULT_COMMUNITY_TOPIC_EDITING_LIMIT_SECONDS: members' topic edits (3 days).
const TOPIC_EDIT_LIMIT_SECONDS = 259_200;

const noPermission = () => badRequest("You don't have permission to edit this message");

/** Zulip's check_stream_topic for an edit: a topic may not be emptied. */
function checkEditTopic(raw: string): string {
  const topic = raw.trim();
  if (topic === '') throw badRequest("Topic can't be empty!");
  checkTopicCharacters(topic);
  return topic;
}

/** Zulip's can_edit_topic_of_any_message. */
function canEditTopics(user: UserRow, realm: RealmRow): boolean {
  if (realmSettings(realm.settings).edit_topic_policy === Policy.EVERYONE) return true;
  return hasPolicyPermission(user, realm, 'edit_topic_policy');
}

interface Checked {
  message: MessageRow;
  content?: string;
  topic?: string;
  oldStream?: StreamRow;
  newStream?: StreamRow;
}

/** Zulip's check_update_message, in its order, so that the first problem is the one reported. */
async function checkUpdate(tx: Tx, realm: RealmRow, user: UserRow, messageId: number, req: MessageEditRequest): Promise<Checked> {
  const { message } = await accessMessage(tx.db, user, messageId);
  const settings = realmSettings(realm.settings);
  if (req.content !== undefined && !settings.allow_message_editing) throw badRequest('Your organization has turned off message editing');
  let topic = req.topic === undefined ? undefined : req.topic.trim();
  if (topic === message.topic) topic = undefined;
  let streamId = req.streamId;
  if (streamId !== undefined && streamId === message.stream_id) streamId = undefined;

  if (topic === undefined && req.content === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (message.stream_id === null) {
    if (streamId !== undefined) throw badRequest('Private messages cannot be moved to streams.');
    if (topic !== undefined) throw badRequest('Private messages cannot have topics.');
  }
  if (req.propagateMode !== 'change_one' && topic === undefined && streamId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  if (topic !== undefined) checkEditTopic(topic);
  if (streamId !== undefined && req.content !== undefined) throw badRequest('Cannot change message content while changing stream');

  if (req.content !== undefined && message.sender_id !== user.id) throw noPermission();
  const noTopic = message.topic === '(no topic)';
  // Anyone may tend "(no topic)" messages.
  if (topic !== undefined && !noTopic && !canEditTopics(user, realm)) throw noPermission();
  const age = nowSeconds() - message.date_sent;
  const contentLimit = settings.message_content_edit_limit_seconds;
  if (req.content !== undefined && contentLimit !== null && contentLimit > 0 && age > contentLimit + EDIT_LIMIT_BUFFER) {
    throw badRequest('The time limit for editing this message has passed');
  }
  if (topic !== undefined && !isModeratorOrAbove(user.role) && !noTopic && age > TOPIC_EDIT_LIMIT_SECONDS + EDIT_LIMIT_BUFFER) {
    throw badRequest("The time limit for editing this message's topic has passed");
  }

  const out: Checked = { message };
  if (req.content !== undefined) out.content = checkContent(req.content.replace(/\s+$/u, '') === '' ? '(deleted)' : req.content);
  if (topic !== undefined) out.topic = truncateTopic(topic);
  if (message.stream_id !== null) out.oldStream = await streams.findById(tx.db, message.stream_id);
  if (streamId !== undefined) {
    if (!hasPolicyPermission(user, realm, 'move_messages_between_streams_policy')) throw badRequest("You don't have permission to move this message");
    const oldSub = out.oldStream ? await subscriptions.findActive(tx.db, user.id, out.oldStream.id) : undefined;
    if (!out.oldStream || !canSeeStream(user, out.oldStream, oldSub)) {
      throw badRequest("You don't have permission to move this message due to missing access to its stream");
    }
    const { stream } = await accessStreamById(tx.db, user, streamId);
    if (stream.deactivated === 1) throw invalidStreamId();
    const policy = streamPostPolicyError(user, stream, realm);
    if (policy) throw badRequest(policy);
    out.newStream = stream;
  }
  return out;
}

/** The flags an edit's new rendering gives each recipient (Zulip's update_user_message_flags). */
function recomputeFlags(flags: number, userId: number, senderId: number, content: string, mentioned: ReadonlySet<number>,
  wildcard: boolean, alertWords: ReadonlyMap<number, string[]>): number {
  const toggled = (f: number, on: boolean, bit: number) => (on ? f | bit : f & ~bit);
  let f = toggled(flags, mentioned.has(userId), FLAG_BITS.mentioned);
  f = toggled(f, wildcard, FLAG_BITS.wildcard_mentioned);
  return toggled(f, userId !== senderId && matchesAlertWord(content, alertWords.get(userId)), FLAG_BITS.has_alert_word);
}

async function doUpdate(tx: Tx, realm: RealmRow, user: UserRow, c: Checked, req: MessageEditRequest): Promise<MoveNotice | undefined> {
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
  let rows = await messageEdits.listRecipientRows(tx.db, message.id);
  const patch: Parameters<typeof messageEdits.updateMessage>[2] = { last_edit_time: now, edit_history: '' };

  if (c.content !== undefined) {
    const rendered = renderMarkdown(c.content, await renderContextFor(tx.db, realm, user, c.content));
    const alertWords = await realmAlertWords(tx.db, realm.id);
    // One UPDATE per distinct new flags value, not one per recipient.
    const byFlags = new Map<number, number[]>();
    rows = rows.map((r) => {
      const flags = recomputeFlags(r.flags, r.user_id, message.sender_id, c.content!, rendered.mentionedUserIds, rendered.wildcardMentioned, alertWords);
      if (flags !== r.flags) byFlags.set(flags, [...(byFlags.get(flags) ?? []), r.user_id]);
      return { user_id: r.user_id, flags };
    });
    for (const [flags, ids] of byFlags) await messageEdits.setFlags(tx.db, message.id, ids, flags);
    Object.assign(event, {
      orig_content: message.content, orig_rendered_content: message.rendered_content, content: c.content,
      rendered_content: rendered.html, prev_rendered_content_version: 1, is_me_message: rendered.isMeMessage,
    });
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
    const oldSubs = await subscriptions.listSubscriberIds(tx.db, oldStream.id);
    const newSubs = new Set(await subscriptions.listSubscriberIds(tx.db, newStream.id));
    losingRows = oldSubs.filter((id) => !newSubs.has(id));
    // Guests, and everyone when the new stream is private, can no longer reach what moved:
    // for them the messages are deleted.
    const guests = new Set((await users.listByIds(tx.db, losingRows)).filter((u) => u.role === Role.GUEST).map((u) => u.id));
    losingAccess = losingRows.filter((id) => guests.has(id) || newStream.invite_only === 1);
    const oldSet = new Set(oldSubs);
    if (newStream.history_public_to_subscribers !== 1) gaining = [...newSubs].filter((id) => !oldSet.has(id));
  }
  if (c.topic !== undefined) {
    Object.assign(patch, { topic: c.topic, topic_lower: c.topic.toLowerCase() });
    Object.assign(event, { orig_subject: origTopic, subject: c.topic, topic_links: [] });
    Object.assign(entry, { prev_topic: origTopic, topic: c.topic });
  }
  if (newStream) Object.assign(patch, { stream_id: newStream.id, recipient_id: newStream.recipient_id! });
  const history = message.edit_history ? (JSON.parse(message.edit_history) as unknown[]) : [];
  patch.edit_history = JSON.stringify([entry, ...history]);
  await messageEdits.updateMessage(tx.db, message.id, patch);

  const changed = [message.id];
  if (moving && oldStream && req.propagateMode !== 'change_one') {
    // The other messages get only the topic and stream parts of the entry.
    const moveEntry: Record<string, unknown> = { user_id: user.id, timestamp: now };
    if (c.topic !== undefined) Object.assign(moveEntry, { prev_topic: origTopic, topic: c.topic });
    if (newStream) Object.assign(moveEntry, { prev_stream: oldStream.id, stream: newStream.id });
    const others = (await messageEdits.listTopicMessageIds(tx.db, oldStream.id, origTopic, {
      ...(req.propagateMode === 'change_later' ? { afterId: message.id } : {}),
      // Without shared history, only what the mover received is theirs to move.
      ...(oldStream.history_public_to_subscribers !== 1 ? { receivedBy: user.id } : {}),
    })).filter((id) => id !== message.id);
    const target = newStream ?? oldStream;
    await messageEdits.moveMessages(tx.db, others, { topic: c.topic ?? origTopic, streamId: target.id, recipientId: target.recipient_id! }, now, JSON.stringify(moveEntry));
    changed.push(...others);
  }
  changed.sort((a, b) => a - b);
  event.message_ids = changed;

  if (newStream && oldStream) {
    // Zulip infers those who gain rows were not mentioned: only `read` applies to them.
    await messageEdits.insertRecipientRows(tx.db, gaining, changed, FLAG_BITS.read);
    await messageEdits.deleteRecipientRows(tx.db, losingRows, changed);
    const gone = new Set(losingRows);
    rows = rows.filter((r) => !gone.has(r.user_id));
    tx.notify({ type: 'delete_message', message_type: 'stream', message_ids: changed, stream_id: oldStream.id, topic: origTopic }, losingAccess, realm.id);
  }

  // Everyone with a row hears of the edit; with shared history, so do the stream's other
  // subscribers (they may be looking at it), as in Zulip.
  for (const r of rows) event.flags_by_user[r.user_id] = flagsFromMask(r.flags);
  const told = new Set(rows.map((r) => r.user_id));
  if (oldStream && oldStream.history_public_to_subscribers === 1) {
    const deleted = new Set(losingAccess);
    for (const id of await subscriptions.listSubscriberIds(tx.db, oldStream.id)) if (!deleted.has(id)) told.add(id);
  }
  tx.notify(event, told, realm.id);

  if (!moving || !oldStream) return undefined;
  const remaining = await messageEdits.listTopicMessageIds(tx.db, oldStream.id, origTopic,
    oldStream.history_public_to_subscribers !== 1 ? { receivedBy: user.id } : {});
  const movedAll = req.propagateMode === 'change_all' || remaining.length === 0;
  if (movedAll) await moveTopicMuting(tx, oldStream, origTopic, newStream ?? oldStream, c.topic ?? origTopic, new Set(losingAccess));
  const resolveToggled = c.topic !== undefined && !newStream && c.content === undefined
    && c.topic.startsWith(RESOLVED_TOPIC_PREFIX) !== origTopic.startsWith(RESOLVED_TOPIC_PREFIX);
  return {
    oldStream, newStream, origTopic, newTopic: c.topic ?? origTopic, changedIds: changed, movedAll,
    participants: resolveToggled ? await messageEdits.listParticipants(tx.db, changed) : undefined,
    notifyOld: req.notifyOldThread, notifyNew: req.notifyNewThread,
  };
}

/** PATCH /messages/{id}: checks, changes and tells in one transaction; breadcrumbs follow once it has committed. */
export async function updateMessage(ctx: AppContext, realm: RealmRow, user: UserRow, messageId: number, req: MessageEditRequest): Promise<void> {
  const notice = await transact(ctx, async (tx) => doUpdate(tx, realm, user, await checkUpdate(tx, realm, user, messageId, req), req));
  if (notice) await sendMoveNotices(ctx, realm, user, notice);
}
