import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';
import { generateApiKey } from '../../lib/secrets.js';
import { WELCOME_BOT } from '../../lib/system-bots.js';

/**
 * Each existing organization gets its Welcome Bot, the system bot that greets new users
 * (organizations created from now on get it with their Notification Bot). Like 014, it
 * writes its rows directly: migrations may not depend on actions that later change.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  const realms = await db.selectFrom('realm').select(['id', 'date_created']).execute() as Array<{ id: number; date_created: number }>;
  for (const realm of realms) {
    const existing = await db.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('email_lower', '=', WELCOME_BOT.email).executeTakeFirst();
    if (existing) continue;
    const row = await db.insertInto('users').values({
      realm_id: realm.id, email: WELCOME_BOT.email, email_lower: WELCOME_BOT.email, delivery_email: WELCOME_BOT.email,
      full_name: WELCOME_BOT.fullName, password_hash: null, api_key: generateApiKey(), role: 400, is_active: 1, is_bot: 1,
      bot_type: 1, bot_owner_id: null, is_billing_admin: 0, timezone: '', date_joined: Number(realm.date_created),
      avatar_source: 'G', avatar_version: 1, settings: '{}', is_system_bot: 1,
    }).returning('id').executeTakeFirstOrThrow() as { id: number };
    await db.insertInto('recipient').values({ type: 1, type_id: row.id }).execute();
  }
}
