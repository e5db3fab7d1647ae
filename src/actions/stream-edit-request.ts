import type { Tx } from './transaction.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { badRequest, insufficientPermission, invalidStreamId, mustBeAdmin, mustBeOwner, previousSettingValueMismatched } from '../errors.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { accessGroupSettingValue } from '../access/group-setting.js';
import { streamSettingConfig } from '../lib/permission-settings.js';
import { streamSettingValue, type StreamGroupSettingName } from '../lib/stream-group-settings.js';
import { sameGroupSettingValue } from '../lib/group-setting-value.js';
import type { StreamGroupSettingChanges } from '../lib/stream-group-settings.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { accessStreamById } from '../access/stream.js';
import { STREAM_POST_POLICY } from '../lib/stream-post-policy.js';
import { webPublicStreamsEnabled } from '../access/realm-policy.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import {
  doChangeStreamGroupSetting, doChangeStreamDescription, doChangeStreamMessageRetentionDays, doChangeStreamPermission, doChangeStreamPostPolicy, doRenameStream,
} from './stream-update.js';
import { doAddDefaultStream, doRemoveDefaultStream } from './default-streams.js';

export interface StreamEdit {
  description?: string | undefined;
  newName?: string | undefined;
  isPrivate?: boolean | undefined;
  isWebPublic?: boolean | undefined;
  historyPublicToSubscribers?: boolean | undefined;
  streamPostPolicy?: number | undefined;
  isAnnouncementOnly?: boolean | undefined;
  /** null: organization default; -1: unlimited; undefined: unchanged. */
  messageRetentionDays?: number | null | undefined;
  /** Stream group settings (levels 161-357): values as given, checked here. */
  groupSettings?: StreamGroupSettingChanges | undefined;
  /** Feature level 200: adds the stream to, or takes it out of, the default streams. */
  isDefaultStream?: boolean | undefined;
  /** The reported feature level (error strings that changed with it). */
  featureLevel?: number | undefined;
}

/** The feature level whose `is_default_stream` parameter came with a new string for a private default stream. */
export const DEFAULT_STREAM_PARAM = 200;

/** PATCH /streams/{id} after access was granted; Zulip's order of checks and changes. */
export async function doEditStream(tx: Tx, realm: RealmRow, acting: UserRow, start: StreamRow, e: StreamEdit): Promise<void> {
  let stream = start;
  // Level 362: an archived stream's privacy can change; nothing else of it.
  if (stream.deactivated === 1 && (e.description !== undefined || e.newName !== undefined || e.streamPostPolicy !== undefined
    || e.isAnnouncementOnly !== undefined || e.messageRetentionDays !== undefined || e.isDefaultStream !== undefined
    || Object.keys(e.groupSettings ?? {}).length > 0)) throw invalidStreamId();
  if (e.messageRetentionDays !== undefined) {
    if (acting.role !== Role.OWNER) throw mustBeOwner();
  }
  if (e.isPrivate === undefined && e.isDefaultStream === true && stream.invite_only === 1) throw privateDefault(e);
  if (e.isPrivate !== undefined || e.isWebPublic !== undefined || e.historyPublicToSubscribers !== undefined) {
    stream = await changePermission(tx, realm, acting, stream, e);
  }
  if (e.isDefaultStream !== undefined) {
    if (!isAdminRole(acting.role)) throw mustBeAdmin();
    if (e.isDefaultStream) await doAddDefaultStream(tx, stream);
    else await doRemoveDefaultStream(tx, stream);
  }
  if (e.messageRetentionDays !== undefined) stream = await doChangeStreamMessageRetentionDays(tx, stream, e.messageRetentionDays);
  if (e.description !== undefined) stream = await doChangeStreamDescription(tx, stream, e.description);
  if (e.newName !== undefined) stream = await doRenameStream(tx, stream, e.newName);
  let policy = e.streamPostPolicy;
  // The deprecated boolean maps onto the policy that replaced it.
  if (policy === undefined && e.isAnnouncementOnly !== undefined) {
    policy = e.isAnnouncementOnly ? STREAM_POST_POLICY.ADMINS : STREAM_POST_POLICY.EVERYONE;
  }
  if (policy !== undefined && policy !== stream.stream_post_policy) stream = await doChangeStreamPostPolicy(tx, stream, policy);
  const level = e.featureLevel ?? tx.featureLevel;
  for (const [key, change] of Object.entries(e.groupSettings ?? {})) {
    const name = key as StreamGroupSettingName;
    const current = streamSettingValue(stream, name);
    if (change.old !== undefined && !sameGroupSettingValue(change.old, current)) throw previousSettingValueMismatched();
    if (sameGroupSettingValue(change.new, current)) continue;
    // As Zulip 9's update_stream_backend: administrators could not change it for a private
    // stream they are not subscribed to; from level 349 metadata access suffices.
    if (name === 'can_remove_subscribers_group' && level < CHANNEL_ADMIN_METADATA_LEVEL && stream.invite_only === 1
      && !(await subscriptions.mapActiveOfUser(tx.db, acting.id, [stream.id])).has(stream.id)) throw invalidStreamId();
    const value = await accessGroupSettingValue(tx.db, acting, change.new, name, streamSettingConfig(name, level));
    stream = await doChangeStreamGroupSetting(tx, stream, name, value);
  }
}

/** From it, channel administrators change metadata without content access (Zulip's level 349). */
export const CHANNEL_ADMIN_METADATA_LEVEL = 349;

/** The string changed when `is_default_stream` came (feature level 200); the spec's before it. */
function privateDefault(e: StreamEdit) {
  return badRequest((e.featureLevel ?? 0) >= DEFAULT_STREAM_PARAM || e.isDefaultStream !== undefined
    ? 'A default stream cannot be private.' : 'Default streams cannot be made private.');
}

async function changePermission(tx: Tx, realm: RealmRow, acting: UserRow, stream: StreamRow, e: StreamEdit): Promise<StreamRow> {
  const isPrivate = e.isPrivate ?? stream.invite_only === 1;
  const isWebPublic = e.isWebPublic ?? stream.is_web_public === 1;
  let history = e.historyPublicToSubscribers;
  if (history === undefined) history = e.isPrivate !== undefined ? !e.isPrivate : stream.history_public_to_subscribers === 1;
  if (isWebPublic && !history) throw badRequest('Invalid parameters');
  if (isWebPublic && isPrivate) throw badRequest('Invalid parameters');
  if (!isPrivate && !history) throw badRequest('Invalid parameters');
  // Zulip checks the proposed state as a whole: a stream may not end up private and default.
  if (isPrivate && (e.isDefaultStream ?? (await streams.listDefaultIds(tx.db, stream.realm_id)).includes(stream.id))) throw privateDefault(e);
  // Even administrators must be subscribed to change a private stream's privacy.
  if (e.isPrivate !== undefined) await accessStreamById(tx.db, acting, stream.id, { allowArchived: stream.deactivated === 1 });
  if (e.isWebPublic === true) {
    if (!webPublicStreamsEnabled(realm)) throw badRequest('Web-public streams are not enabled.');
    if (!await hasRealmGroupPermission(tx.db, realm, acting, 'can_create_web_public_channel_group')) throw insufficientPermission();
  }
  return doChangeStreamPermission(tx, stream, { inviteOnly: isPrivate, historyPublicToSubscribers: history, isWebPublic });
}
