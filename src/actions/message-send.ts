import type { AppContext } from '../context.js';
import { AUTO_FOLLOW_LEVEL, doAutoFollowAfterSend } from './auto-follow.js';
import { transact } from './transaction.js';
import { claimAttachments } from './attachment-claims.js';
import { storeMessage } from '../store/group-commit.js';
import type { Q, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import {
  badRequest, streamDoesNotExist, streamIdDoesNotExist, streamWildcardMentionNotAllowed, topicWildcardMentionNotAllowed,
  wildcardMentionNotAllowed,
} from '../errors.js';
import { messages } from '../store/repos/messages.js';

/** Level 229: wildcard mentions refused with their own codes (and topic wildcards governed by the policy). */
const WILDCARD_ERRORS_LEVEL = 229;
import { wildcardMentionAllowed } from '../access/realm-policy.js';
import { checkCanSendDirectMessage } from '../access/direct-message.js';
import { checkUserGroupMentionAllowed } from '../access/group-setting.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { users } from '../store/repos/users.js';
import { canSeeStream, sendPermissionError } from '../access/stream.js';
import { maySendViaContentGroups } from '../access/channel-access.js';
import { realmSettings } from '../lib/realm-settings.js';
import { FLAG_BITS, flagsFromMask } from '../lib/message-flags.js';
import { isHumanClient } from '../lib/client-name.js';
import { nowSeconds } from '../lib/time.js';
import { renderMessage } from '../markdown/bounded.js';
import { renderContextFor } from '../reads/render-context.js';
import { topicLinker } from '../reads/linkifiers.js';
import { presentMessage, pmUser, type RecipientInfo } from '../presenters/message.js';
import { matchesAlertWord } from './alert-words.js';
import { activeSubscription, streamByName, streamInRealm, subscriberIds } from '../reads/streams.js';
import { realmAlertWords } from '../reads/alert-words.js';
import { realmMuters } from '../reads/muted-users.js';
import { realmIdleRecipients } from '../reads/idle-users.js';
import { streamAudienceIds } from '../reads/stream-audience.js';
import { publish } from '../events/publish.js';
import { recipients as recipientRows } from '../store/repos/recipients.js';
import { huddles } from '../store/repos/huddles.js';
import { RecipientType } from '../lib/recipient-type.js';
import { MAX_TOPIC_LENGTH } from '../lib/limits.js';
import { truncateContent } from '../lib/message-content.js';
import { serviceBotCalls } from '../outgoing-webhooks/triggers.js';
import { isPossibleId } from '../lib/ids.js';
import { EMPTY_TOPIC_LEVEL, NO_TOPIC, generalChatToEmpty } from '../lib/empty-topic.js';

/** Zulip's normalisation: trailing whitespace and leading blank lines go; too long is cut with a marker. */
export function checkContent(raw: string): string {
  const body = raw.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (body === '') throw badRequest('Message must not be empty');
  if (body.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  return truncateContent(body);
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cs}\p{Cn}]/u;

/** Zulip's check_string_is_printable: no control, surrogate or unassigned characters. */
export function checkTopicCharacters(topic: string): void {
  const bad = NOT_PRINTABLE.exec(topic);
  if (bad) throw badRequest(`Invalid character in topic, at position ${[...topic.slice(0, bad.index)].length + 1}!`);
}

/** Zulip's truncate_topic: past the limit, cut with an ellipsis. */
export function truncateTopic(topic: string): string {
  const chars = [...topic];
  return chars.length > MAX_TOPIC_LENGTH ? `${chars.slice(0, MAX_TOPIC_LENGTH - 3).join('')}...` : topic;
}

/**
 * A stream message's topic as sent or scheduled. Below level 334 an empty topic is stored as
 * "(no topic)"; from 334 "" is a topic of its own, which "general chat" (its display name)
 * also names. ("(no topic)" means "" from 370 only where the POST /messages and scheduled-message
 * handlers map it, sentNoTopicToEmpty: not for integrations.) Topics required, neither "" nor
 * "(no topic)" may be sent (Zulip 10's check_message).
 */
export function checkTopic(raw: string | undefined, realm: RealmRow, level: number): string {
  if (raw === undefined) throw badRequest('Missing topic');
  let topic = raw.trim();
  checkTopicCharacters(topic);
  const mandatory = realmSettings(realm.settings).mandatory_topics;
  if (level >= EMPTY_TOPIC_LEVEL) {
    topic = generalChatToEmpty(topic, level);
    if (mandatory && (topic === '' || topic === NO_TOPIC)) throw badRequest('Topics are required in this organization');
  } else if (topic === '') {
    if (mandatory) throw badRequest('Topics are required in this organization');
    topic = NO_TOPIC;
  }
  return truncateTopic(topic);
}

export type Addressee =
  | { kind: 'stream'; name?: string; id?: number }
  | { kind: 'private'; emails?: string[]; ids?: number[] };

export interface SendInput {
  to: Addressee;
  topic?: string | undefined;
  content: string;
  client: string;
  queueId?: string | undefined;
  localId?: string | undefined;
  /**
   * Written by the server itself (a system bot's breadcrumb or announcement): as Zulip's
   * internal_send_*, the sender's access to the stream and its posting policy are not asked.
   */
  internal?: boolean;
  /** The sender's copy already read (feature level 236); undefined: Zulip's default_read_by_sender, by client. */
  readBySender?: boolean | undefined;
  /** Recipients outside this set get the message already read (Zulip's limit_unread_user_ids). */
  unreadOnlyFor?: ReadonlySet<number>;
  /** The scheduled message this send delivers, with its delivery's lease: stored only while that still holds (store/message-batch.ts). */
  scheduled?: [number, number];
}

export async function streamForSend(q: Q, sender: UserRow, realm: RealmRow, to: { name?: string; id?: number }, featureLevel = 0): Promise<StreamRow> {
  const stream = to.id !== undefined ? await streamInRealm(q, realm.id, to.id) : await streamByName(q, realm.id, to.name ?? '');
  const sub = stream ? await activeSubscription(q, sender.id, stream.id) : undefined;
  // As Zulip: a bot may also send wherever its owner is subscribed, and under its owner's
  // standing with respect to stream_post_policy.
  const activeOwner = async () => {
    const owner = sender.is_bot === 1 && sender.bot_owner_id !== null ? await users.findInRealm(q, realm.id, sender.bot_owner_id) : undefined;
    return owner?.is_active === 1 ? owner : undefined;
  };
  const ownerSubscribed = async (s: StreamRow) => {
    if (s.deactivated === 1) return false;
    const owner = await activeOwner();
    return !!owner && !!(await subscriptions.findActive(q, owner.id, s.id));
  };
  // A private stream the sender may not see is answered exactly like a missing one.
  if (!stream || (!canSeeStream(sender, stream, sub ?? null) && !(await ownerSubscribed(stream))
    && !(await maySendViaContentGroups(q, sender, stream, featureLevel)))) {
    if (to.id !== undefined) {
      throw streamIdDoesNotExist(to.id);
    }
    throw streamDoesNotExist(to.name ?? '');
  }
  const policy = await sendPermissionError(q, sender, stream, realm, featureLevel);
  if (policy) {
    const owner = await activeOwner();
    if (!owner || await sendPermissionError(q, owner, stream, realm, featureLevel) !== null) throw badRequest(policy);
  }
  return stream;
}

async function internalTarget(q: Q, realm: RealmRow, to: { name?: string; id?: number }): Promise<StreamRow> {
  const stream = to.id !== undefined ? await streamInRealm(q, realm.id, to.id) : await streamByName(q, realm.id, to.name ?? '');
  if (!stream || stream.deactivated === 1) throw to.id !== undefined ? streamIdDoesNotExist(to.id) : streamDoesNotExist(to.name ?? '');
  return stream;
}

export async function privateRecipients(q: Q, sender: UserRow, to: { emails?: string[]; ids?: number[] }): Promise<UserRow[]> {
  const found: UserRow[] = [];
  for (const email of to.emails ?? []) {
    const u = await users.findByEmail(q, sender.realm_id, email.trim());
    if (!u) throw badRequest(`Invalid email '${email.trim()}'`);
    found.push(u);
  }
  for (const id of to.ids ?? []) {
    const u = isPossibleId(id) ? await users.findInRealm(q, sender.realm_id, id) : undefined;
    if (!u) throw badRequest(`Invalid user ID ${id}`);
    found.push(u);
  }
  if (found.length === 0) throw badRequest('Message must have recipients');
  for (const u of found) if (u.is_active !== 1) throw badRequest(`'${u.email}' is no longer using Zulip.`);
  const unique = new Map(found.map((u) => [u.id, u]));
  return [...unique.values()];
}

/** The recipient row of a private conversation: the other person, or a huddle of three or more. */
async function privateRecipientId(ctx: AppContext, sender: UserRow, others: UserRow[]): Promise<{ recipientId: number; memberIds: number[] }> {
  const q = ctx.store.db;
  const memberIds = [...new Set([sender.id, ...others.map((u) => u.id)])].sort((a, b) => a - b);
  if (memberIds.length <= 2) {
    const target = memberIds.find((id) => id !== sender.id) ?? sender.id;
    return { recipientId: await recipientRows.personalOf(q, target), memberIds };
  }
  const hash = memberIds.join(',');
  const known = await huddles.findByHash(q, hash);
  if (known?.recipient_id) return { recipientId: known.recipient_id, memberIds };
  // A group's first message: its huddle and recipient rows, looked up again inside the
  // transaction in case another first message got there meanwhile.
  const recipientId = await transact(ctx, async (tx) => {
    const existing = await huddles.findByHash(tx.db, hash);
    if (existing?.recipient_id) return existing.recipient_id;
    const huddleId = existing?.id ?? await huddles.insert(tx.db, hash);
    const recipientId = await recipientRows.insert(tx.db, RecipientType.HUDDLE, huddleId);
    await huddles.setRecipient(tx.db, huddleId, recipientId);
    return recipientId;
  });
  return { recipientId, memberIds };
}

/**
 * Sends one message. Everything is read, checked and rendered first; then the message
 * row and one user_message row per recipient are stored in the next group commit (see
 * store/group-commit.ts), and the events go out once that has committed. Returns the new id.
 */
export async function sendMessage(ctx: AppContext, realm: RealmRow, sender: UserRow, input: SendInput): Promise<number> {
  return (await sendMessageResult(ctx, realm, sender, input)).id;
}

/** What POST /messages answers: the new id, and the sender's topic policy if sending changed it (level 218). */
export interface SendResult { id: number; automaticNewVisibilityPolicy?: number }

/** sendMessage, answering also what the automatic follow/unmute settings did. */
export async function sendMessageResult(ctx: AppContext, realm: RealmRow, sender: UserRow, input: SendInput): Promise<SendResult> {
  const content = checkContent(input.content);
  const q = ctx.store.db;
  let stream: StreamRow | undefined;
  let recipientId: number;
  let userIds: readonly number[];
  let recipientInfo: RecipientInfo;
  let topic = '';
  let pmOthers: UserRow[] = [];
  if (input.to.kind === 'stream') {
    stream = input.internal ? await internalTarget(q, realm, input.to) : await streamForSend(q, sender, realm, input.to, ctx.config.featureLevel);
    topic = checkTopic(input.topic, realm, ctx.config.featureLevel);
    recipientId = stream.recipient_id!;
    userIds = await subscriberIds(q, stream.id);
    recipientInfo = { type: RecipientType.STREAM, streamId: stream.id, streamName: stream.name };
  } else {
    const others = await privateRecipients(q, sender, input.to);
    pmOthers = others;
    await checkCanSendDirectMessage(q, ctx.config.featureLevel, realm, sender, others);
    const r = await privateRecipientId(ctx, sender, others);
    recipientId = r.recipientId;
    userIds = r.memberIds;
    // A note to self names its one member once, as GET /messages does.
    recipientInfo = { type: r.memberIds.length > 2 ? RecipientType.HUDDLE : RecipientType.PERSONAL, members: [...new Map([sender, ...others].map((u) => [u.id, pmUser(u)])).values()] };
  }
  // The sender always keeps a copy of what they sent.
  const recipients = [...new Set([...userIds, sender.id])];

  const level = ctx.config.featureLevel;
  const rendered = await renderMessage(content, await renderContextFor(q, realm, sender, content, level));
  if (stream && rendered.wildcardMentioned && !input.internal && !await wildcardMentionAllowed(q, sender, realm, userIds.length)) {
    throw level >= WILDCARD_ERRORS_LEVEL ? streamWildcardMentionNotAllowed() : wildcardMentionNotAllowed();
  }
  await checkUserGroupMentionAllowed(q, sender, rendered.mentionedGroupIds, level);
  // @**topic** (level 224) flags the topic's participants, the sender included (Zulip's
  // get_recipient_info); from 229 the organization's wildcard_mention_policy governs it too.
  let topicParticipants: ReadonlySet<number> = new Set();
  if (stream && rendered.topicWildcardMentioned) {
    const found = await messages.topicParticipants(q, stream.id, topic.toLowerCase());
    found.add(sender.id);
    topicParticipants = found;
    if (!input.internal && level >= WILDCARD_ERRORS_LEVEL && !await wildcardMentionAllowed(q, sender, realm, found.size)) throw topicWildcardMentionNotAllowed();
  }
  const values = {
    realm_id: realm.id, sender_id: sender.id, recipient_id: recipientId, stream_id: stream?.id ?? null,
    topic, topic_lower: topic.toLowerCase(), content, rendered_content: rendered.html, rendered_content_version: 1,
    date_sent: nowSeconds(), client: input.client, last_edit_time: null, edit_history: null,
    is_me_message: rendered.isMeMessage ? 1 : 0, has_link: rendered.hasLink ? 1 : 0,
    has_image: rendered.hasImage ? 1 : 0, has_attachment: rendered.hasAttachment ? 1 : 0,
  };

  const alertWords = await realmAlertWords(q, realm.id);
  // Who muted the sender gets the message already read (Zulip's get_muting_users).
  const mutedBy = (await realmMuters(q, realm.id)).get(sender.id);
  const senderRead = input.readBySender ?? isHumanClient(input.client);
  const rows = recipients.map((userId) => {
    let flags = 0;
    if (userId === sender.id && senderRead) flags |= FLAG_BITS.read;
    if (input.unreadOnlyFor && !input.unreadOnlyFor.has(userId)) flags |= FLAG_BITS.read;
    if (mutedBy?.has(userId)) flags |= FLAG_BITS.read;
    if (rendered.mentionedUserIds.has(userId)) flags |= FLAG_BITS.mentioned;
    if (rendered.wildcardMentioned) flags |= FLAG_BITS.wildcard_mentioned;
    if (topicParticipants.has(userId)) flags |= FLAG_BITS.topic_wildcard_mentioned;
    if (userId !== sender.id && matchesAlertWord(content, alertWords.get(userId))) flags |= FLAG_BITS.has_alert_word;
    if (!stream) flags |= FLAG_BITS.is_private;
    return { user_id: userId, flags };
  });
  // Soft-deactivated people get no row for a stream message that neither flags nor notifies
  // them (Zulip's soft deactivation): they are caught up in bulk later, or when they return.
  const idle = stream ? await realmIdleRecipients(q, realm.id) : undefined;
  const storedRows = idle && idle.size > 0 && stream
    ? rows.filter((r) => r.flags !== 0 || r.user_id === sender.id || !idle.skips(r.user_id, stream!.id, values.topic_lower)) : rows;
  // Clients keep first_message_id in their stream lists; Zulip tells them when it is set.
  const firstOf = stream && stream.first_message_id === null ? stream : undefined;
  const firstAudience = firstOf ? await streamAudienceIds(q, firstOf, ctx.config.featureLevel) : [];

  const { id, first } = await storeMessage(ctx.store, { message: values, firstOf: firstOf?.id ?? null, recipients: storedRows, scheduled: input.scheduled ?? null });
  // Links to uploads are recorded before anyone hears of the message, so that a recipient
  // who follows one at once may fetch the file. Only messages that name an upload pay for it.
  if (content.includes('/user_uploads/')) await claimAttachments(ctx, sender, id, content);

  // The automatic follow and unmute settings (level 214, 235), told before the message itself as Zulip does.
  let automaticNewVisibilityPolicy: number | undefined;
  if (stream && ctx.config.featureLevel >= AUTO_FOLLOW_LEVEL) {
    const s = stream;
    automaticNewVisibilityPolicy = await transact(ctx, (tx) =>
      doAutoFollowAfterSend(tx, sender, s, topic, id, rendered.mentionedUserIds, recipients, ctx.config.featureLevel));
  }

  if (first && firstOf) {
    publish(ctx.bus, realm.id, { type: 'stream', op: 'update', property: 'first_message_id', value: id, stream_id: firstOf.id, name: firstOf.name }, firstAudience);
  }
  const topicLinks = stream ? (await topicLinker(q, realm.id))(topic) : [];
  const wire = presentMessage({ id, ...values }, sender, recipientInfo, { applyMarkdown: true, clientGravatar: false, realm }, { reactions: [], topicLinks });
  const flagsByUser: Record<number, string[]> = {};
  for (const r of rows) flagsByUser[r.user_id] = flagsFromMask(r.flags, level);
  // Published once the group commit that stored it has committed (storeMessage resolves then).
  publish(ctx.bus, realm.id, {
    type: 'message', message: wire, raw_content: content, sender_avatar_source: sender.avatar_source,
    flags_by_user: flagsByUser, public_stream: stream !== undefined && stream.invite_only === 0,
    // Level 327: the receiver of a 1:1 message sees the conversation's recipient id their own replies carry.
    ...(level >= 327 && recipientInfo.type === RecipientType.PERSONAL && pmOthers.some((u) => u.id !== sender.id)
      ? { receiver_recipient_id: await recipientRows.personalOf(q, sender.id) } : {}),
    ...(input.queueId !== undefined ? { sender_queue_id: input.queueId, local_id: input.localId } : {}),
  }, recipients);

  // Outgoing-webhook bots this message calls are handed to the delivery queue now that it
  // has committed; the sender waits for none of their calls.
  if (ctx.outgoingWebhooks) {
    const calls = await serviceBotCalls(q, realm.id, sender, { isStream: stream !== undefined, mentionedUserIds: rendered.mentionedUserIds, privateRecipients: pmOthers }, ctx.config.featureLevel);
    if (calls.botIds.length > 0) {
      // Zulip sends services the raw markdown, with the rendered HTML beside it.
      const message = {
        ...presentMessage({ id, ...values }, sender, recipientInfo, { applyMarkdown: false, clientGravatar: false, realm }, { reactions: [], topicLinks }),
        rendered_content: values.rendered_content,
      };
      for (const botId of calls.botIds) ctx.outgoingWebhooks.enqueue({ realm, botId, trigger: calls.trigger, message, failedTries: 0 });
    }
  }
  // In a cluster, as after a transaction (actions/transaction.ts): its event is on the bus and heard here.
  if (ctx.bus.unsettled) await ctx.bus.settled();
  return automaticNewVisibilityPolicy !== undefined ? { id, automaticNewVisibilityPolicy } : { id };
}
