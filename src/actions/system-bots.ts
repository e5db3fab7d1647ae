import type { Tx } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { recipients } from '../store/repos/recipients.js';
import { RecipientType } from '../lib/recipient-type.js';
import { generateApiKey } from '../lib/secrets.js';
import { SYSTEM_BOTS } from '../lib/system-bots.js';
import { Role } from '../lib/roles.js';

/**
 * A new organization's system bots, Notification Bot and Welcome Bot (migrations 014 and
 * 019 gave existing ones theirs). Not a doCreateUser: they join no streams and nobody is
 * told, as Zulip's cross-realm bots.
 */
export async function doCreateSystemBots(tx: Tx, realm: RealmRow): Promise<void> {
  for (const bot of SYSTEM_BOTS) {
    const id = await users.insert(tx.db, {
      realm_id: realm.id, email: bot.email, email_lower: bot.email.toLowerCase(),
      delivery_email: bot.email, full_name: bot.fullName, password_hash: null,
      api_key: generateApiKey(), role: Role.MEMBER, is_active: 1, is_bot: 1, bot_type: 1, bot_owner_id: null,
      is_billing_admin: 0, timezone: '', date_joined: realm.date_created, avatar_source: 'G', avatar_version: 1,
      settings: '{}', is_system_bot: 1,
    });
    await recipients.insert(tx.db, RecipientType.PERSONAL, id);
  }
}
