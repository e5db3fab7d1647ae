import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { presence } from '../store/repos/presence.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import type { PresenceRow } from '../presenters/presence.js';
import { cachesOf } from '../cache/index.js';

const TWO_WEEKS = 14 * 24 * 3600;

/**
 * Register's `presences` and the presence endpoints' answer: every active human of the
 * organization seen in the last two weeks, keyed by email, or by user id when `slim`.
 */
export async function presencesJson(q: Q, realm: RealmRow, slim: boolean, now: number): Promise<string> {
  if (realmSettings(realm.settings).presence_disabled) return '{}';
  // Users who turned presence_enabled off are never shown (Zulip's presence filter).
  return cachesOf(q).presence.answer(realm.id, slim, now, now - TWO_WEEKS, () => presence.listActiveHumansSince(q, realm.id, now - TWO_WEEKS));
}

/** A user's presence, unless they hide it. */
export const presenceOf = async (q: Q, user: UserRow): Promise<PresenceRow | undefined> =>
  (userSettings(user.settings).presence_enabled ? presence.findByUser(q, user.id) : undefined);
