import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { badRequest } from '../errors.js';
import { nowSeconds } from '../lib/time.js';
import { Role } from '../lib/roles.js';
import { doCreateUser } from './user-create.js';
import { doCreateSystemBots } from './system-bots.js';
import { doCreateSystemGroups } from './system-groups.js';
import { doCreateStarterStream } from './welcome.js';

export function checkStringId(stringId: string): string {
  if (stringId !== '' && !/^[a-z0-9][a-z0-9-]{0,39}$/.test(stringId)) {
    throw badRequest('Subdomain can only have lowercase letters, numbers, and \'-\'s.');
  }
  return stringId;
}

export async function doCreateRealm(
  tx: Tx,
  input: {
    stringId: string; name: string; ownerEmail: string; ownerPassword: string; ownerFullName?: string;
    /**
     * false: an empty organization, without #general or the Welcome Bot's messages (its
     * send_welcome_emails is off). For tests that count streams and messages; servers keep
     * the default.
     */
    welcome?: boolean;
  },
): Promise<{ realm: RealmRow; owner: UserRow }> {
  const stringId = checkStringId(input.stringId);
  if (await realms.findByStringId(tx.db, stringId)) throw badRequest('Subdomain unavailable. Please choose a different one.');
  const welcome = input.welcome ?? true;
  const id = await realms.insert(tx.db, {
    string_id: stringId, name: input.name, description: '', settings: welcome ? '{}' : JSON.stringify({ send_welcome_emails: false }),
    deactivated: 0, date_created: nowSeconds(),
  });
  const realm = (await realms.findById(tx.db, id))!;
  await doCreateSystemGroups(tx, realm.id);
  await doCreateSystemBots(tx, realm);
  if (welcome) await doCreateStarterStream(tx, realm);
  const owner = await doCreateUser(tx, realm, {
    email: input.ownerEmail, fullName: input.ownerFullName ?? input.ownerEmail.split('@')[0]!, password: input.ownerPassword, role: Role.OWNER,
  });
  return { realm, owner };
}

export async function doDeactivateRealm(tx: Tx, realm: RealmRow): Promise<void> {
  await realms.update(tx.db, realm.id, { deactivated: 1 });
}
