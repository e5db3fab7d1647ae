import { FLAG_BITS, MENTION_BITS } from '../lib/message-flags.js';
import type { InternalMessage, ResolvedTerm } from './types.js';

const flagSet = (mask: number | null, bit: number) => ((mask ?? FLAG_BITS.read | FLAG_BITS.historical) & bit) !== 0;

/** Whole-word prefix match of every search word, the in-memory stand-in for full-text search. */
export function searchMatches(words: string[], topic: string, content: string): boolean {
  const text = `${topic} ${content}`.toLowerCase();
  return words.every((w) => new RegExp(`(^|[^\\p{L}\\p{N}_])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u').test(text));
}

function matchesTerm(t: ResolvedTerm, m: InternalMessage, flags: number | null): boolean {
  const isPrivate = m.stream_id === null;
  switch (t.op) {
    case 'stream': return m.stream_id === t.streamId;
    case 'topic': return !isPrivate && m.topic.toLowerCase() === t.topicLower;
    case 'sender': return m.sender_id === t.userId;
    case 'pm-with': {
      if (!isPrivate) return false;
      const members = [...new Set([...m.pm_user_ids, m.sender_id])].sort((a, b) => a - b);
      return members.length === t.memberIds.length && members.every((id, i) => id === t.memberIds[i]);
    }
    case 'dm-including': return isPrivate && (m.pm_user_ids.includes(t.userId) || m.sender_id === t.userId);
    case 'group-pm-with': return isPrivate && new Set([...m.pm_user_ids, m.sender_id]).size >= 3 && (m.pm_user_ids.includes(t.userId) || m.sender_id === t.userId);
    case 'is':
      switch (t.what) {
        case 'private': return isPrivate;
        case 'starred': return flagSet(flags, FLAG_BITS.starred);
        case 'mentioned': return flagSet(flags, MENTION_BITS);
        case 'alerted': return flagSet(flags, FLAG_BITS.has_alert_word);
        case 'unread': return !flagSet(flags, FLAG_BITS.read);
        case 'resolved': return !isPrivate && m.topic.startsWith('\u2714 ');
      }
      return false;
    case 'in-home': {
      if (isPrivate) return true;
      const among = (list: Array<[number, string]>) => list.some(([s, topic]) => s === m.stream_id && topic === m.topic.toLowerCase());
      if (among(t.mutedTopics)) return false;
      return !t.mutedStreamIds.includes(m.stream_id!) || among(t.shownTopics);
    }
    case 'topics': return !isPrivate && t.topics.some(([s, topic]) => s === m.stream_id && topic === m.topic.toLowerCase());
    case 'streams-public': return !isPrivate && t.streamIds.includes(m.stream_id!);
    case 'id': return m.id === t.id;
    case 'has':
      if (t.what === 'reaction') return m.has_reaction === true;
      return t.what === 'link' ? m.has_link : t.what === 'image' ? m.has_image : m.has_attachment;
    case 'search': return searchMatches(t.words, m.topic, m.content);
    case 'none': return true;
  }
}

/**
 * The narrow as a predicate over one message the viewer may see, with the viewer's flag
 * bitmask (null: historical). The same meaning as the SQL in ./sql.ts; event queues use it.
 */
export function matchesNarrow(terms: ResolvedTerm[], m: InternalMessage, flags: number | null): boolean {
  return terms.every((t) => (t.op === 'none' ? true : matchesTerm(t, m, flags) !== t.negated));
}
