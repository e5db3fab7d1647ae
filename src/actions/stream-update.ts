import type { Tx } from './transaction.js';
import type { StreamRow } from '../store/rows.js';
import type { ParleyEvent } from '../events/types.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { badRequest } from '../errors.js';
import { renderStreamDescription } from '../markdown/stream-description.js';
import { canRemoveSubscribersGroupKey, presentStream, streamEmailAddress } from '../presenters/stream.js';
import { STREAM_POST_POLICY } from '../lib/stream-post-policy.js';
import { checkStreamDescription, checkStreamName, isUniqueViolation } from './stream-create.js';
import { streamAudienceIds } from '../reads/stream-audience.js';
import { userGroups } from '../store/repos/user-groups.js';
import { encodeValue, policyForSendGroup, POLICY_SEND_GROUP, STREAM_GROUP_SETTING_LEVELS, type StreamGroupSettingName } from '../lib/stream-group-settings.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import { METADATA_ACCESS_VIA_GROUPS_LEVEL } from '../access/channel-access.js';

async function reload(tx: Tx, stream: StreamRow): Promise<StreamRow> {
  // Archived streams too: their privacy can change (level 362).
  return (await streams.findInRealmAny(tx.db, stream.realm_id, stream.id))!;
}

async function notifyUpdate(tx: Tx, stream: StreamRow, fields: { property: string; value: unknown } & Record<string, unknown>): Promise<void> {
  const event: ParleyEvent = { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, ...fields };
  tx.notify(event, await streamAudienceIds(tx.db, stream, tx.featureLevel), stream.realm_id);
}

export async function doChangeStreamDescription(tx: Tx, stream: StreamRow, description: string): Promise<StreamRow> {
  const text = checkStreamDescription(description);
  const rendered = renderStreamDescription(text);
  await streams.update(tx.db, stream.id, { description: text, rendered_description: rendered });
  const updated = await reload(tx, stream);
  await notifyUpdate(tx, updated, { property: 'description', value: text, rendered_description: rendered });
  return updated;
}

export async function doRenameStream(tx: Tx, stream: StreamRow, rawName: string): Promise<StreamRow> {
  const newName = rawName.trim();
  if (newName === stream.name) throw badRequest('Stream already has that name!');
  checkStreamName(newName);
  // Changing only the case of a name keeps it; otherwise it must be free.
  if (newName.toLowerCase() !== stream.name_lower && (await streams.findByName(tx.db, stream.realm_id, newName))) {
    throw badRequest(`Stream name '${newName}' is already taken.`);
  }
  await streams.update(tx.db, stream.id, { name: newName, name_lower: newName.toLowerCase() }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw badRequest(`Stream name '${newName}' is already taken.`);
    throw err;
  });
  const renamed = await reload(tx, stream);
  // Both events name the stream by its old name, which is what clients hold; the
  // email address embeds the name, so it changes first (Zulip's order).
  await notifyUpdate(tx, stream, { property: 'email_address', value: streamEmailAddress(renamed) });
  await notifyUpdate(tx, stream, { property: 'name', value: newName });
  return renamed;
}

export interface StreamPermission {
  inviteOnly: boolean;
  historyPublicToSubscribers: boolean;
  isWebPublic: boolean;
}

/**
 * Changes privacy, shared history and web-public status together. Users who can
 * no longer see the stream get `stream delete`, users who now can get `stream create`,
 * everyone who sees it before and after gets the `update`.
 */
export async function doChangeStreamPermission(tx: Tx, stream: StreamRow, p: StreamPermission): Promise<StreamRow> {
  const changedPrivacy = (stream.invite_only === 1) !== p.inviteOnly || (stream.history_public_to_subscribers === 1) !== p.historyPublicToSubscribers;
  const changedWeb = (stream.is_web_public === 1) !== p.isWebPublic;
  if (!changedPrivacy && !changedWeb) return stream;
  const before = new Set(await streamAudienceIds(tx.db, stream, tx.featureLevel));
  await streams.update(tx.db, stream.id, {
    invite_only: p.inviteOnly ? 1 : 0,
    history_public_to_subscribers: p.historyPublicToSubscribers ? 1 : 0,
    is_web_public: p.isWebPublic ? 1 : 0,
  });
  const updated = await reload(tx, stream);
  const after = new Set(await streamAudienceIds(tx.db, updated, tx.featureLevel));
  const lost = [...before].filter((id) => !after.has(id));
  const gained = [...after].filter((id) => !before.has(id));
  const kept = [...after].filter((id) => before.has(id));
  tx.notify({ type: 'stream', op: 'delete', streams: [presentStream(stream, tx.featureLevel)], stream_ids: [stream.id] }, lost, stream.realm_id);
  tx.notify({ type: 'stream', op: 'create', streams: [presentStream(updated, tx.featureLevel)] }, gained, stream.realm_id);
  // Those who just gained sight of the stream learn who is already in it.
  const members = await subscriptions.listSubscriberIds(tx.db, stream.id);
  if (members.length > 0) {
    tx.notify({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: members }, gained, stream.realm_id);
  }
  const base = { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name } as const;
  tx.notify({
    ...base, property: 'invite_only', value: p.inviteOnly,
    history_public_to_subscribers: p.historyPublicToSubscribers, is_web_public: p.isWebPublic,
  }, kept, stream.realm_id);
  if (changedWeb) tx.notify({ ...base, property: 'is_web_public', value: p.isWebPublic }, kept, stream.realm_id);
  return updated;
}

/** The deprecated policy (and is_announcement_only): sets can_send_message_group to the policy's system group (Zulip's mapping, level 333). */
export async function doChangeStreamPostPolicy(tx: Tx, stream: StreamRow, policy: number): Promise<StreamRow> {
  const system = await userGroups.systemGroupsByName(tx.db, stream.realm_id);
  const group = system.get(POLICY_SEND_GROUP[policy] ?? 'role:everyone')!.id;
  await streams.update(tx.db, stream.id, { stream_post_policy: policy, can_send_message_group: encodeValue(group) });
  const updated = await reload(tx, stream);
  if (tx.featureLevel >= STREAM_GROUP_SETTING_LEVELS.can_send_message_group) await notifyUpdate(tx, updated, { property: 'can_send_message_group', value: group });
  await notifyUpdate(tx, updated, { property: 'stream_post_policy', value: policy });
  // Older clients still read the boolean this policy replaced.
  await notifyUpdate(tx, updated, { property: 'is_announcement_only', value: policy === STREAM_POST_POLICY.ADMINS });
  return updated;
}

/**
 * Zulip's do_change_stream_group_based_setting: stores the value and tells the stream's
 * audience, from the setting's level (can_remove_subscribers_group named as the level
 * names it: `can_remove_subscribers_group_id` before 197, nothing below 142). A new
 * can_send_message_group also sets the deprecated stream_post_policy it maps to, with the
 * events older clients read.
 */
export async function doChangeStreamGroupSetting(tx: Tx, stream: StreamRow, name: StreamGroupSettingName, value: GroupSettingValue): Promise<StreamRow> {
  const patch: Record<string, string | number> = { [name]: encodeValue(value) };
  let policy: number | undefined;
  if (name === 'can_send_message_group') {
    const system = await userGroups.systemGroupsByName(tx.db, stream.realm_id);
    const nameOf = new Map([...system.values()].map((g) => [g.id, g.name]));
    policy = policyForSendGroup(value, (id) => nameOf.get(id));
    patch.stream_post_policy = policy;
  }
  // Level 349: the metadata-granting settings decide who may see a private stream; those who
  // gain sight of it hear `stream create` (and its subscribers), those who lose it `stream delete`.
  const grantsAccess = tx.featureLevel >= METADATA_ACCESS_VIA_GROUPS_LEVEL && stream.invite_only === 1 && stream.is_web_public === 0
    && (name === 'can_administer_channel_group' || name === 'can_add_subscribers_group' || name === 'can_subscribe_group');
  const before = grantsAccess ? new Set(await streamAudienceIds(tx.db, stream, tx.featureLevel)) : undefined;
  await streams.update(tx.db, stream.id, patch);
  const updated = await reload(tx, stream);
  if (before) {
    const after = new Set(await streamAudienceIds(tx.db, updated, tx.featureLevel));
    const lost = [...before].filter((id) => !after.has(id));
    const gained = [...after].filter((id) => !before.has(id));
    tx.notify({ type: 'stream', op: 'delete', streams: [presentStream(updated, tx.featureLevel)], stream_ids: [stream.id] }, lost, stream.realm_id);
    tx.notify({ type: 'stream', op: 'create', streams: [presentStream(updated, tx.featureLevel)] }, gained, stream.realm_id);
    const members = await subscriptions.listSubscriberIds(tx.db, stream.id);
    if (members.length > 0) tx.notify({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: members }, gained, stream.realm_id);
  }
  const property = name === 'can_remove_subscribers_group' ? canRemoveSubscribersGroupKey(tx.featureLevel)
    : tx.featureLevel >= STREAM_GROUP_SETTING_LEVELS[name] ? name : undefined;
  if (property) await notifyUpdate(tx, updated, { property, value });
  if (policy !== undefined && policy !== stream.stream_post_policy) {
    await notifyUpdate(tx, updated, { property: 'stream_post_policy', value: policy });
    await notifyUpdate(tx, updated, { property: 'is_announcement_only', value: policy === STREAM_POST_POLICY.ADMINS });
  }
  return updated;
}

/** null: the organization default; -1: unlimited. */
export async function doChangeStreamMessageRetentionDays(tx: Tx, stream: StreamRow, days: number | null): Promise<StreamRow> {
  await streams.update(tx.db, stream.id, { message_retention_days: days });
  const updated = await reload(tx, stream);
  await notifyUpdate(tx, updated, { property: 'message_retention_days', value: days });
  return updated;
}
