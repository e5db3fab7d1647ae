/**
 * The missed-message email: Zulip's handle_missedmessage_emails and
 * do_send_missedmessage_events_reply_in_zulip (zerver/lib/email_notifications.py). When a
 * user's batch is due, the notification worker (worker.ts) calls sendMissedMessageEmails;
 * it throws when the mail could not be handed to the mailer, and the worker retries.
 */
import type { AppContext } from '../context.js';
import { noreplyAddress } from '../mail/mailer.js';
import type { MessageRow, StreamRow, UserRow } from '../rows.js';
import type { MissedMessage, NotificationTrigger } from './triggers.js';
import { messages } from '../store/repos/messages.js';
import { userMessages } from '../store/repos/user-messages.js';
import { users } from '../store/repos/users.js';
import { realms } from '../store/repos/realms.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { userGroups } from '../store/repos/user-groups.js';
import { notificationEmail } from '../store/repos/notification-email.js';
import { contentGroupsFor, hasContentAccessViaGroups } from '../access/channel-access.js';
import { userSettings } from '../lib/user-settings.js';
import { realmSettings } from '../lib/realm-settings.js';
import { realmUri } from '../lib/realm-host.js';
import { Role } from '../lib/roles.js';
import { mailPlainText, mailSafeHtml, prependSender } from './email-content.js';
import { groupNarrowUrl, personalNarrowUrl, streamNarrowUrl, topicNarrowUrl } from './email-urls.js';
import { renderHtml, renderSubject, renderText, type ConversationHeader, type MissedMessageEmail, type SenderBlock } from './email-template.js';

const RESOLVED_TOPIC_PREFIX = '\u2714 ';

const MENTION_TRIGGERS: ReadonlySet<NotificationTrigger> = new Set([
  'mentioned', 'topic_wildcard_mentioned', 'stream_wildcard_mentioned',
  'topic_wildcard_mentioned_in_followed_topic', 'stream_wildcard_mentioned_in_followed_topic',
]);

interface Missed { message: MessageRow; trigger: NotificationTrigger; groupId: number | null }

/** Everything one user's emails share, loaded once per batch. */
interface Setting {
  ctx: AppContext;
  user: UserRow;
  realmName: string;
  realmUrl: string;
  level: number;
  senders: Map<number, UserRow>;
  streams: Map<number, StreamRow>;
  huddles: Map<number, number[]>;
}

export async function sendMissedMessageEmails(ctx: AppContext, user: UserRow, items: MissedMessage[]): Promise<void> {
  if (items.length === 0) return;
  const db = ctx.store.db;
  // The row the worker holds may be older than a settings change made while the batch waited.
  const fresh = await users.findById(db, user.id);
  if (!fresh || fresh.is_active !== 1 || fresh.is_bot === 1) return;
  const settings = userSettings(fresh.settings);
  if (!settings.enable_offline_email_notifications) return;

  const wanted = new Map(items.map((i) => [i.messageId, i]));
  // Read since (or deleted: a deleted message has no user_message row left) drops out here.
  const unread = await userMessages.listUnreadByIds(db, fresh.id, [...wanted.keys()]);
  const rows = (await messages.listByIds(db, unread.map((u) => u.id))).filter((m) => m.realm_id === fresh.realm_id);
  const streamRows = await streams.listByIds(db, [...new Set(rows.flatMap((m) => (m.stream_id === null ? [] : [m.stream_id])))]);
  const accessible = await accessibleMessages(ctx, fresh, rows, new Map(streamRows.map((s) => [s.id, s])));
  if (accessible.length === 0) return;

  const realm = await realms.findById(db, fresh.realm_id);
  if (!realm || realm.deactivated === 1) return;
  const huddles = await messages.huddleMembers(db, [...new Set(accessible.filter((m) => m.stream_id === null).map((m) => m.recipient_id))]);
  const people = await users.listByIds(db, [...new Set([...accessible.map((m) => m.sender_id), ...[...huddles.values()].flat()])]);
  const setting: Setting = {
    ctx, user: fresh, realmName: realm.name, realmUrl: realmUri(ctx.config, realm), level: ctx.config.featureLevel,
    senders: new Map(people.map((p) => [p.id, p])), streams: new Map(streamRows.map((s) => [s.id, s])), huddles,
  };
  const showContent = realmSettings(realm.settings).message_content_allowed_in_email_notifications && settings.message_content_in_email_notifications;
  const contentHiddenBy = showContent ? null : !realmSettings(realm.settings).message_content_allowed_in_email_notifications ? 'realm' : 'user';
  const includeRealmName = settings.realm_name_in_email_notifications_policy === 2
    || (settings.realm_name_in_email_notifications_policy === 1 && await notificationEmail.countAccountsOfAddress(db, fresh.delivery_email) > 1);

  // Zulip's buckets: a one-to-one conversation by its sender, anything else by recipient and topic.
  const buckets = new Map<string, Missed[]>();
  for (const message of accessible) {
    const key = message.stream_id === null && !huddles.has(message.recipient_id)
      ? `p:${message.recipient_id}:${message.sender_id}` : `r:${message.recipient_id}:${message.topic_lower}`;
    const item = wanted.get(message.id)!;
    const list = buckets.get(key) ?? [];
    list.push({ message, trigger: item.trigger, groupId: item.mentionedUserGroupId });
    buckets.set(key, list);
  }
  // The least recently active conversation first, as Zulip sends them.
  const ordered = [...buckets.values()].map((list) => list.sort((a, b) => a.message.id - b.message.id))
    .sort((a, b) => a[a.length - 1]!.message.id - b[b.length - 1]!.message.id);
  for (const list of ordered) {
    const email = await buildEmail(setting, list, showContent, contentHiddenBy, includeRealmName);
    await ctx.mail.send({
      to: fresh.delivery_email,
      subject: renderSubject(email),
      text: renderText(email),
      html: renderHtml(email),
      from: `Parley notifications <${noreplyAddress(ctx.config.mailFrom)}>`,
      replyTo: noreplyAddress(ctx.config.mailFrom),
    });
  }
}

/**
 * Zulip's has_message_access for a message the user holds: a stream message stays readable
 * while the stream is, and a private stream (or any stream, for a guest) only to a
 * subscriber or a member of its content-granting groups.
 */
async function accessibleMessages(ctx: AppContext, user: UserRow, rows: MessageRow[], byId: Map<number, StreamRow>): Promise<MessageRow[]> {
  const open = new Map<number, boolean>();
  let groups: Awaited<ReturnType<typeof contentGroupsFor>> | null = null;
  const out: MessageRow[] = [];
  for (const m of rows) {
    if (m.stream_id === null) {
      out.push(m);
      continue;
    }
    let ok = open.get(m.stream_id);
    if (ok === undefined) {
      const stream = byId.get(m.stream_id);
      if (!stream || stream.deactivated === 1 || stream.realm_id !== user.realm_id) ok = false;
      else if (stream.invite_only === 0 && user.role !== Role.GUEST) ok = true;
      else if (await subscriptions.findActive(ctx.store.db, user.id, stream.id)) ok = true;
      else {
        groups ??= await contentGroupsFor(ctx.store.db, user, ctx.config.featureLevel);
        ok = !!groups && hasContentAccessViaGroups(stream, groups);
      }
      open.set(m.stream_id, ok);
    }
    if (ok) out.push(m);
  }
  return out;
}

function reasonFor(list: Missed[], groupName: string | null, channel: string, topic: string): string | null {
  const triggers = new Set(list.map((m) => m.trigger));
  const because = (why: string) => `You are receiving this because ${why}`;
  if (list.some((m) => m.trigger === 'mentioned' && m.groupId === null)) return because('you were personally mentioned.');
  if (groupName !== null) return because(`@${groupName} was mentioned.`);
  if (triggers.has('topic_wildcard_mentioned_in_followed_topic')) return because(`all topic participants were mentioned in #${channel} > ${topic}.`);
  if (triggers.has('stream_wildcard_mentioned_in_followed_topic')) return because('you have wildcard mention notifications enabled for topics you follow.');
  if (triggers.has('topic_wildcard_mentioned')) return because(`all topic participants were mentioned in #${channel} > ${topic}.`);
  if (triggers.has('stream_wildcard_mentioned')) return because(`everyone was mentioned in #${channel}.`);
  if (triggers.has('followed_topic_email_notify')) return because('you have email notifications enabled for topics you follow.');
  if (triggers.has('stream_email_notify')) return because(`you have email notifications enabled for #${channel}.`);
  return null;
}

/** Zulip's get_mentioned_user_group: none after a personal mention, else the smallest group mentioned. */
async function mentionedGroupName(s: Setting, list: Missed[]): Promise<string | null> {
  if (list.some((m) => m.trigger === 'mentioned' && m.groupId === null)) return null;
  let best: { name: string; size: number } | null = null;
  for (const id of new Set(list.flatMap((m) => (m.trigger === 'mentioned' && m.groupId !== null ? [m.groupId] : [])))) {
    const group = await userGroups.findInRealm(s.ctx.store.db, s.user.realm_id, id);
    if (!group) continue;
    const size = (await userGroups.listMemberIds(s.ctx.store.db, id)).length;
    if (!best || size < best.size) best = { name: group.name, size };
  }
  return best?.name ?? null;
}

/** Zulip's display name of a group DM's other members. */
function groupDisplayName(names: string[]): string {
  if (names.length === 2) return names.join(' and ');
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names.slice(0, 2).join(', ')}, and ${names.length - 2} others`;
}

async function buildEmail(s: Setting, list: Missed[], showContent: boolean, contentHiddenBy: 'realm' | 'user' | null, includeRealmName: boolean): Promise<MissedMessageEmail> {
  const first = list[0]!.message;
  const name = (id: number) => s.senders.get(id)?.full_name ?? 'Unknown user';
  let header: ConversationHeader;
  let narrowUrl: string;
  let kind: MissedMessageEmail['subject']['kind'];
  let groupName = '';
  let channelName = '';
  let topicName = '';
  let topicResolved = false;
  // A stream message and a group DM name their sender in the text; a one-to-one DM does not.
  let namesSender: boolean;
  const members = s.huddles.get(first.recipient_id);
  if (first.stream_id !== null) {
    const stream = s.streams.get(first.stream_id)!;
    narrowUrl = topicNarrowUrl(s.realmUrl, s.level, stream, first.topic);
    header = { kind: 'stream', streamName: stream.name, streamUrl: streamNarrowUrl(s.realmUrl, s.level, stream), topic: first.topic, topicUrl: narrowUrl };
    kind = 'stream';
    channelName = stream.name;
    topicResolved = first.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    topicName = topicResolved ? first.topic.slice(RESOLVED_TOPIC_PREFIX.length) : first.topic;
    namesSender = true;
  } else if (members) {
    const others = members.filter((id) => id !== s.user.id).sort((a, b) => a - b);
    narrowUrl = groupNarrowUrl(s.realmUrl, s.level, others);
    const names = others.map(name);
    header = { kind: 'private', text: `You and ${names.join(', ')}`, url: narrowUrl };
    kind = 'group_pm';
    groupName = groupDisplayName(names);
    namesSender = true;
  } else {
    const sender = s.senders.get(first.sender_id);
    narrowUrl = personalNarrowUrl(s.realmUrl, s.level, sender ?? { id: first.sender_id, full_name: name(first.sender_id), email: '' });
    header = { kind: 'private', text: `You and ${name(first.sender_id)}`, url: narrowUrl };
    kind = 'private_message';
    namesSender = false;
  }

  const senderBlocks: SenderBlock[] = [];
  if (showContent) {
    for (const { message } of list) {
      const plain = mailPlainText(message.content, s.realmUrl);
      const html = mailSafeHtml(message.rendered_content, s.realmUrl);
      const sender = namesSender ? name(message.sender_id) : '';
      const last = senderBlocks[senderBlocks.length - 1];
      if (last && last.sender === sender) last.content.push({ plain, html });
      else senderBlocks.push({ sender, content: [sender ? prependSender(plain, html, sender) : { plain, html }] });
    }
  }
  // The subject names the senders of the mentions when the user was mentioned, else every sender.
  const mention = list.some((m) => MENTION_TRIGGERS.has(m.trigger));
  const senderIds = [...new Set(list.filter((m) => kind !== 'stream' || !mention || MENTION_TRIGGERS.has(m.trigger)).map((m) => m.message.sender_id))];
  return {
    realmName: s.realmName,
    realmUrl: s.realmUrl,
    narrowUrl,
    header,
    senders: senderBlocks,
    showContent,
    contentHiddenBy,
    reason: reasonFor(list, await mentionedGroupName(s, list), channelName, topicName),
    subject: { kind, groupDisplayName: groupName, senderStr: senderIds.map(name).join(', '), channelName, topicName, topicResolved, includeRealmName },
  };
}
