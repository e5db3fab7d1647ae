import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { presence } from '../store/repos/presence.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import { ACTIVE_WINDOW_SECS, modernPresence, presenceDict, type PresenceRow } from '../presenters/presence.js';
import { cachesOf } from '../cache/index.js';
import type { PresenceAnswerRow, PresenceCache } from '../cache/presence.js';

const DAY = 24 * 3600;
/** Zulip's window without history_limit_days: two weeks. */
const DEFAULT_HISTORY_DAYS = 14;

/** What a client asked for, as its server's feature level reads it. */
export interface PresenceAsk {
  slim: boolean;
  level: number;
  /** The number of the last presence the client saw (level 263): only rows written after it. */
  lastUpdateId?: number;
  /** Days of history wanted (level 288), when no `lastUpdateId` above 0 is given. */
  historyLimitDays?: number;
}

/** `presences` serialised, and `presence_last_update_id` (what the client sends next time). */
export interface PresencesAnswer { json: string; lastUpdateId: number }

/**
 * Register's `presences` and the presence endpoints' answer: every active human of the
 * organization seen in the history window (two weeks unless asked), keyed by email, or by
 * user id when `slim`; with `lastUpdateId`, only those written since (Zulip's
 * get_presence_dict_by_realm). The last update id is -1 when nothing was read.
 */
export async function presencesAnswer(q: Q, realm: RealmRow, ask: PresenceAsk, now: number): Promise<PresencesAnswer> {
  if (realmSettings(realm.settings).presence_disabled) return { json: '{}', lastUpdateId: -1 };
  const after = ask.lastUpdateId;
  if (ask.historyLimitDays === 0) return { json: '{}', lastUpdateId: after ?? -1 };
  // A client that has seen some presence needs no window: the numbers say what is new.
  const since = after === undefined || after <= 0 ? now - (ask.historyLimitDays ?? DEFAULT_HISTORY_DAYS) * DAY : -Infinity;
  const cache = cachesOf(q).presence;
  const load = () => presence.listActiveHumans(q, realm.id);
  if (after === undefined) {
    const { rows, complete } = await cache.rows(realm.id, load);
    // -1 when nothing was ever written (Zulip's value for nothing read).
    return { json: presencesFromRows(cache, rows, ask, now, since), lastUpdateId: complete > 0 ? complete : -1 };
  }
  const { rows, complete } = await cache.since(realm.id, after, load);
  return { json: presencesFromRows(cache, rows, ask, now, since), lastUpdateId: Math.max(after, complete > 0 ? complete : -1) };
}


/** The `presences` object as JSON from the organization's rows, each user's part made once per row and variant. */
export function presencesFromRows(cache: PresenceCache, rows: Iterable<PresenceAnswerRow>, ask: Pick<PresenceAsk, 'slim' | 'level'>, now: number, since: number): string {
  const modern = ask.slim && ask.level >= 178;
  const out: string[] = [];
  for (const r of rows) {
    if (r.last_connected_time < since) continue;
    // The oldest format's part changes with the clock (active, then idle); the others only with the row.
    const variant = modern ? 'modern' : ask.level >= 178 ? 'legacy' : now - r.last_active_time <= ACTIVE_WINDOW_SECS ? 'active' : 'idle';
    const part = cache.part(r, variant, () => {
      const json = JSON.stringify(modern ? modernPresence(r) : presenceDict(r, now, ask.level));
      // Users who turned presence_enabled off are never shown (Zulip's presence filter).
      return { shown: userSettings(r.settings).presence_enabled === true, byEmail: `${JSON.stringify(r.email)}:${json}`, byId: `"${r.user_id}":${json}` };
    });
    if (part.shown) out.push(ask.slim ? part.byId : part.byEmail);
  }
  return `{${out.join(',')}}`;
}

/** A user's presence, unless they hide it. */
export const presenceOf = async (q: Q, user: UserRow): Promise<PresenceRow | undefined> =>
  (userSettings(user.settings).presence_enabled ? presence.findByUser(q, user.id) : undefined);
