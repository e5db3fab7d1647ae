import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { presentUser, canSeeDeliveryEmail } from '../presenters/user.js';
import { realms } from '../store/repos/realms.js';
import type { RealmUserEvent } from '../events/types.js';
import type { WireUser } from '../schemas/wire.js';

/**
 * realm_user events go to every active user of the organization. A new user's
 * delivery_email goes only to those allowed to see it, as in their register state.
 */
export async function notifyRealmUser(tx: Tx, realmId: number, op: 'add', person: WireUser, deliveryEmail?: string): Promise<void>;
export async function notifyRealmUser<Op extends 'update' | 'remove'>(tx: Tx, realmId: number, op: Op, person: Extract<RealmUserEvent, { op: Op }>['person']): Promise<void>;
export async function notifyRealmUser(tx: Tx, realmId: number, op: RealmUserEvent['op'], person: RealmUserEvent['person'], deliveryEmail?: string): Promise<void> {
  // The overloads pair each op with its person; the union of pairs is not one TypeScript can check here.
  const event = (p: RealmUserEvent['person']) => ({ type: 'realm_user', op, person: p }) as RealmUserEvent;
  const recipients = await users.listActiveIdsInRealm(tx.db, realmId);
  if (deliveryEmail === undefined) {
    tx.notify(event(person), recipients, realmId);
    return;
  }
  const realm = (await realms.findById(tx.db, realmId))!;
  const viewers = await users.listByIds(tx.db, recipients);
  const allowed = viewers.filter((v) => canSeeDeliveryEmail(v, realm)).map((v) => v.id);
  const others = viewers.filter((v) => !canSeeDeliveryEmail(v, realm)).map((v) => v.id);
  tx.notify(event({ ...person, delivery_email: deliveryEmail }), allowed, realmId);
  tx.notify(event(person), others, realmId);
}

export function personForEvent(u: UserRow): WireUser {
  return presentUser(u, { clientGravatar: false, showDeliveryEmail: false, profileData: {} });
}
