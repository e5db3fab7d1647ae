import type { Q, RealmRow, StreamRow, SubscriptionRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { badRequest, invalidStreamId, invalidStreamName } from '../errors.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { realmSettings } from '../lib/realm-settings.js';
import { STREAM_POST_POLICY } from '../lib/stream-post-policy.js';
import { cachedRead } from '../cache/index.js';
import { userGroups } from '../store/repos/user-groups.js';
import { parseStoredValue } from '../lib/stream-group-settings.js';
import { inSystemGroup } from '../lib/realm-group-settings.js';
import { userHasGroupSettingValue } from './group-setting.js';
import { STREAM_PERMISSION_SETTINGS } from '../lib/permission-settings.js';
import { CONTENT_ACCESS_VIA_GROUPS_LEVEL, hasContentAccessViaGroups, maySendViaContentGroups, hasMetadataAccessViaGroups, metadataGroupsFor, type GroupMembership } from './channel-access.js';

export interface StreamAccess {
  stream: StreamRow;
  /** The caller's active subscription, or null. */
  sub: SubscriptionRow | null;
}

export interface AccessStreamOpts {
  /**
   * Administrators may see a private stream's metadata (members, settings) without
   * being subscribed, as in Zulip; never its content.
   */
  allowAdmin?: boolean;
  /** Archived streams too (Zulip's require_active_channel=False, level 315). */
  allowArchived?: boolean;
  /**
   * The level, for metadata access through the stream's groups (level 349, with allowAdmin)
   * and content access through them (level 354).
   */
  featureLevel?: number;
}



/**
 * Whether the user may know the stream exists and read it: Zulip's access_stream_common.
 * `groups` (given from level 354, see contentGroupsFor) adds content access through the
 * stream's can_add_subscribers_group / can_subscribe_group.
 */
export function canSeeStream(user: Pick<UserRow, 'role' | 'realm_id'>, stream: StreamRow, sub: SubscriptionRow | null | undefined,
  allowArchived = false, groups?: GroupMembership): boolean {
  if (stream.realm_id !== user.realm_id || (stream.deactivated === 1 && !allowArchived)) return false;
  if (stream.is_web_public === 1) return true;
  if (stream.invite_only === 0 && user.role !== Role.GUEST) return true;
  if (!!sub && sub.active === 1) return true;
  return groups !== undefined && hasContentAccessViaGroups(stream, groups);
}

/**
 * canSeeStream, widened to administrators for private-stream metadata, and (`groups` given
 * from level 349, see metadataGroupsFor) to the members of its metadata-granting groups:
 * Zulip's user_has_metadata_access.
 */
export function canSeeStreamMetadata(user: Pick<UserRow, 'role' | 'realm_id'>, stream: StreamRow, sub: SubscriptionRow | null | undefined,
  allowArchived = false, groups?: GroupMembership): boolean {
  if (canSeeStream(user, stream, sub, allowArchived)) return true;
  if (stream.realm_id !== user.realm_id || (stream.deactivated === 1 && !allowArchived)) return false;
  return isAdminRole(user.role) || (groups !== undefined && hasMetadataAccessViaGroups(stream, groups));
}

/**
 * Whether the user may read messages sent before they subscribed (or without
 * subscribing): web-public streams, public streams for non-guests, and streams
 * with shared history for their subscribers.
 */
export function canReadHistory(user: Pick<UserRow, 'role' | 'realm_id'>, stream: StreamRow, sub: SubscriptionRow | null | undefined,
  groups?: GroupMembership): boolean {
  if (stream.realm_id !== user.realm_id) return false;
  if (stream.is_web_public === 1) return true;
  if (stream.invite_only === 0 && stream.history_public_to_subscribers === 1 && user.role !== Role.GUEST) return true;
  if (stream.history_public_to_subscribers !== 1) return false;
  // Zulip's can_access_stream_history: shared history for whoever has content access
  // (subscribers; from level 354 the members of the groups granting it).
  return (!!sub && sub.active === 1) || (groups !== undefined && hasContentAccessViaGroups(stream, groups));
}

function isNewMember(user: Pick<UserRow, 'date_joined'>, realm: RealmRow | undefined, now: number): boolean {
  const days = realm ? realmSettings(realm.settings).waiting_period_threshold : 0;
  return (now - user.date_joined) / 86400 < days;
}

/** The stream_post_policy check alone; the error Zulip answers when it fails, or null. */
export function streamPostPolicyError(user: Pick<UserRow, 'role' | 'date_joined'>, stream: StreamRow, realm?: RealmRow,
  now = Math.floor(Date.now() / 1000)): string | null {
  if (isAdminRole(user.role)) return null;
  const policy = stream.stream_post_policy;
  if (policy === STREAM_POST_POLICY.ADMINS) return 'Only organization administrators can send to this stream.';
  if (policy === STREAM_POST_POLICY.MODERATORS && user.role > Role.MODERATOR) {
    return 'Only organization administrators and moderators can send to this stream.';
  }
  if (policy !== STREAM_POST_POLICY.EVERYONE && user.role === Role.GUEST) return 'Guests cannot send to this stream.';
  if (policy === STREAM_POST_POLICY.RESTRICT_NEW_MEMBERS && isNewMember(user, realm, now)) return 'New members cannot send to this stream.';
  return null;
}

/** stream_post_policy as a boolean (membership is checked separately, see checkCanPostToStream). */
export function canPostToStream(user: Pick<UserRow, 'role' | 'date_joined'>, stream: StreamRow, realm?: RealmRow): boolean {
  return streamPostPolicyError(user, stream, realm) === null;
}

/**
 * Everything Zulip checks before a user sends to a stream (or says they are typing in it):
 * who may post, then access (web-public, public for non-guests, or subscribed).
 */
export async function checkCanPostToStream(q: Q, user: UserRow, stream: StreamRow, sub: SubscriptionRow | null | undefined, realm: RealmRow,
  featureLevel: number): Promise<void> {
  // From level 333 can_send_message_group, as for sending (Zulip's access_stream_for_send_message).
  const err = await sendPermissionError(q, user, stream, realm, featureLevel);
  if (err) throw badRequest(err);
  if (!canSeeStream(user, stream, sub) && !(await maySendViaContentGroups(q, user, stream, featureLevel))) {
    throw badRequest(`Not authorized to send to stream '${stream.name}'`);
  }
}

/** accessStreamBy*'s check; the user's groups are read only when the plain rules refuse a private stream. */
async function visibleWithGroups(q: Q, user: UserRow, stream: StreamRow, sub: SubscriptionRow | null, archived: boolean, opts: AccessStreamOpts): Promise<boolean> {
  const plain = opts.allowAdmin ? canSeeStreamMetadata(user, stream, sub, archived) : canSeeStream(user, stream, sub, archived);
  if (plain || opts.featureLevel === undefined || stream.realm_id !== user.realm_id) return plain;
  if (opts.allowAdmin) {
    const groups = await metadataGroupsFor(q, user, opts.featureLevel);
    return groups !== undefined && canSeeStreamMetadata(user, stream, sub, archived, groups);
  }
  const groups = opts.featureLevel >= CONTENT_ACCESS_VIA_GROUPS_LEVEL ? await metadataGroupsFor(q, user, opts.featureLevel) : undefined;
  return groups !== undefined && canSeeStream(user, stream, sub, archived, groups);
}

/** Loads a stream by id for the caller, or "Invalid stream id" whether it is missing or hidden. */
export async function accessStreamById(q: Q, user: UserRow, streamId: number, opts: AccessStreamOpts = {}): Promise<StreamAccess> {
  const stream = opts.allowArchived ? await streams.findInRealmAny(q, user.realm_id, streamId) : await streams.findInRealm(q, user.realm_id, streamId);
  if (!stream) throw invalidStreamId();
  const sub = (await subscriptions.findActive(q, user.id, stream.id)) ?? null;
  const archived = opts.allowArchived === true;
  if (!(await visibleWithGroups(q, user, stream, sub, archived, opts))) throw invalidStreamId();
  return { stream, sub };
}

/** Loads a stream by name, or "Invalid stream name '<name>'" whether it is missing or hidden. */
export async function accessStreamByName(q: Q, user: UserRow, name: string, opts: AccessStreamOpts = {}): Promise<StreamAccess> {
  // No stream name holds a NUL, and PostgreSQL refuses one even in a comparison.
  const stream = name.includes('\u0000') ? undefined : await streams.findByName(q, user.realm_id, name);
  if (!stream) throw invalidStreamName(name);
  const sub = (await subscriptions.findActive(q, user.id, stream.id)) ?? null;
  if (!(await visibleWithGroups(q, user, stream, sub, false, opts))) throw invalidStreamName(name);
  return { stream, sub };
}

/** The level from which can_send_message_group decides who may post (Zulip 10; before, stream_post_policy). */
export const CAN_SEND_MESSAGE_GROUP_LEVEL = 333;
const CANNOT_POST = 'You do not have permission to post in this channel.';

/** An organization's system groups by id, cached: they never change once made. */
export const systemGroupNames = (q: Q, realmId: number): Promise<ReadonlyMap<number, string>> =>
  cachedRead(q, (c) => c.systemGroupNames, realmId, async () =>
    new Map([...(await userGroups.systemGroupsByName(q, realmId)).values()].map((g) => [g.id, g.name])));

/**
 * Who may post, as the level decides: from 333 Zulip's
 * check_stream_access_based_on_can_send_message_group (a system group answered from the
 * role, with the cached system-group names: no query per message for them), before it the
 * stream_post_policy check. The error to answer, or null.
 */
export async function sendPermissionError(q: Q, user: UserRow, stream: StreamRow, realm: RealmRow | undefined, featureLevel: number): Promise<string | null> {
  if (featureLevel < CAN_SEND_MESSAGE_GROUP_LEVEL) return streamPostPolicyError(user, stream, realm);
  const value = parseStoredValue(stream.can_send_message_group);
  const waiting = realm ? realmSettings(realm.settings).waiting_period_threshold : 0;
  if (typeof value === 'number') {
    const name = (await systemGroupNames(q, stream.realm_id)).get(value);
    if (name !== undefined) return inSystemGroup(user, name, waiting) ? null : CANNOT_POST;
  }
  return await userHasGroupSettingValue(q, user, value, STREAM_PERMISSION_SETTINGS.can_send_message_group, waiting) ? null : CANNOT_POST;
}
