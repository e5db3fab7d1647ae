import type { Q } from '../store/rows.js';
import { userStatuses } from '../store/repos/user-status.js';
import { AWAY_IS_PRESENCE_LEVEL, userSettings } from '../lib/user-settings.js';
import { presentUserStatus, type UserStatusInfo } from '../presenters/user-status.js';
import { cachedRead } from '../cache/index.js';
import { shareSerialization } from '../presenters/shared-json.js';

/**
 * register's `user_status`: each active user's status that says anything, keyed by user id
 * string. The same for everyone in the organization: made once per change of a status or a
 * user, shared and never modified.
 */
export const userStatusDict = (q: Q, realmId: number, featureLevel: number): Promise<Readonly<Record<string, UserStatusInfo>>> =>
  cachedRead(q, (c) => c.registerUserStatuses, `${realmId}:${featureLevel}`, async () => shareSerialization(await readUserStatusDict(q, realmId, featureLevel)));

async function readUserStatusDict(q: Q, realmId: number, featureLevel: number): Promise<Record<string, UserStatusInfo>> {
  const out: Record<string, UserStatusInfo> = {};
  for (const row of await userStatuses.listByRealm(q, realmId)) {
    // Level 148 (Zulip's format_user_status): `away` is !presence_enabled, the stored flag unused.
    const away = featureLevel >= AWAY_IS_PRESENCE_LEVEL ? (userSettings(row.user_settings).presence_enabled ? 0 : 1) : row.away;
    const status = presentUserStatus({ ...row, away });
    if (Object.keys(status).length > 0) out[String(row.user_id)] = status;
  }
  return out;
}

/** GET /users/{user_id}/status (feature level 262, Zulip's get_user_status): the user's status, {} when never set. */
export async function userStatusOf(q: Q, userId: number): Promise<UserStatusInfo> {
  const row = await userStatuses.findByUser(q, userId);
  return row ? presentUserStatus(row) : {};
}
