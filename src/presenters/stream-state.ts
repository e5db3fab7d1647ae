import type { Q, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { canSeeStreamMetadata } from '../access/stream.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { presentStream, presentSubscription } from './stream.js';
import { listMutedTopics } from '../actions/muted-topics.js';
import { sendLookups } from '../actions/send-lookups.js';

export interface SubscriptionState {
  subscriptions: Array<Record<string, unknown>>;
  unsubscribed: Array<Record<string, unknown>>;
  never_subscribed: Array<Record<string, unknown>>;
}

/**
 * The three lists of register's `subscription` state (Zulip's gather_subscriptions):
 * current subscriptions; past ones, with members only where the user may still see
 * them; and streams the user may see but never joined (administrators see private
 * ones too, as metadata).
 */
export async function gatherSubscriptions(q: Q, user: UserRow, includeSubscribers: boolean): Promise<SubscriptionState> {
  const [active, inactive, all] = await Promise.all([
    subscriptions.listActiveSubscriptionsOfUser(q, user.id),
    subscriptions.listInactiveSubscriptionsOfUser(q, user.id),
    sendLookups.realmStreams(q, user.realm_id),
  ]);
  const known = new Set([...active, ...inactive].map((x) => x.stream.id));
  const never = all.filter((s) => !known.has(s.id) && canSeeStreamMetadata(user, s, null))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const members = includeSubscribers ? await subscriptions.mapSubscriberIds(q, all.map((s) => s.id)) : undefined;
  const membersOf = (id: number, visible: boolean) => (members && visible ? members.get(id) ?? [] : undefined);
  return {
    subscriptions: active.map(({ stream, sub }) => presentSubscription(stream, sub, membersOf(stream.id, true))),
    unsubscribed: inactive.map(({ stream, sub }) =>
      presentSubscription(stream, sub, membersOf(stream.id, canSeeStreamMetadata(user, stream, null)))),
    never_subscribed: never.map((s) => {
      const out: Record<string, unknown> = { ...presentStream(s), stream_weekly_traffic: null };
      const m = membersOf(s.id, true);
      if (m) out.subscribers = m;
      return out;
    }),
  };
}

/**
 * register's `streams`: what GET /streams answers by default (public and subscribed
 * streams), and every active stream for administrators, as Zulip sends it.
 */
export async function streamsVisibleTo(q: Q, user: UserRow): Promise<Array<Record<string, unknown>>> {
  const [all, mine] = await Promise.all([sendLookups.realmStreams(q, user.realm_id), subscriptions.listSubscribedStreamIds(q, user.id)]);
  const subscribed = new Set(mine);
  const admin = isAdminRole(user.role);
  return all.filter((s) => admin || subscribed.has(s.id) || (user.role !== Role.GUEST && s.invite_only === 0))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(presentStream);
}

/** register's `realm_default_streams`. */
export async function defaultStreamsState(q: Q, realmId: number): Promise<Array<Record<string, unknown>>> {
  return (await streams.listDefaults(q, realmId)).map(presentStream);
}

/** register's `muted_topics`: [stream_name, topic, date_muted] triples. */
export const mutedTopicsState = listMutedTopics;
