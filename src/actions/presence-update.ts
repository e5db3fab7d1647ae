import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { presence } from '../store/repos/presence.js';
import { presenceStored } from '../cache/retire.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import { badRequest } from '../errors.js';
import { clientPresence, OFFLINE_THRESHOLD_SECS, ACTIVE_WINDOW_SECS, type PresenceRow } from '../presenters/presence.js';

export function checkPresenceStatus(status: string): 'active' | 'idle' {
  if (status !== 'active' && status !== 'idle') throw badRequest(`Invalid status: ${status}`);
  return status;
}

/**
 * Records a client's report. Everyone in the organization hears about it only when it
 * changes what they would display: the user came online, or went from idle to active.
 */
export async function doUpdatePresence(tx: Tx, realm: RealmRow, user: UserRow, status: 'active' | 'idle', client: string, now: number): Promise<void> {
  const prev = await presence.findByUser(tx.db, user.id);
  const next: PresenceRow = {
    user_id: user.id,
    client,
    last_connected_time: now,
    last_active_time: status === 'active' ? now : (prev?.last_active_time ?? 0),
  };
  // An idle report keeps the stored last activity.
  const lastUpdateId = await presence.upsert(tx.db, realm.id, next, status === 'active');
  // The answer lists active humans only, as its query does; every write is counted (its number).
  const listed = user.is_bot === 0 && user.is_active === 1;
  tx.later(async (ctx) => presenceStored(ctx, realm.id, { ...next, last_update_id: lastUpdateId, email: user.email, settings: user.settings }, listed));
  // Stored either way, so that turning presence back on shows the latest; told to nobody while hidden.
  if (realmSettings(realm.settings).presence_disabled || !userSettings(user.settings).presence_enabled) return;
  const cameOnline = !prev || now - prev.last_connected_time > OFFLINE_THRESHOLD_SECS;
  const becameActive = status === 'active' && !!prev && now - prev.last_active_time > ACTIVE_WINDOW_SECS;
  if (!cameOnline && !becameActive) return;
  const info = clientPresence(next, now);
  tx.notify({
    type: 'presence', user_id: user.id, email: user.email, server_timestamp: now,
    presence: { [info.client]: info },
  }, await users.listActiveIdsInRealm(tx.db, realm.id), realm.id);
}
