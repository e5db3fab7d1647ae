/** Unread counts read off register's unread_msgs (kept by the shared event logic). */
import type { State } from './types';

type U = { count: number; pms: Array<{ other_user_id?: number; sender_id: number; unread_message_ids: number[] }>; streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>; huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>; mentions: number[] };

const unread = (s: State): U => s.reg.unread_msgs ?? { count: 0, pms: [], streams: [], huddles: [], mentions: [] };

const isMutedTopic = (s: State, streamId: number, topic: string) => {
  const name = s.streamsById.get(streamId)?.name;
  return (s.reg.muted_topics ?? []).some((m) => m[0] === name && m[1].toLowerCase() === topic.toLowerCase());
};

export function streamCount(s: State, streamId: number): number {
  let n = 0;
  for (const e of unread(s).streams) if (e.stream_id === streamId && !isMutedTopic(s, streamId, e.topic)) n += e.unread_message_ids.length;
  return n;
}

export function topicCount(s: State, streamId: number, topic: string): number {
  const t = topic.toLowerCase();
  return unread(s).streams.filter((e) => e.stream_id === streamId && e.topic.toLowerCase() === t).reduce((n, e) => n + e.unread_message_ids.length, 0);
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
  return unread(s).streams.filter((e) => e.stream_id === streamId).map((e) => e.topic);
}
