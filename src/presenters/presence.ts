import type { WireClientPresence, WirePresence } from '../schemas/wire.js';

/** Zulip's thresholds: a user idle for over two minutes shows as idle; silent for 140 s, offline. */
export const ACTIVE_WINDOW_SECS = 120;
export const OFFLINE_THRESHOLD_SECS = 140;

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

export function presenceDict(row: PresenceRow, now: number): WirePresence {
  const info = clientPresence(row, now);
  return { [info.client]: info, aggregated: { client: info.client, status: info.status, timestamp: info.timestamp } };
}

/** The presence endpoints' answer, around `presences` already serialised (src/reads/presence.ts). */
export const presenceAnswerJson = (presences: string, serverTimestamp: number): string =>
  `{"result":"success","msg":"","presences":${presences},"server_timestamp":${JSON.stringify(serverTimestamp)}}`;
