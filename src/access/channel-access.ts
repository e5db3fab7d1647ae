import type { Q, StreamRow, UserRow } from '../store/rows.js';
import { userGroups } from '../store/repos/user-groups.js';
import { users } from '../store/repos/users.js';
import { Role } from '../lib/roles.js';
import { SystemGroup } from '../lib/system-groups.js';
import { inSystemGroup } from '../lib/realm-group-settings.js';
import { recursiveSubgroups, recursiveSupergroups } from '../lib/group-graph.js';
import { streamSettingValue, type StreamGroupSettingName } from '../lib/stream-group-settings.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';

/**
 * Zulip 10's channel access model (zerver/lib/streams.py user_has_metadata_access /
 * user_has_content_access): besides subscribers (and administrators for metadata), the
 * members of a private channel's permission groups reach it.
 */

/** From it the members of can_administer_channel_group, can_add_subscribers_group and can_subscribe_group see a private channel's metadata. */
export const METADATA_ACCESS_VIA_GROUPS_LEVEL = 349;
/** From it the members of can_add_subscribers_group and can_subscribe_group read a private channel without subscribing. */
export const CONTENT_ACCESS_VIA_GROUPS_LEVEL = 354;

/** Stream.stream_permission_group_settings_granting_metadata_access. */
const METADATA_SETTINGS: readonly StreamGroupSettingName[] = ['can_administer_channel_group', 'can_add_subscribers_group', 'can_subscribe_group'];
/** Stream.stream_permission_group_settings_granting_content_access. */
const CONTENT_SETTINGS: readonly StreamGroupSettingName[] = ['can_add_subscribers_group', 'can_subscribe_group'];

/** A user and every group they are in, directly or through subgroups (Zulip's user_recursive_group_ids). */
export interface GroupMembership {
  userId: number;
  /** Guests never hold these settings (allow_everyone_group=False). */
  isGuest: boolean;
  groupIds: ReadonlySet<number>;
}

/**
 * The user's recursive group membership. Role-based system groups are answered from the role
 * (as userHasGroupSettingValue does); full members from the stored membership, which the
 * daily promotion keeps.
 */
export async function groupMembershipOf(q: Q, user: Pick<UserRow, 'id' | 'realm_id' | 'role' | 'date_joined'>): Promise<GroupMembership> {
  const [direct, edges, system] = await Promise.all([userGroups.listGroupIdsOfUser(q, user.id),
    userGroups.listSubgroupEdgesByRealm(q, user.realm_id), userGroups.systemGroupsByName(q, user.realm_id)]);
  const start = new Set(direct);
  for (const g of system.values()) {
    if (g.name !== SystemGroup.FULL_MEMBERS && inSystemGroup(user, g.name, 0)) start.add(g.id);
  }
  return { userId: user.id, isGuest: user.role === Role.GUEST, groupIds: recursiveSupergroups(edges, start) };
}

function valueHolds(value: GroupSettingValue, m: GroupMembership): boolean {
  if (typeof value === 'number') return m.groupIds.has(value);
  return value.direct_members.includes(m.userId) || value.direct_subgroups.some((g) => m.groupIds.has(g));
}

/** Zulip's has_metadata_access_to_channel_via_groups. */
export function hasMetadataAccessViaGroups(stream: StreamRow, m: GroupMembership): boolean {
  return !m.isGuest && METADATA_SETTINGS.some((n) => valueHolds(streamSettingValue(stream, n), m));
}

/** Zulip's is_user_in_groups_granting_content_access. */
export function hasContentAccessViaGroups(stream: StreamRow, m: GroupMembership): boolean {
  return !m.isGuest && CONTENT_SETTINGS.some((n) => valueHolds(streamSettingValue(stream, n), m));
}

/** The membership when the level grants access through groups, else undefined (the older rules). */
export async function metadataGroupsFor(q: Q, user: Pick<UserRow, 'id' | 'realm_id' | 'role' | 'date_joined'>, featureLevel: number): Promise<GroupMembership | undefined> {
  return featureLevel >= METADATA_ACCESS_VIA_GROUPS_LEVEL && user.role !== Role.GUEST ? groupMembershipOf(q, user) : undefined;
}

export async function contentGroupsFor(q: Q, user: Pick<UserRow, 'id' | 'realm_id' | 'role' | 'date_joined'>, featureLevel: number): Promise<GroupMembership | undefined> {
  return featureLevel >= CONTENT_ACCESS_VIA_GROUPS_LEVEL && user.role !== Role.GUEST ? groupMembershipOf(q, user) : undefined;
}

/**
 * Part of Zulip's bulk_can_access_stream_metadata_user_ids: the active non-guest users of
 * the realm who reach each private stream through its metadata-granting groups.
 */
export async function metadataAccessUserIdsViaGroups(q: Q, streamList: readonly StreamRow[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  const priv = streamList.filter((s) => s.invite_only === 1 && s.is_web_public === 0);
  if (priv.length === 0) return out;
  const realmId = priv[0]!.realm_id;
  const [memberships, edges, system, active] = await Promise.all([userGroups.listActiveMembershipsByRealm(q, realmId),
    userGroups.listSubgroupEdgesByRealm(q, realmId), userGroups.systemGroupsByName(q, realmId), users.listActiveRolesInRealm(q, realmId)]);
  const systemName = new Map([...system.values()].map((g) => [g.id, g.name]));
  const roleOf = new Map(active.map((u) => [u.id, u]));
  const membersOfGroup = (groupId: number): Set<number> => {
    const ids = new Set<number>();
    const below = recursiveSubgroups(edges, [groupId]);
    for (const m of memberships) if (below.has(m.group_id)) ids.add(m.user_id);
    for (const g of below) {
      const name = systemName.get(g);
      if (name === undefined || name === SystemGroup.FULL_MEMBERS) continue;
      for (const u of active) if (inSystemGroup({ role: u.role, date_joined: 0 }, name, 0)) ids.add(u.id);
    }
    return ids;
  };
  const cache = new Map<number, Set<number>>();
  const named = (id: number) => { let s = cache.get(id); if (!s) { s = membersOfGroup(id); cache.set(id, s); } return s; };
  for (const stream of priv) {
    const ids = new Set<number>();
    for (const name of METADATA_SETTINGS) {
      const value = streamSettingValue(stream, name);
      if (typeof value === 'number') for (const id of named(value)) ids.add(id);
      else {
        for (const id of value.direct_members) ids.add(id);
        for (const g of value.direct_subgroups) for (const id of named(g)) ids.add(id);
      }
    }
    // Active non-guests only: the settings do not allow role:everyone.
    out.set(stream.id, new Set([...ids].filter((id) => { const u = roleOf.get(id); return u !== undefined && u.role !== Role.GUEST; })));
  }
  return out;
}

/**
 * Zulip 10's access_stream_for_send_message (level 354): besides subscribers, the members of
 * a private channel's content-granting groups may send to it when its history is shared with
 * subscribers (not with protected history, and never guests). Groups are read only here, after
 * the plain rules refused, so sending to a stream one may see costs no query more.
 */
export async function maySendViaContentGroups(q: Q, user: Pick<UserRow, 'id' | 'realm_id' | 'role' | 'date_joined'>, stream: StreamRow, featureLevel: number): Promise<boolean> {
  if (featureLevel < CONTENT_ACCESS_VIA_GROUPS_LEVEL || user.role === Role.GUEST) return false;
  if (stream.deactivated === 1 || stream.realm_id !== user.realm_id || stream.history_public_to_subscribers !== 1) return false;
  return hasContentAccessViaGroups(stream, await groupMembershipOf(q, user));
}
