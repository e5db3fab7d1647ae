import type { Q, StreamRow, UserRow } from '../store/rows.js';
import { subscriptions, type SubscriptionWithStream } from '../store/repos/subscriptions.js';
import { userTopics, type UserTopicEntry } from '../store/repos/user-topics.js';
import { compareUserTopics } from '../lib/visibility-policy.js';
import { canSeeStreamMetadata } from '../access/stream.js';
import { metadataGroupsFor } from '../access/channel-access.js';
import { forLevel, presentStream, presentSubscription } from '../presenters/stream.js';
import { neverSubscribedJson } from '../presenters/stream-json.js';
import { serializedValue } from '../presenters/shared-json.js';
import { realmStreams, realmSubscriberIds } from './streams.js';
import { streams } from '../store/repos/streams.js';

export interface SubscriptionState {
  subscriptions: Array<Record<string, unknown>>;
  unsubscribed: Array<Record<string, unknown>>;
  never_subscribed: Array<Record<string, unknown>>;
}

/** GET /users/me/subscriptions: the user's active subscriptions, with their members when asked. */
export async function ownSubscriptions(q: Q, user: UserRow, withSubscribers: boolean, includeArchived = false): Promise<Array<SubscriptionWithStream & { subscribers?: number[] }>> {
  const list = await subscriptions.listActiveSubscriptionsOfUser(q, user.id, includeArchived);
  if (!withSubscribers) return list;
  const members = await realmSubscriberIds(q, user.realm_id);
  return list.map((x) => ({ ...x, subscribers: [...(members.get(x.stream.id) ?? [])] }));
}

export const isSubscribed = (q: Q, userId: number, streamId: number): Promise<boolean> => subscriptions.isSubscribed(q, userId, streamId);

/** register's legacy `muted_topics`: [stream_name, topic, date_muted] triples of the muted topics. */
export const mutedTopicsOf = (q: Q, userId: number): Promise<Array<[string, string, number]>> => userTopics.listMutedOfUser(q, userId);

/** register's `user_topics` (feature level 134), in the order applying events keeps. */
export const userTopicsOf = async (q: Q, userId: number): Promise<UserTopicEntry[]> =>
  (await userTopics.listOfUser(q, userId)).sort(compareUserTopics);

/**
 * The three lists of register's `subscription` state (Zulip's gather_subscriptions):
 * current subscriptions; past ones, with members only where the user may still see
 * them; and streams the user may see but never joined (administrators see private
 * ones too, as metadata).
 */
export async function gatherSubscriptions(q: Q, user: UserRow, includeSubscribers: boolean, featureLevel: number,
  archivedChannels = false): Promise<SubscriptionState> {
  const { never, membersOf, sharedMembersOf: _shared, ...lists } = await subscriptionLists(q, user, includeSubscribers, featureLevel, archivedChannels);
  return {
    ...lists,
    never_subscribed: never.map((s) => {
      const out: Record<string, unknown> = { ...forLevel(presentStream(s, featureLevel), featureLevel), stream_weekly_traffic: null };
      const m = membersOf(s.id);
      if (m) out.subscribers = m;
      return out;
    }),
  };
}

/**
 * gatherSubscriptions for register's answer: `never_subscribed` already serialised, each
 * stream's part made once per change of it (at 2,000 streams presenting them was most of it).
 */
export async function serializedSubscriptions(q: Q, user: UserRow, includeSubscribers: boolean, featureLevel: number,
  archivedChannels = false): Promise<Omit<SubscriptionState, 'never_subscribed'> & { never_subscribed: object }> {
  const { never, sharedMembersOf, membersOf: _copied, ...lists } = await subscriptionLists(q, user, includeSubscribers, featureLevel, archivedChannels);
  const parts = never.map((s) => neverSubscribedJson(s, featureLevel, sharedMembersOf(s.id)));
  return { ...lists, never_subscribed: serializedValue(`[${parts.join(',')}]`) };
}

async function subscriptionLists(q: Q, user: UserRow, includeSubscribers: boolean, featureLevel: number, archivedChannels: boolean)
  : Promise<Omit<SubscriptionState, 'never_subscribed'> & {
    never: StreamRow[];
    membersOf: (id: number) => number[] | undefined;
    /** The same, not copied: shared, never to be changed. */
    sharedMembersOf: (id: number) => readonly number[] | undefined;
  }> {
  // archived_channels clients (level 315) are given their subscriptions to archived streams
  // too; from level 362 never_subscribed holds the archived streams they may see.
  const [active, inactive, live, archived] = await Promise.all([
    subscriptions.listActiveSubscriptionsOfUser(q, user.id, archivedChannels),
    subscriptions.listInactiveSubscriptionsOfUser(q, user.id),
    realmStreams(q, user.realm_id),
    archivedChannels && featureLevel >= 362 ? streams.listArchivedByRealm(q, user.realm_id) : Promise.resolve([]),
  ]);
  const all = [...live, ...archived];
  const known = new Set([...active, ...inactive].map((x) => x.stream.id));
  // Level 349: private streams the user reaches through their metadata-granting groups
  // (channel administrators, can_add_subscribers_group, can_subscribe_group) are listed too.
  const groups = await metadataGroupsFor(q, user, featureLevel);
  const never = all.filter((s) => !known.has(s.id) && canSeeStreamMetadata(user, s, null, true, groups))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const archivedIds = [...active.map((x) => x.stream), ...archived].filter((s) => s.deactivated === 1).map((s) => s.id);
  const members = includeSubscribers
    ? new Map([...await realmSubscriberIds(q, user.realm_id), ...await subscriptions.mapSubscriberIds(q, archivedIds)]) : undefined;
  const membersOf = (id: number, visible: boolean) => (members && visible ? [...(members.get(id) ?? [])] : undefined);
  return {
    subscriptions: active.map(({ stream, sub }) => presentSubscription(stream, sub, membersOf(stream.id, true), featureLevel)),
    unsubscribed: inactive.map(({ stream, sub }) =>
      presentSubscription(stream, sub, membersOf(stream.id, canSeeStreamMetadata(user, stream, null, false, groups)), featureLevel)),
    never,
    membersOf: (id) => membersOf(id, true),
    sharedMembersOf: (id) => (members ? members.get(id) ?? [] : undefined),
  };
}
