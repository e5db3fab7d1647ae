import type { Q } from '../store/rows.js';
import { userStatuses } from '../store/repos/user-status.js';
import { presentUserStatus, type UserStatusInfo } from '../presenters/user-status.js';

/** register's `user_status`: each active user's status that says anything, keyed by user id string. */
export async function userStatusDict(q: Q, realmId: number): Promise<Record<string, UserStatusInfo>> {
  const out: Record<string, UserStatusInfo> = {};
  for (const row of await userStatuses.listByRealm(q, realmId)) out[String(row.user_id)] = presentUserStatus(row);
  return out;
}
