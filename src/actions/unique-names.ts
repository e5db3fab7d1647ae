import type { Tx } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { realms } from '../store/repos/realms.js';
import { realmSettings } from '../lib/realm-settings.js';
import { badRequest } from '../errors.js';

/** Python's NFKC + casefold, closely enough: upper- then lower-casing folds ß to ss as casefold does. */
const fold = (name: string) => name.normalize('NFKC').toUpperCase().toLowerCase();

/**
 * Level 246's require_unique_names (Zulip's check_full_name with a realm): no two users of
 * the organization, bots and deactivated users included, share a name up to NFKC and case.
 */
export async function checkNameUnique(tx: Tx, realmId: number, fullName: string, exceptUserId?: number): Promise<void> {
  const realm: RealmRow | undefined = await realms.findById(tx.db, realmId);
  if (!realm || !realmSettings(realm.settings).require_unique_names) return;
  const wanted = fold(fullName);
  const taken = (await users.listByRealm(tx.db, realmId)).some((u) => u.id !== exceptUserId && fold(u.full_name) === wanted);
  if (taken) throw badRequest('Unique names required in this organization.');
}
