import type { Q, StreamRow } from '../store/rows.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { users } from '../store/repos/users.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { METADATA_ACCESS_VIA_GROUPS_LEVEL, metadataAccessUserIdsViaGroups } from '../access/channel-access.js';

/** Who hears of changes to streams: the reads that pick an event's recipients. */
const activeUsers = (q: Q, realmId: number) => users.listActiveRolesInRealm(q, realmId);

/**
 * Everyone who may know the stream exists: for public streams every non-guest plus
 * subscribed guests (every user for web-public ones); for private streams the
 * subscribers and the administrators (who see private-stream metadata, as in Zulip).
 */
export async function streamAudienceIds(q: Q, stream: StreamRow, featureLevel = 0): Promise<number[]> {
  const [users, subscribers] = await Promise.all([activeUsers(q, stream.realm_id), subscriptions.listSubscriberIds(q, stream.id)]);
  return withGroups(audienceOf(stream, users, subscribers), featureLevel >= METADATA_ACCESS_VIA_GROUPS_LEVEL
    ? (await metadataAccessUserIdsViaGroups(q, [stream])).get(stream.id) : undefined);
}

/** Level 349 (Zulip's bulk_can_access_stream_metadata_user_ids): the members of a private stream's metadata-granting groups hear of it too. */
function withGroups(ids: number[], viaGroups: ReadonlySet<number> | undefined): number[] {
  if (!viaGroups || viaGroups.size === 0) return ids;
  return [...new Set([...ids, ...viaGroups])].sort((a, b) => a - b);
}

/** streamAudienceIds of several streams of one realm, with two queries (subscribers may be given, as mapSubscriberIds answers). */
export async function streamAudiences(q: Q, streamList: StreamRow[], subscribers?: Map<number, number[]>, featureLevel = 0): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (streamList.length === 0) return out;
  const users = await activeUsers(q, streamList[0]!.realm_id);
  const subs = subscribers ?? await subscriptions.mapSubscriberIds(q, streamList.map((s) => s.id));
  const viaGroups = featureLevel >= METADATA_ACCESS_VIA_GROUPS_LEVEL ? await metadataAccessUserIdsViaGroups(q, streamList) : new Map<number, Set<number>>();
  for (const s of streamList) out.set(s.id, withGroups(audienceOf(s, users, subs.get(s.id) ?? []), viaGroups.get(s.id)));
  return out;
}

function audienceOf(stream: StreamRow, users: Awaited<ReturnType<typeof activeUsers>>, subscribers: number[]): number[] {
  const ids = new Set(subscribers);
  for (const u of users) {
    if (stream.is_web_public === 1) ids.add(u.id);
    else if (stream.invite_only === 0 && u.role !== Role.GUEST) ids.add(u.id);
    else if (stream.invite_only === 1 && isAdminRole(u.role)) ids.add(u.id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** Non-guest active users: who hears about public streams and default-stream changes. */
export async function nonGuestUserIds(q: Q, realmId: number): Promise<number[]> {
  return (await activeUsers(q, realmId)).filter((u) => u.role !== Role.GUEST).map((u) => u.id);
}
