import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Bots' own settings (Zulip's UserProfile default_* fields and its Service model). An
 * outgoing-webhook bot has one service: the URL it is called at, the payload format
 * (`interface`: 1 Zulip's, 2 Slack's) and the token sent with each call so the endpoint
 * can tell the call is genuine. The bot's default streams are stored by id.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('bot_service');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('bot_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('interface', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('token', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bot_service_bot').on('bot_service').column('bot_id').execute();
  await db.schema.alterTable('users').addColumn('default_sending_stream_id', 'integer').execute();
  await db.schema.alterTable('users').addColumn('default_events_register_stream_id', 'integer').execute();
  await db.schema.alterTable('users').addColumn('default_all_public_streams', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
