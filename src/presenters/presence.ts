import type { WireClientPresence, WireModernPresence, WirePresence } from '../schemas/wire.js';

/** Zulip's thresholds: a user idle for over two minutes shows as idle; silent for 140 s, offline. */
export const ACTIVE_WINDOW_SECS = 120;
export const OFFLINE_THRESHOLD_SECS = 140;
/**
 * Zulip 7.0's legacy format (feature level 178): active when the last activity is within
 * this many seconds of the last connection (PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS).
 */
export const LEGACY_ACTIVITY_OFFSET_SECS = 70;
/** From feature level 178, Zulip stores no client: the legacy format names every entry `website`. */
export const LEGACY_CLIENT = 'website';

export interface PresenceRow {
  user_id: number;
  client: string;
  last_active_time: number;
  last_connected_time: number;
}

export type ClientPresence = WireClientPresence;

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

/** The legacy entry as Zulip 7.0 makes it from one row per user (format_legacy_presence_dict): no clock, one `website` client. */
export function legacyClientPresence(row: PresenceRow): ClientPresence {
  const active = row.last_active_time + LEGACY_ACTIVITY_OFFSET_SECS >= row.last_connected_time;
  return { client: LEGACY_CLIENT, status: active ? 'active' : 'idle', timestamp: active ? row.last_active_time : row.last_connected_time, pushable: false };
}

/** A user's legacy entry: the client's, and `aggregated` (Zulip: "really just the most recent client's info"); Zulip 7.0's from level 178. */
export function presenceDict(row: PresenceRow, now: number, level: number): WirePresence {
  const info = level >= 178 ? legacyClientPresence(row) : clientPresence(row, now);
  return { [info.client]: info, aggregated: { client: info.client, status: info.status, timestamp: info.timestamp } };
}

/** The modern per-user entry (slim_presence from level 178). */
export const modernPresence = (row: PresenceRow): WireModernPresence =>
  ({ active_timestamp: row.last_active_time, idle_timestamp: row.last_connected_time });

/** The presence endpoints' answer, around `presences` already serialised (src/reads/presence.ts); `lastUpdateId` from level 263. */
export const presenceAnswerJson = (presences: string, serverTimestamp: number, lastUpdateId?: number): string =>
  `{"result":"success","msg":"","presences":${presences},"server_timestamp":${JSON.stringify(serverTimestamp)}`
  + `${lastUpdateId === undefined ? '' : `,"presence_last_update_id":${lastUpdateId}`}}`;
