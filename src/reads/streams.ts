import type { Q, StreamRow, SubscriptionRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { messages } from '../store/repos/messages.js';
import { cachedRead } from '../cache/index.js';
import { canSeeStream, canSeeStreamMetadata } from '../access/stream.js';
import { contentGroupsFor, hasMetadataAccessViaGroups, metadataGroupsFor } from '../access/channel-access.js';
import { Role, isAdminRole } from '../lib/roles.js';

const byName = (a: StreamRow, b: StreamRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Stream lookups that every send and register make, through the cache outside a transaction. */
export const streamByName = (q: Q, realmId: number, name: string): Promise<StreamRow | undefined> =>
  cachedRead(q, (c) => c.streamsByName, `${realmId}:${name.toLowerCase()}`, () => streams.findByName(q, realmId, name));

export const streamInRealm = (q: Q, realmId: number, id: number): Promise<StreamRow | undefined> =>
  cachedRead(q, (c) => c.streamsById, `${realmId}:${id}`, () => streams.findInRealm(q, realmId, id));

/** Every active stream of the realm, by id. Shared: callers must copy before sorting or changing it. */
export const realmStreams = (q: Q, realmId: number): Promise<readonly StreamRow[]> =>
  cachedRead(q, (c) => c.realmStreams, realmId, () => streams.listByRealm(q, realmId));

export const activeSubscription = (q: Q, userId: number, streamId: number): Promise<SubscriptionRow | undefined> =>
  cachedRead(q, (c) => c.activeSubscriptions, `${userId}:${streamId}`, () => subscriptions.findActive(q, userId, streamId));

/** Shared between callers: they must not change the array. */
export const subscriberIds = (q: Q, streamId: number): Promise<readonly number[]> =>
  cachedRead(q, (c) => c.subscriberIds, streamId, () => subscriptions.listSubscriberIds(q, streamId));

/** Subscriber ids of every active stream of the realm; shared: never to be changed. */
export const realmSubscriberIds = (q: Q, realmId: number): Promise<ReadonlyMap<number, readonly number[]>> =>
  cachedRead(q, (c) => c.realmSubscriberIds, realmId, async () => subscriptions.mapSubscriberIds(q, (await realmStreams(q, realmId)).map((s) => s.id)));

export interface StreamListFilter {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  includeAllActive: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  /** Level 315's exclude_archived=false: archived streams the user may see, too. */
  includeArchived?: boolean;
  /** Level 356's include_can_access_content: every stream whose messages the user may read. */
  includeCanAccessContent?: boolean;
}

/** GET /streams: the streams the filter picks, by name, with whether each is a default stream. */
export async function listStreams(q: Q, user: UserRow, f: StreamListFilter, featureLevel = 0): Promise<Array<{ stream: StreamRow; isDefault: boolean }>> {
  const all = [...await realmStreams(q, user.realm_id), ...(f.includeArchived ? await streams.listArchivedByRealm(q, user.realm_id) : [])];
  const defaults = new Set(await streams.listDefaultIds(q, user.realm_id));
  let chosen: StreamRow[];
  if (f.includeAllActive) {
    // Every stream with metadata access (level 356's include_all; all of them for administrators;
    // from level 349 the private ones whose metadata-granting groups hold the user).
    const subs = await subscriptions.mapActiveOfUser(q, user.id, all.map((s) => s.id));
    const groups = isAdminRole(user.role) ? undefined : await metadataGroupsFor(q, user, featureLevel);
    chosen = all.filter((s) => canSeeStreamMetadata(user, s, subs.get(s.id) ?? null, true, groups));
  } else {
    const archivedSubs = f.includeArchived ? await subscriptions.mapActiveOfUser(q, user.id, all.filter((s) => s.deactivated === 1).map((s) => s.id)) : new Map();
    const mine = new Set([...await subscriptions.listSubscribedStreamIds(q, user.id), ...archivedSubs.keys()]);
    const owners = f.includeOwnerSubscribed && user.is_bot === 1 && user.bot_owner_id !== null
      ? new Set(await subscriptions.listSubscribedStreamIds(q, user.bot_owner_id)) : new Set<number>();
    const isGuest = user.role === Role.GUEST;
    // Level 354: content access through the stream's groups counts for include_can_access_content.
    const groups = f.includeCanAccessContent === true ? await contentGroupsFor(q, user, featureLevel) : undefined;
    chosen = all.filter((s) => (f.includeSubscribed && mine.has(s.id))
      || (f.includePublic && !isGuest && s.invite_only === 0)
      || (f.includeWebPublic && s.is_web_public === 1)
      || owners.has(s.id)
      || (f.includeDefault && defaults.has(s.id) && canSeeStream(user, s, null))
      || (f.includeCanAccessContent === true && (mine.has(s.id) || canSeeStream(user, s, null, true, groups))));
  }
  return chosen.sort(byName).map((stream) => ({ stream, isDefault: defaults.has(stream.id) }));
}

/**
 * register's `streams`: what GET /streams answers by default (public and subscribed
 * streams), and every active stream for administrators, as Zulip sends it.
 */
export async function streamsVisibleTo(q: Q, user: UserRow, featureLevel = 0, includeArchived = false): Promise<StreamRow[]> {
  const [active, mine] = await Promise.all([realmStreams(q, user.realm_id), subscriptions.listSubscribedStreamIds(q, user.id)]);
  // Clients with the archived_channels capability (level 315) get the archived streams they may see too.
  const archived = includeArchived ? await streams.listArchivedByRealm(q, user.realm_id) : [];
  const all = [...active, ...archived];
  const archivedSubs = archived.length > 0 ? await subscriptions.mapActiveOfUser(q, user.id, archived.map((s) => s.id)) : new Map<number, unknown>();
  const subscribed = new Set([...mine, ...archivedSubs.keys()]);
  const admin = isAdminRole(user.role);
  // From level 349 the private streams whose metadata-granting groups hold the user too (Zulip
  // 10 tells them of these streams' events; its register's streams is do_get_streams' include_all).
  const groups = admin ? undefined : await metadataGroupsFor(q, user, featureLevel);
  // Web-public streams are everyone's, guests' included (Zulip's include_web_public, feature level 205).
  return all.filter((s) => admin || subscribed.has(s.id) || s.is_web_public === 1 || (user.role !== Role.GUEST && s.invite_only === 0)
    || (groups !== undefined && hasMetadataAccessViaGroups(s, groups))).sort(byName);
}

export const defaultStreams = (q: Q, realmId: number): Promise<StreamRow[]> => streams.listDefaults(q, realmId);

/** Topics with their newest message id, newest first; only messages the user may read. */
export async function topicsOf(q: Q, user: UserRow, stream: StreamRow, fullHistory: boolean): Promise<Array<{ name: string; max_id: number }>> {
  const groups = await messages.topicMaxIds(q, stream.id, fullHistory ? null : user.id);
  const ids = groups.map((g) => g.max_id);
  const names = await messages.topicsOfIds(q, ids);
  return ids.sort((a, b) => b - a).map((id) => ({ name: names.get(id) ?? '', max_id: id }));
}
