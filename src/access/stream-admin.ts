import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { cannotAdministerChannel, invalidStreamId, mustBeStreamAdmin } from '../errors.js';
import { isAdminRole } from '../lib/roles.js';
import { canSeeStream, type StreamAccess } from './stream.js';
import { METADATA_ACCESS_VIA_GROUPS_LEVEL, contentGroupsFor } from './channel-access.js';
import { userHasGroupSettingValue } from './group-setting.js';
import { STREAM_PERMISSION_SETTINGS } from '../lib/permission-settings.js';
import { streamSettingValue } from '../lib/stream-group-settings.js';
import { realmSettings } from '../lib/realm-settings.js';

/** From it, members of a stream's can_administer_channel_group administer it (Zulip 10). */
export const CHANNEL_ADMIN_LEVEL = 325;

/**
 * Access for editing or archiving a stream (Zulip's access_stream_for_delete_or_update):
 * administrators reach every stream of their organization; from level 325 so do the
 * members of its can_administer_channel_group who may see it, and archived streams can be
 * edited (level 362); anyone else learns only that they are not an administrator, and
 * only about streams they can see.
 */
export async function accessStreamForUpdate(q: Q, user: UserRow, streamId: number, featureLevel = 0, realm?: RealmRow): Promise<StreamAccess> {
  const archivedToo = featureLevel >= 362;
  const stream = archivedToo ? await streams.findInRealmAny(q, user.realm_id, streamId) : await streams.findInRealm(q, user.realm_id, streamId);
  if (!stream) throw invalidStreamId();
  const sub = (await subscriptions.findActive(q, user.id, stream.id)) ?? null;
  if (isAdminRole(user.role)) return { stream, sub };
  const waiting = realm ? realmSettings(realm.settings).waiting_period_threshold : 0;
  const isChannelAdmin = () => userHasGroupSettingValue(q, user, streamSettingValue(stream, 'can_administer_channel_group'),
    STREAM_PERMISSION_SETTINGS.can_administer_channel_group, waiting);
  if (featureLevel >= METADATA_ACCESS_VIA_GROUPS_LEVEL) {
    // Zulip's check_stream_access_for_delete_or_update_requiring_metadata_access: channel
    // administrators need no content access; others learn they are no administrator only
    // where they have content access (through the stream's groups too).
    if (await isChannelAdmin()) return { stream, sub };
    if (canSeeStream(user, stream, sub, archivedToo, await contentGroupsFor(q, user, featureLevel))) throw cannotAdministerChannel();
    throw invalidStreamId();
  }
  if (!canSeeStream(user, stream, sub, archivedToo)) throw invalidStreamId();
  if (featureLevel < CHANNEL_ADMIN_LEVEL) throw mustBeStreamAdmin();
  if (await isChannelAdmin()) return { stream, sub };
  throw cannotAdministerChannel();
}
