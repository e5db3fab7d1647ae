import type { Q } from '../store/rows.js';
import { userStatuses } from '../store/repos/user-status.js';
import { presentUserStatus, type UserStatusInfo } from '../presenters/user-status.js';

/** register's `user_status`: each active user's status that says anything, keyed by user id string. */
export async function userStatusDict(q: Q, realmId: number): Promise<Record<string, UserStatusInfo>> {
  const out: Record<string, UserStatusInfo> = {};
  for (const row of await userStatuses.listByRealm(q, realmId)) out[String(row.user_id)] = presentUserStatus(row);
  return out;
}

/** GET /users/{user_id}/status (feature level 262, Zulip's get_user_status): the user's status, {} when never set. */
export async function userStatusOf(q: Q, userId: number): Promise<UserStatusInfo> {
  const row = await userStatuses.findByUser(q, userId);
  return row ? presentUserStatus(row) : {};
}
