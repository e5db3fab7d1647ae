import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { sessions } from '../store/repos/sessions.js';
import { badRequest } from '../errors.js';
import { checkNotLastOwner } from './user-update.js';
import { notifyRealmUser, personForEvent } from './user-notify.js';
import { notifyPeersOfDeactivatedUser } from './subscription-remove.js';

export async function doDeactivateUser(tx: Tx, target: UserRow): Promise<void> {
  if (target.is_active !== 1) throw badRequest('User is deactivated');
  await checkNotLastOwner(tx, target, 'Cannot deactivate the only organization owner');
  // Notify while the user still counts as active so their own clients learn of it too.
  await notifyRealmUser(tx, target.realm_id, 'remove', { user_id: target.id, full_name: target.full_name });
  await users.update(tx.db, target.id, { is_active: 0 });
  // Bots owned by a deactivated human stop too, as in Zulip.
  if (target.is_bot === 0) {
    for (const bot of await users.listActiveBotsOfOwner(tx.db, target.id)) await doDeactivateUser(tx, bot);
  }
  await notifyPeersOfDeactivatedUser(tx, { ...target, is_active: 0 });
}

export async function doReactivateUser(tx: Tx, _realm: RealmRow, target: UserRow): Promise<void> {
  if (target.is_active === 1) throw badRequest('User is already active');
  // A deactivated user's web sessions end when next used (answering "Account is deactivated",
  // web-contract.md); any left unused must not come back to life with the account.
  await sessions.deleteByUserId(tx.db, target.id);
  await users.update(tx.db, target.id, { is_active: 1 });
  await notifyRealmUser(tx, target.realm_id, 'add', personForEvent({ ...target, is_active: 1 }), target.delivery_email);
}
