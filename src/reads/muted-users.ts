import type { Q } from '../store/rows.js';
import { mutedUsers } from '../store/repos/muted-users.js';
import { cachedRead } from '../cache/index.js';
import { presentMutedUsers } from '../presenters/user-status.js';

/** register's `muted_users`. */
export const mutedUsersOf = async (q: Q, userId: number): Promise<Array<{ id: number; timestamp: number }>> =>
  presentMutedUsers(await mutedUsers.listOfUser(q, userId));

/**
 * Every mute of the realm by muted user, as each send needs it (Zulip's get_muting_users):
 * one query per realm until a mute changes, so a send pays nothing for it in the common
 * case. Shared, not to be changed.
 */
export const realmMuters = (q: Q, realmId: number): Promise<ReadonlyMap<number, ReadonlySet<number>>> =>
  cachedRead(q, (c) => c.realmMuters, realmId, () => mutedUsers.mutersOfRealm(q, realmId));
