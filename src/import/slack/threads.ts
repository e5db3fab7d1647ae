/**
 * Topics, as Zulip's converter names them: unthreaded channel messages go to one topic, each
 * thread (its parent and replies) to a topic of the thread's date and the start of the first
 * message seen in it, numbered when two threads would share a name. Zulip forgets its thread
 * map at each chunk of 1000 messages, splitting threads that span chunks; this map lasts the
 * whole import. A thread is known by its `thread_ts` and the Slack id of its first poster,
 * as in Zulip (a `ts` alone is not unique).
 */
import { obj, optStr, type Obj } from './json.js';

export const DEFAULT_TOPIC = 'imported from Slack';
const MAX_TOPIC_LENGTH = 60;

/** Zulip's truncate_content, counting characters (code points) as Python does. */
function truncate(text: string, max: number, ellipsis = '…'): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - ellipsis.length).join('') + ellipsis;
}

export class ThreadTopics {
  private topics = new Map<string, string>();
  private counts = new Map<string, number>();
  /** Thread ts -> who started it, for replies that do not say (Zulip's thread_parent_map). */
  private parents = new Map<string, string>();

  /** Zulip's get_parent_user_id_from_thread_message. */
  private parentOf(m: Obj, threadTs: string): string {
    const from = (o: Obj | undefined) => optStr(o, 'user') ?? optStr(o, 'bot_id');
    if (m.subtype === 'thread_broadcast') {
      const root = from(obj(m, 'root'));
      if (root !== undefined) return root;
    } else if (optStr(m, 'ts') === threadTs) {
      const poster = from(m);
      if (poster !== undefined) {
        this.parents.set(threadTs, poster);
        return poster;
      }
    } else {
      const parent = optStr(m, 'parent_user_id') ?? optStr(m, 'bot_id');
      if (parent !== undefined) return parent;
    }
    return this.parents.get(threadTs) ?? '';
  }

  /** The topic of a message in a thread (`thread_ts` set) of a channel; `content` is its converted text. */
  topicFor(conversation: string, m: Obj, threadTs: string, content: string): string {
    const key = `${conversation}\0${threadTs}\0${this.parentOf(m, threadTs)}`;
    const known = this.topics.get(key);
    if (known !== undefined) return known;
    const date = new Date(Number(threadTs) * 1000).toISOString().slice(0, 10);
    const base = `${date} ${content}`.trim();
    const short = truncate(base, MAX_TOPIC_LENGTH);
    const seen = this.counts.get(short) ?? 0;
    this.counts.set(short, seen + 1);
    const suffix = seen > 0 ? ` (${seen + 1})` : '';
    const topic = truncate(base, MAX_TOPIC_LENGTH - suffix.length) + suffix;
    this.topics.set(key, topic);
    return topic;
  }
}
