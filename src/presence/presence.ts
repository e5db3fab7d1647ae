import type { Q, RealmRow } from '../store/rows.js';
import { realmSettings } from '../lib/realm-settings.js';

/** Zulip's thresholds: a user idle for over two minutes shows as idle; silent for 140 s, offline. */
export const ACTIVE_WINDOW_SECS = 120;
export const OFFLINE_THRESHOLD_SECS = 140;
const TWO_WEEKS = 14 * 24 * 3600;

export interface PresenceRow {
  user_id: number;
  client: string;
  last_active_time: number;
  last_connected_time: number;
}

export interface ClientPresence {
  client: string;
  status: 'active' | 'idle';
  timestamp: number;
  pushable: boolean;
}

/** The legacy per-client entry Zulip clients at this feature level read. */
export function clientPresence(row: PresenceRow, now: number): ClientPresence {
  const active = now - row.last_active_time <= ACTIVE_WINDOW_SECS;
  return {
    client: row.client,
    status: active ? 'active' : 'idle',
    timestamp: active ? row.last_active_time : row.last_connected_time,
    pushable: false,
  };
}

export function presenceDict(row: PresenceRow, now: number): Record<string, unknown> {
  const info = clientPresence(row, now);
  return { [info.client]: info, aggregated: { client: info.client, status: info.status, timestamp: info.timestamp } };
}

/**
 * Register's `presences` and the presence endpoints' answer: every active human of the
 * organization seen in the last two weeks, keyed by email, or by user id when `slim`.
 */
export async function presencesForRealm(q: Q, realm: RealmRow, slim: boolean, now: number): Promise<Record<string, unknown>> {
  if (realmSettings(realm.settings).presence_disabled) return {};
  const rows = await q.selectFrom('user_presence').innerJoin('users', 'users.id', 'user_presence.user_id')
    .select(['user_presence.user_id', 'user_presence.client', 'user_presence.last_active_time', 'user_presence.last_connected_time', 'users.email'])
    .where('user_presence.realm_id', '=', realm.id).where('user_presence.last_connected_time', '>=', now - TWO_WEEKS)
    .where('users.is_active', '=', 1).where('users.is_bot', '=', 0).execute();
  const out: Record<string, unknown> = {};
  for (const r of rows) out[slim ? String(r.user_id) : r.email] = presenceDict(r, now);
  return out;
}
