import type { AppContext } from '../context.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { notificationBot } from '../reads/system-bots.js';
import { INTERNAL_CLIENT } from '../lib/system-bots.js';
import { sendMessage } from './message-send.js';

/** Zulip's RESOLVED_TOPIC_PREFIX: a resolved topic is its name behind a check mark. */
export const RESOLVED_TOPIC_PREFIX = '\u2714 ';

/** What a committed move leaves for Notification Bot to say. */
export interface MoveNotice {
  oldStream: StreamRow;
  newStream: StreamRow | undefined;
  origTopic: string;
  newTopic: string;
  changedIds: number[];
  /** The whole topic, as the mover could see it, went. */
  movedAll: boolean;
  /** Set when the move resolved or unresolved the topic: those who sent or reacted to it. */
  participants: ReadonlySet<number> | undefined;
  notifyOld: boolean;
  notifyNew: boolean;
  /** From feature level 152 a move within the stream (a topic rename) leaves breadcrumbs too, as the request asks. */
  topicMoveNotices: boolean;
}

/** Zulip's silent mention: names the user without notifying them. */
export const silentMention = (u: Pick<UserRow, 'full_name' | 'id'>) => `@_**${u.full_name}|${u.id}**`;
const topicLink = (stream: StreamRow, topic: string) => `#**${stream.name}>${topic}**`;

function oldThreadText(n: MoveNotice, user: string, to: string): string {
  if (n.movedAll) return `This topic was moved to ${to} by ${user}.`;
  if (n.changedIds.length === 1) return `A message was moved from this topic to ${to} by ${user}.`;
  return `${n.changedIds.length} messages were moved from this topic to ${to} by ${user}.`;
}

function newThreadText(n: MoveNotice, user: string, from: string): string {
  if (n.movedAll) return `This topic was moved here from ${from} by ${user}.`;
  if (n.changedIds.length === 1) return `A message was moved here from ${from} by ${user}.`;
  return `${n.changedIds.length} messages were moved here from ${from} by ${user}.`;
}

/** A topic's name without the resolved mark: Python's lstrip of RESOLVED_TOPIC_PREFIX's characters. */
const unresolvedName = (topic: string) => topic.replace(/^[\u2714 ]+/u, '');

/**
 * Notification Bot's messages after a move, as Zulip writes them: resolving or
 * unresolving a topic is announced in it (unread only for its participants); moving
 * messages to another stream leaves breadcrumbs in the new thread and the old one, each
 * unless the request turned it off. From feature level 152 so does a move to another
 * topic of the same stream (Zulip 6's do_update_message), except that a request that only
 * resolved or unresolved the topic is announced by that notice alone. The edit has
 * committed: a notice that cannot be sent is logged, never undoes it.
 */
export async function sendMoveNotices(ctx: AppContext, realm: RealmRow, mover: UserRow, n: MoveNotice): Promise<void> {
  const q = ctx.store.db;
  try {
    const bot = await notificationBot(q, realm.id);
    const user = silentMention(mover);
    const send = (stream: StreamRow, topic: string, content: string, unreadOnlyFor?: ReadonlySet<number>) => sendMessage(ctx, realm, bot, {
      to: { kind: 'stream', id: stream.id }, topic, content, client: INTERNAL_CLIENT, internal: true, ...(unreadOnlyFor ? { unreadOnlyFor } : {}),
    });
    if (n.participants) {
      const resolved = n.newTopic.startsWith(RESOLVED_TOPIC_PREFIX);
      await send(n.oldStream, n.newTopic, `${user} has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.`, n.participants);
    }
    if (!n.newStream && !n.topicMoveNotices) return;
    const target = n.newStream ?? n.oldStream;
    const onlyResolved = !n.newStream && n.participants !== undefined && unresolvedName(n.origTopic) === unresolvedName(n.newTopic);
    if (n.notifyNew && !onlyResolved) await send(target, n.newTopic, newThreadText(n, user, topicLink(n.oldStream, n.origTopic)));
    if (n.notifyOld) await send(n.oldStream, n.origTopic, oldThreadText(n, user, topicLink(target, n.newTopic)));
  } catch (err) {
    ctx.log.error({ err }, 'move notices could not be sent');
  }
}
