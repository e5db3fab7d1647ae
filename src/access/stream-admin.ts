import type { Q, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { invalidStreamId, mustBeStreamAdmin } from '../errors.js';
import { isAdminRole } from '../lib/roles.js';
import { canSeeStream, type StreamAccess } from './stream.js';

/**
 * Access for editing or archiving a stream (Zulip's access_stream_for_delete_or_update):
 * administrators reach every stream of their organization; anyone else learns only
 * that they are not an administrator, and only about streams they can see.
 */
export async function accessStreamForUpdate(q: Q, user: UserRow, streamId: number): Promise<StreamAccess> {
  const stream = await streams.findInRealm(q, user.realm_id, streamId);
  if (!stream) throw invalidStreamId();
  const sub = (await subscriptions.findActive(q, user.id, stream.id)) ?? null;
  if (isAdminRole(user.role)) return { stream, sub };
  if (!canSeeStream(user, stream, sub)) throw invalidStreamId();
  throw mustBeStreamAdmin();
}
