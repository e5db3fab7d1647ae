/** Stream and subscription events applied to register's stream lists (each kept in name order). */
import type { StreamEvent, StreamUpdateEvent, SubscriptionEvent } from '../kinds/stream.js';
import type { UserTopicEvent } from '../kinds/user-topic.js';
import { compareUserTopics, VisibilityPolicy } from '../../lib/visibility-policy.js';
import type { WireStream } from '../../schemas/wire.js';
import { byName, type RegisterState } from './state.js';
import { forLevel } from '../../presenters/stream.js';

/** Takes the entry of a stream out of a list, if it is there. */
function takeOut<T extends { stream_id: number }>(list: T[] | undefined, streamId: number): T | undefined {
  const i = list?.findIndex((s) => s.stream_id === streamId) ?? -1;
  return i < 0 ? undefined : list!.splice(i, 1)[0];
}

/** Every list of register that holds stream objects, present or not. */
const streamLists = (state: RegisterState): Array<WireStream[] | undefined> =>
  [state.streams, state.subscriptions, state.unsubscribed, state.never_subscribed, objectsOnly(state.realm_default_streams)];

/** Level 330's default streams are ids: nothing of a stream to update there. */
const objectsOnly = (list: WireStream[] | number[] | undefined): WireStream[] | undefined => (list === undefined || isIdList(list) ? undefined : list);

export const isIdList = (list: WireStream[] | number[]): list is number[] => list.length > 0 && typeof list[0] === 'number';

/** The level register answered at (0: unknown, the oldest form). */
const levelOf = (state: RegisterState): number => state.zulip_feature_level ?? 0;

export function applySubscription(state: RegisterState, e: SubscriptionEvent, viewerId: number): void {
  const subs = state.subscriptions;
  if (!subs) return;
  if (e.op === 'add') {
    for (const sub of e.subscriptions) {
      takeOut(state.unsubscribed, sub.stream_id);
      takeOut(state.never_subscribed, sub.stream_id);
      // Events carry every field at every level; register's objects follow the level.
      subs.push(forLevel(sub, levelOf(state)));
    }
    subs.sort(byName);
  }
  if (e.op === 'remove') {
    const unsubscribed = (state.unsubscribed ??= []);
    for (const ref of e.subscriptions) {
      const s = takeOut(subs, ref.stream_id);
      if (!s) continue;
      if (s.subscribers) s.subscribers = s.subscribers.filter((id) => id !== viewerId);
      unsubscribed.push(s);
    }
    unsubscribed.sort(byName);
  }
  if (e.op === 'update') {
    const s = subs.find((x) => x.stream_id === e.stream_id);
    if (!s) return;
    const fields: Record<string, unknown> = s;
    fields[e.property] = e.value;
    if (e.property === 'in_home_view') s.is_muted = !e.value;
    if (e.property === 'is_muted') s.in_home_view = !e.value;
  }
  if (e.op === 'peer_add' || e.op === 'peer_remove') {
    for (const list of [subs, state.unsubscribed, state.never_subscribed]) {
      for (const s of list ?? []) {
        if (!e.stream_ids.includes(s.stream_id) || !s.subscribers) continue;
        const set = new Set(s.subscribers);
        for (const id of e.user_ids) (e.op === 'peer_add' ? set.add(id) : set.delete(id));
        s.subscribers = [...set].sort((a, b) => a - b);
      }
    }
  }
}

export function applyStream(state: RegisterState, e: StreamEvent): void {
  if (e.op === 'create') {
    const streams = e.streams.map((s) => forLevel(s, levelOf(state)));
    if (state.streams) {
      state.streams.push(...streams);
      state.streams.sort(byName);
    }
    const never = state.never_subscribed;
    if (never) {
      const known = new Set([...(state.subscriptions ?? []), ...(state.unsubscribed ?? []), ...never].map((s) => s.stream_id));
      for (const s of streams) if (!known.has(s.stream_id)) never.push({ ...s, stream_weekly_traffic: null, subscribers: [] });
      never.sort(byName);
    }
  }
  if (e.op === 'delete') deleteStreams(state, e.streams);
  if (e.op === 'update') updateStream(state, e);
}

function deleteStreams(state: RegisterState, streams: WireStream[]): void {
  const gone = new Set(streams.map((s) => s.stream_id));
  // Topics muted in an archived stream go with it.
  const goneNames = new Set(streams.map((s) => s.name));
  if (state.muted_topics) state.muted_topics = state.muted_topics.filter((m) => !goneNames.has(m[0]));
  if (state.user_topics) state.user_topics = state.user_topics.filter((t) => !gone.has(t.stream_id));
  const keep = <T extends { stream_id: number }>(list: T[] | undefined) => list?.filter((s) => !gone.has(s.stream_id));
  if (state.streams) state.streams = keep(state.streams);
  if (state.subscriptions) state.subscriptions = keep(state.subscriptions);
  if (state.unsubscribed) state.unsubscribed = keep(state.unsubscribed);
  if (state.never_subscribed) state.never_subscribed = keep(state.never_subscribed);
  const defaults = state.realm_default_streams;
  if (defaults) state.realm_default_streams = isIdList(defaults) ? defaults.filter((id) => !gone.has(id)) : keep(defaults);
  // The server marks an archived stream's messages read and says nothing; clients drop them.
  const u = state.unread_msgs;
  if (u) {
    const dropped = new Set(u.streams.filter((s) => gone.has(s.stream_id)).flatMap((s) => s.unread_message_ids));
    u.streams = u.streams.filter((s) => !gone.has(s.stream_id));
    u.mentions = u.mentions.filter((id) => !dropped.has(id));
  }
}

function updateStream(state: RegisterState, e: StreamUpdateEvent): void {
  for (const list of streamLists(state)) {
    for (const s of list ?? []) {
      if (s.stream_id !== e.stream_id) continue;
      // Only subscriptions carry an email address.
      if (e.property === 'email_address' && !('email_address' in s)) continue;
      const fields: Record<string, unknown> = s;
      fields[e.property] = e.value;
      if (e.property === 'description' && e.rendered_description !== undefined) s.rendered_description = e.rendered_description;
      if (e.property === 'invite_only') {
        if (e.history_public_to_subscribers !== undefined) s.history_public_to_subscribers = e.history_public_to_subscribers;
        if (e.is_web_public !== undefined) s.is_web_public = e.is_web_public;
      }
      if (e.property === 'stream_post_policy') s.is_announcement_only = e.value === 2;
    }
    if (e.property === 'name') list?.sort(byName);
  }
}

/**
 * A topic's policy replaces the one the user had for it (topics match whatever their case);
 * "inherit" leaves none. The list stays in register's order (compareUserTopics).
 */
export function applyUserTopic(state: RegisterState, e: UserTopicEvent): void {
  if (!state.user_topics) return;
  const lower = e.topic_name.toLowerCase();
  const rest = state.user_topics.filter((t) => !(t.stream_id === e.stream_id && t.topic_name.toLowerCase() === lower));
  if (e.visibility_policy !== VisibilityPolicy.INHERIT) {
    rest.push({ stream_id: e.stream_id, topic_name: e.topic_name, last_updated: e.last_updated, visibility_policy: e.visibility_policy });
    rest.sort(compareUserTopics);
  }
  state.user_topics = rest;
}
