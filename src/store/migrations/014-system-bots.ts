import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';
import { generateApiKey } from '../../lib/secrets.js';
import { NOTIFICATION_BOT } from '../../lib/system-bots.js';

/**
 * Each organization gets its Notification Bot (Zulip's system bot that writes move
 * breadcrumbs and announcements). Zulip keeps such bots in an internal realm; Parley keeps
 * one per organization, marked is_system_bot so that user lists leave it out as Zulip's
 * do and register lists it under cross_realm_bots.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN is_system_bot INTEGER NOT NULL DEFAULT 0`.execute(db);
  const realms = await db.selectFrom('realm').select(['id', 'date_created']).execute() as Array<{ id: number; date_created: number }>;
  for (const realm of realms) {
    const row = await db.insertInto('users').values({
      realm_id: realm.id, email: NOTIFICATION_BOT.email, email_lower: NOTIFICATION_BOT.email, delivery_email: NOTIFICATION_BOT.email,
      full_name: NOTIFICATION_BOT.fullName, password_hash: null, api_key: generateApiKey(), role: 400, is_active: 1, is_bot: 1,
      bot_type: 1, bot_owner_id: null, is_billing_admin: 0, timezone: '', date_joined: Number(realm.date_created),
      avatar_source: 'G', avatar_version: 1, settings: '{}', is_system_bot: 1,
    }).returning('id').executeTakeFirstOrThrow() as { id: number };
    await db.insertInto('recipient').values({ type: 1, type_id: row.id }).execute();
  }
}
