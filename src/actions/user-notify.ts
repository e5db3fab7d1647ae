import type { Tx } from '../store/tx.js';
import type { UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { presentUser } from '../presenters/user.js';

/** realm_user events go to every active user of the organization. */
export async function notifyRealmUser(tx: Tx, realmId: number, op: 'add' | 'update' | 'remove', person: Record<string, unknown>): Promise<void> {
  const recipients = await users.listActiveIdsInRealm(tx.db, realmId);
  tx.notify({ type: 'realm_user', op, person }, recipients, realmId);
}

export function personForEvent(u: UserRow): Record<string, unknown> {
  return presentUser(u, { clientGravatar: false, showDeliveryEmail: false, profileData: {} });
}
