import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { presence } from '../store/repos/presence.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import { ACTIVE_WINDOW_SECS, presenceDict, type PresenceRow } from '../presenters/presence.js';
import { cachesOf } from '../cache/index.js';
import type { PresenceAnswerRow, PresenceCache } from '../cache/presence.js';

const TWO_WEEKS = 14 * 24 * 3600;

/**
 * Register's `presences` and the presence endpoints' answer: every active human of the
 * organization seen in the last two weeks, keyed by email, or by user id when `slim`.
 */
export async function presencesJson(q: Q, realm: RealmRow, slim: boolean, now: number): Promise<string> {
  if (realmSettings(realm.settings).presence_disabled) return '{}';
  const since = now - TWO_WEEKS;
  const cache = cachesOf(q).presence;
  return presencesFromRows(cache, await cache.rows(realm.id, () => presence.listActiveHumansSince(q, realm.id, since)), slim, now, since);
}

/** The `presences` object as JSON from the organization's rows, each user's part made once per row and status. */
export function presencesFromRows(cache: PresenceCache, rows: Iterable<PresenceAnswerRow>, slim: boolean, now: number, since: number): string {
  const out: string[] = [];
  for (const r of rows) {
    if (r.last_connected_time < since) continue;
    // A part is the same while the row is and the user stays active (or idle).
    const part = cache.part(r, now - r.last_active_time <= ACTIVE_WINDOW_SECS ? 'active' : 'idle', () => {
      const json = JSON.stringify(presenceDict(r, now));
      // Users who turned presence_enabled off are never shown (Zulip's presence filter).
      return { shown: userSettings(r.settings).presence_enabled === true, byEmail: `${JSON.stringify(r.email)}:${json}`, byId: `"${r.user_id}":${json}` };
    });
    if (part.shown) out.push(slim ? part.byId : part.byEmail);
  }
  return `{${out.join(',')}}`;
}

/** A user's presence, unless they hide it. */
export const presenceOf = async (q: Q, user: UserRow): Promise<PresenceRow | undefined> =>
  (userSettings(user.settings).presence_enabled ? presence.findByUser(q, user.id) : undefined);
