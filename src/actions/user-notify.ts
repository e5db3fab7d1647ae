import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { presentUser, canSeeDeliveryEmail } from '../presenters/user.js';
import { realms } from '../store/repos/realms.js';

/**
 * realm_user events go to every active user of the organization. A new user's
 * delivery_email goes only to those allowed to see it, as in their register state.
 */
export async function notifyRealmUser(tx: Tx, realmId: number, op: 'add' | 'update' | 'remove', person: Record<string, unknown>, deliveryEmail?: string): Promise<void> {
  const recipients = await users.listActiveIdsInRealm(tx.db, realmId);
  if (deliveryEmail === undefined) {
    tx.notify({ type: 'realm_user', op, person }, recipients, realmId);
    return;
  }
  const realm = (await realms.findById(tx.db, realmId))!;
  const viewers = await users.listByIds(tx.db, recipients);
  const allowed = viewers.filter((v) => canSeeDeliveryEmail(v, realm)).map((v) => v.id);
  const others = viewers.filter((v) => !canSeeDeliveryEmail(v, realm)).map((v) => v.id);
  tx.notify({ type: 'realm_user', op, person: { ...person, delivery_email: deliveryEmail } }, allowed, realmId);
  tx.notify({ type: 'realm_user', op, person }, others, realmId);
}

export function personForEvent(u: UserRow): Record<string, unknown> {
  return presentUser(u, { clientGravatar: false, showDeliveryEmail: false, profileData: {} });
}
