/** Unread counts read off register's unread_msgs (kept by the shared event logic). */
import { store } from './store';
import type { State } from './types';

type U = { count: number; pms: Array<{ other_user_id?: number; sender_id: number; unread_message_ids: number[] }>; streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>; huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>; mentions: number[] };

const unread = (s: State): U => s.reg.unread_msgs ?? { count: 0, pms: [], streams: [], huddles: [], mentions: [] };

/**
 * Counts by stream and by topic, built in one pass over unread_msgs and kept until the state
 * changes (register, or a batch of events: `store.epoch`); renders in between (typing, scrolling)
 * read them off maps instead of walking every unread topic once per stream (10,000 unread).
 */
type Index = { state: State; epoch: number; byStream: Map<number, number>; byTopic: Map<string, number>; topics: Map<number, string[]> };
let index: Index | null = null;

function indexOf(s: State): Index {
  if (index && index.state === s && index.epoch === store.epoch) return index;
  const muted = new Set((s.reg.muted_topics ?? []).map((m) => `${m[0]}\u0000${m[1].toLowerCase()}`));
  const byStream = new Map<number, number>();
  const byTopic = new Map<string, number>();
  const topics = new Map<number, string[]>();
  for (const e of unread(s).streams) {
    const n = e.unread_message_ids.length;
    const lower = e.topic.toLowerCase();
    const key = `${e.stream_id}\u0000${lower}`;
    byTopic.set(key, (byTopic.get(key) ?? 0) + n);
    let list = topics.get(e.stream_id);
    if (!list) topics.set(e.stream_id, (list = []));
    list.push(e.topic);
    const name = s.streamsById.get(e.stream_id)?.name;
    if (!muted.size || !muted.has(`${name}\u0000${lower}`)) byStream.set(e.stream_id, (byStream.get(e.stream_id) ?? 0) + n);
  }
  return (index = { state: s, epoch: store.epoch, byStream, byTopic, topics });
}

export function streamCount(s: State, streamId: number): number {
  return indexOf(s).byStream.get(streamId) ?? 0;
}

export function topicCount(s: State, streamId: number, topic: string): number {
  return indexOf(s).byTopic.get(`${streamId}\u0000${topic.toLowerCase()}`) ?? 0;
}

/** Unread in a private conversation, by the other people's ids (ascending). */
export function pmCount(s: State, ids: number[]): number {
  const u = unread(s);
  if (ids.length <= 1) {
    const other = ids[0] ?? s.me;
    return u.pms.filter((p) => (p.other_user_id ?? p.sender_id) === other).reduce((n, p) => n + p.unread_message_ids.length, 0);
  }
  const key = [...ids, s.me].sort((a, b) => a - b).join(',');
  return u.huddles.filter((h) => h.user_ids_string === key).reduce((n, h) => n + h.unread_message_ids.length, 0);
}

export const privateCount = (s: State) => [...unread(s).pms, ...unread(s).huddles].reduce((n, p) => n + p.unread_message_ids.length, 0);
export const mentionCount = (s: State) => unread(s).mentions.length;
export const totalCount = (s: State) => unread(s).count;

/** The topics with unread messages in a stream, for the topic list before GET .../topics answers. */
export function unreadTopics(s: State, streamId: number): string[] {
  return indexOf(s).topics.get(streamId) ?? [];
}
