import type { Tx } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { generateApiKey } from '../lib/secrets.js';
import { NOTIFICATION_BOT } from '../lib/system-bots.js';
import { Role } from '../lib/roles.js';

/**
 * A new organization's system bots (migration 014 gave existing ones theirs). Not a
 * doCreateUser: they join no streams and nobody is told, as Zulip's cross-realm bots.
 */
export async function doCreateSystemBots(tx: Tx, realm: RealmRow): Promise<void> {
  const id = await users.insert(tx.db, {
    realm_id: realm.id, email: NOTIFICATION_BOT.email, email_lower: NOTIFICATION_BOT.email.toLowerCase(),
    delivery_email: NOTIFICATION_BOT.email, full_name: NOTIFICATION_BOT.fullName, password_hash: null,
    api_key: generateApiKey(), role: Role.MEMBER, is_active: 1, is_bot: 1, bot_type: 1, bot_owner_id: null,
    is_billing_admin: 0, timezone: '', date_joined: realm.date_created, avatar_source: 'G', avatar_version: 1,
    settings: '{}', is_system_bot: 1,
  });
  await tx.db.insertInto('recipient').values({ type: 1, type_id: id }).execute();
}
