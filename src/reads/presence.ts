import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { presence } from '../store/repos/presence.js';
import { realmSettings } from '../lib/realm-settings.js';
import { presenceDict, type PresenceRow } from '../presenters/presence.js';

const TWO_WEEKS = 14 * 24 * 3600;

/**
 * Register's `presences` and the presence endpoints' answer: every active human of the
 * organization seen in the last two weeks, keyed by email, or by user id when `slim`.
 */
export async function presencesForRealm(q: Q, realm: RealmRow, slim: boolean, now: number): Promise<Record<string, unknown>> {
  if (realmSettings(realm.settings).presence_disabled) return {};
  const rows = await presence.listActiveHumansSince(q, realm.id, now - TWO_WEEKS);
  const out: Record<string, unknown> = {};
  for (const r of rows) out[slim ? String(r.user_id) : r.email] = presenceDict(r, now);
  return out;
}

export const presenceOf = (q: Q, user: UserRow): Promise<PresenceRow | undefined> => presence.findByUser(q, user.id);
