import type { RealmRow, UserRow } from '../store/rows.js';
import type { Q } from '../store/rows.js';
import { digests, type DigestMessage, type DigestStream } from '../store/repos/digests.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import { Role } from '../lib/roles.js';
import { mailSafeHtml, narrowUrl } from './digest-html.js';

/** Zulip's DIGEST_CUTOFF: a digest covers, and goes to people away for, this many days. */
export const DIGEST_CUTOFF_DAYS = 5;
/** Zulip's MAX_HOT_TOPICS_TO_BE_INCLUDED_IN_DIGEST; the first two are picked by number of senders. */
const MAX_HOT_TOPICS = 4;
const BY_DIVERSITY = 2;
/** Zulip's teasers: the first two messages of each hot topic. */
const SAMPLES = 2;
/** Zulip's level 255: "Stream" renamed "Channel" across its strings. */
const CHANNEL_WORD_LEVEL = 255;

export interface TeaserSender {
  sender: string;
  messages: Array<{ html: string; plain: string }>;
}

export interface HotConversation {
  streamName: string;
  streamUrl: string;
  topic: string;
  topicUrl: string;
  senders: TeaserSender[];
  /** Human messages beyond the teasers (Zulip's `count`), and who wrote the topic's human messages. */
  count: number;
  participants: string[];
}

export interface DigestContext {
  userName: string;
  realmName: string;
  realmUri: string;
  settingsUrl: string;
  /** Whether message content may be shown (the organization's and the user's setting). */
  showContent: boolean;
  contentDisabledByRealm: boolean;
  newMessagesCount: number;
  hotConversations: HotConversation[];
  newStreams: Array<{ name: string; url: string }>;
  /** "stream" below level 255, "channel" from it, where Zulip renamed them in its strings. */
  streamWord: 'stream' | 'channel';
}

interface Topic {
  streamId: number;
  streamName: string;
  topic: string;
  samples: DigestMessage[];
  humanSenders: Set<string>;
  humanMessages: number;
}

/** Zulip's DigestTopic per (stream, topic), in the order of each topic's first message. */
function recentTopics(messages: DigestMessage[]): Topic[] {
  const map = new Map<string, Topic>();
  for (const m of messages) {
    const key = `${m.stream_id}\u0000${m.topic_lower}`;
    let t = map.get(key);
    if (!t) {
      t = { streamId: m.stream_id, streamName: m.stream_name, topic: m.topic, samples: [], humanSenders: new Set(), humanMessages: 0 };
      map.set(key, t);
    }
    if (t.samples.length < SAMPLES) t.samples.push(m);
    if (m.sender_is_bot === 0) {
      t.humanSenders.add(m.sender_name);
      t.humanMessages++;
    }
  }
  return [...map.values()];
}

/** Zulip's get_hot_topics: the two with the most human senders, then the longest, up to four. */
export function hotTopics<T extends { humanSenders: Set<string>; humanMessages: number }>(topics: T[]): T[] {
  // Stable sorts: ties keep the order of the topics' first messages, as heapq.nlargest does.
  const hot = [...topics].sort((a, b) => b.humanSenders.size - a.humanSenders.size).slice(0, BY_DIVERSITY);
  for (const t of [...topics].sort((a, b) => b.humanMessages - a.humanMessages)) {
    if (hot.length >= MAX_HOT_TOPICS) break;
    if (!hot.includes(t)) hot.push(t);
  }
  return hot;
}

/** Zulip's gather_new_streams: public ones for those who may see public streams, otherwise web-public ones. */
function visibleNewStreams(user: UserRow, streams: DigestStream[]): DigestStream[] {
  return user.role === Role.GUEST ? streams.filter((s) => s.is_web_public === 1) : streams.filter((s) => s.invite_only === 0);
}

/**
 * Zulip's get_digest_context for one user as of `cutoff`: the hot conversations of their
 * unmuted streams (never private messages; in a stream without shared history only what
 * they received) and the streams created since, each linked.
 */
export async function getDigestContext(
  q: Q, realm: RealmRow, user: UserRow, cutoff: number, opts: { realmUri: string; featureLevel: number },
): Promise<DigestContext> {
  const { realmUri, featureLevel } = opts;
  const messages = await digests.listStreamMessagesSince(q, user.id, realm.id, cutoff);
  const hot = hotTopics(recentTopics(messages));
  const contents = new Map((await digests.listContents(q, hot.flatMap((t) => t.samples.map((m) => m.id)))).map((c) => [c.id, c]));
  const hotConversations = hot.map((t): HotConversation => {
    const senders: TeaserSender[] = [];
    for (const m of t.samples) {
      const c = contents.get(m.id);
      const message = { html: c ? mailSafeHtml(c.rendered_content, realmUri) : '', plain: c?.content ?? '' };
      // Zulip's build_message_list: consecutive messages of one sender under one name.
      const last = senders.at(-1);
      if (last && last.sender === m.sender_name) last.messages.push(message);
      else senders.push({ sender: m.sender_name, messages: [message] });
    }
    return {
      streamName: t.streamName, streamUrl: narrowUrl(realmUri, featureLevel, t.streamId, t.streamName),
      topic: t.topic, topicUrl: narrowUrl(realmUri, featureLevel, t.streamId, t.streamName, t.topic),
      senders, count: t.humanMessages - t.samples.length, participants: [...t.humanSenders].sort(),
    };
  });
  const created = visibleNewStreams(user, await digests.listStreamsCreatedAfter(q, realm.id, cutoff));
  const contentDisabledByRealm = !realmSettings(realm.settings).message_content_allowed_in_email_notifications;
  return {
    userName: user.full_name, realmName: realm.name, realmUri, settingsUrl: `${realmUri}/#settings/notifications`,
    showContent: !contentDisabledByRealm && userSettings(user.settings).message_content_in_email_notifications,
    contentDisabledByRealm, newMessagesCount: messages.length, hotConversations,
    newStreams: created.map((s) => ({ name: s.name, url: narrowUrl(realmUri, featureLevel, s.id, s.name) })),
    streamWord: featureLevel >= CHANNEL_WORD_LEVEL ? 'channel' : 'stream',
  };
}

/** Zulip's enough_traffic: a digest with neither hot conversations nor new streams is not sent. */
export const enoughTraffic = (c: DigestContext): boolean => c.hotConversations.length > 0 || c.newStreams.length > 0;
