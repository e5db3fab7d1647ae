import type { WireMessage } from '../../schemas/wire.js';
import type { UnreadMessageDetails } from '../kinds/message.js';
import type { RegisterState } from './state.js';
import { isTopicMuted, VisibilityPolicy } from '../../lib/visibility-policy.js';

/**
 * register's `unread_msgs` kept by events, as a client keeps it (used by apply.ts). The
 * order is register's: ids ascending within a bucket, buckets by their oldest unread id
 * (src/reads/register/messages.ts groups rows it reads in id order), mentions ascending.
 */
export type UnreadMsgs = {
  count: number;
  pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  old_unreads_missing: boolean;
};

/** Where an unread message is filed. */
export type UnreadPlace =
  | { kind: 'stream'; streamId: number; topic: string }
  | { kind: 'pm'; other: number }
  | { kind: 'huddle'; userIds: number[] };

const BUCKETS = ['pms', 'streams', 'huddles'] as const;

function insertSorted(ids: number[], id: number): void {
  let i = ids.length;
  while (i > 0 && ids[i - 1]! > id) i--;
  ids.splice(i, 0, id);
}

function reorder(u: UnreadMsgs): void {
  for (const b of BUCKETS) (u[b] as Array<{ unread_message_ids: number[] }>).sort((x, y) => x.unread_message_ids[0]! - y.unread_message_ids[0]!);
}

const holds = (u: UnreadMsgs, id: number) => BUCKETS.some((b) => u[b].some((e) => e.unread_message_ids.includes(id)));

/** Files a newly unread message; one already held is left alone. */
export function addUnread(u: UnreadMsgs, id: number, place: UnreadPlace, mentioned: boolean): void {
  if (holds(u, id)) return;
  let ids: number[];
  if (place.kind === 'stream') {
    let e = u.streams.find((s) => s.stream_id === place.streamId && s.topic === place.topic);
    if (!e) u.streams.push(e = { stream_id: place.streamId, topic: place.topic, unread_message_ids: [] });
    ids = e.unread_message_ids;
  } else if (place.kind === 'pm') {
    let e = u.pms.find((p) => p.other_user_id === place.other);
    if (!e) u.pms.push(e = { other_user_id: place.other, sender_id: place.other, unread_message_ids: [] });
    ids = e.unread_message_ids;
  } else {
    const key = [...place.userIds].sort((a, b) => a - b).join(',');
    let e = u.huddles.find((h) => h.user_ids_string === key);
    if (!e) u.huddles.push(e = { user_ids_string: key, unread_message_ids: [] });
    ids = e.unread_message_ids;
  }
  insertSorted(ids, id);
  if (mentioned) insertSorted(u.mentions, id);
  reorder(u);
}

/** Drops messages read or deleted from every bucket. */
export function removeUnread(u: UnreadMsgs, ids: Iterable<number>): void {
  const gone = new Set(ids);
  if (gone.size === 0) return;
  for (const b of BUCKETS) {
    const list = u[b] as Array<{ unread_message_ids: number[] }>;
    for (const e of list) {
      e.unread_message_ids = e.unread_message_ids.filter((id) => !gone.has(id));
    }
    (u as Record<string, unknown>)[b] = list.filter((e) => e.unread_message_ids.length > 0);
  }
  u.mentions = u.mentions.filter((id) => !gone.has(id));
  reorder(u);
}

/** Everything read (mark_all_as_read's `all`). */
export function clearUnread(u: UnreadMsgs): void {
  Object.assign(u, { count: 0, pms: [], streams: [], huddles: [], mentions: [], old_unreads_missing: false });
}

/** A message event's place: its stream and topic, or the people of its private conversation. */
export function placeOfMessage(message: WireMessage, viewerId: number): UnreadPlace {
  if (message.type === 'stream' || typeof message.display_recipient === 'string') return { kind: 'stream', streamId: message.stream_id!, topic: message.subject };
  const people = message.display_recipient.map((p) => p.id);
  const others = people.filter((id) => id !== viewerId);
  return others.length <= 1 ? { kind: 'pm', other: others[0] ?? viewerId } : { kind: 'huddle', userIds: people };
}

/** A `message_details` entry's place (its private `user_ids` leave the viewer out). */
export function placeOfDetails(d: UnreadMessageDetails, viewerId: number): UnreadPlace {
  if (d.type === 'stream') return { kind: 'stream', streamId: d.stream_id, topic: d.topic };
  const others = d.user_ids;
  return others.length <= 1 ? { kind: 'pm', other: others[0] ?? viewerId } : { kind: 'huddle', userIds: [...others, viewerId] };
}

/** Messages moved to another topic or stream: their unread entries follow them (update_message). */
export function refileUnread(u: UnreadMsgs, ids: Iterable<number>, to: { streamId?: number; topic?: string }): void {
  const moving = new Set(ids);
  const found: Array<{ id: number; place: UnreadPlace; mentioned: boolean }> = [];
  for (const s of u.streams) {
    for (const id of s.unread_message_ids) {
      if (!moving.has(id)) continue;
      found.push({ id, place: { kind: 'stream', streamId: to.streamId ?? s.stream_id, topic: to.topic ?? s.topic }, mentioned: u.mentions.includes(id) });
    }
  }
  if (found.length === 0) return;
  removeUnread(u, found.map((f) => f.id));
  for (const f of found) addUnread(u, f.id, f.place, f.mentioned);
}

/** Where an unread message is filed, if it is (a private one's people do not matter here). */
export function placeOfUnread(u: UnreadMsgs, id: number): UnreadPlace | undefined {
  const s = u.streams.find((e) => e.unread_message_ids.includes(id));
  if (s) return { kind: 'stream', streamId: s.stream_id, topic: s.topic };
  const p = u.pms.find((e) => e.unread_message_ids.includes(id));
  if (p) return { kind: 'pm', other: p.other_user_id };
  const h = u.huddles.find((e) => e.unread_message_ids.includes(id));
  return h ? { kind: 'huddle', userIds: h.user_ids_string.split(',').map(Number) } : undefined;
}

/** An edit changed whether an unread message mentions the user. */
export function setUnreadMention(u: UnreadMsgs, id: number, mentioned: boolean): void {
  if (!holds(u, id)) return;
  const has = u.mentions.includes(id);
  if (mentioned && !has) insertSorted(u.mentions, id);
  if (!mentioned && has) u.mentions = u.mentions.filter((m) => m !== id);
}

/** Whether a stream's topic is muted for the viewer, by what the state knows of their subscriptions and topic policies. */
export type Muting = (streamId: number, topic: string) => boolean;

export function mutingOf(state: RegisterState): Muting {
  const mutedStreams = new Set((state.subscriptions ?? []).filter((s) => s.is_muted).map((s) => s.stream_id));
  const policies = new Map<string, number>();
  const key = (streamId: number, topic: string) => `${streamId}\u0000${topic.toLowerCase()}`;
  if (state.user_topics) {
    for (const t of state.user_topics) policies.set(key(t.stream_id, t.topic_name), t.visibility_policy);
  } else if (state.muted_topics) {
    // The legacy list names streams: find their ids wherever the state lists streams.
    const ids = new Map<string, number>();
    for (const list of [state.subscriptions, state.unsubscribed, state.never_subscribed, state.streams]) for (const s of list ?? []) ids.set(s.name, s.stream_id);
    for (const [name, topic] of state.muted_topics) {
      const id = ids.get(name);
      if (id !== undefined) policies.set(key(id, topic), VisibilityPolicy.MUTED);
    }
  }
  return (streamId, topic) => isTopicMuted(mutedStreams.has(streamId), policies.get(key(streamId, topic)) ?? VisibilityPolicy.INHERIT);
}

/**
 * register's `count`: every unread private message, and the stream messages that are not
 * muted (Zulip's aggregate_unread_data, level 213's rule for unmuted and followed topics).
 * Derived again after every event that files messages or changes muting, as a fresh
 * register would count them.
 */
export function recountUnread(state: RegisterState): void {
  const u = state.unread_msgs;
  if (!u) return;
  const muted = mutingOf(state);
  let count = 0;
  for (const e of u.pms) count += e.unread_message_ids.length;
  for (const e of u.huddles) count += e.unread_message_ids.length;
  for (const e of u.streams) if (!muted(e.stream_id, e.topic)) count += e.unread_message_ids.length;
  u.count = count;
}

/**
 * Whether an unread message is among register's `mentions`: a personal or group mention
 * always; a wildcard mention only outside muted streams and topics (Zulip's
 * extract_unread_data_from_um_rows).
 */
export function countsAsMention(flags: readonly string[], place: UnreadPlace, muted: Muting): boolean {
  if (flags.includes('mentioned')) return true;
  const wildcard = flags.includes('wildcard_mentioned') || flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned');
  return wildcard && !(place.kind === 'stream' && muted(place.streamId, place.topic));
}
