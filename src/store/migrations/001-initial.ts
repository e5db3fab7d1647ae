import { sql, type Kysely, type CreateTableBuilder } from 'kysely';
import type { Dialect } from './index.js';

/**
 * The whole schema in one step. Column types are chosen to mean the same on both
 * engines (integers for booleans, bigint for UNIX times); only the id columns and
 * full-text search differ, and only here.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const idTable = (name: string) => {
    const t = db.schema.createTable(name);
    return dialect === 'postgres'
      ? t.addColumn('id', 'serial', (c) => c.primaryKey())
      : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  };
  const exec = (b: CreateTableBuilder<any, any>) => b.execute();

  await exec(idTable('realm')
    .addColumn('string_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_created', 'bigint', (c) => c.notNull()));

  await exec(idTable('users')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realm.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_lower', 'text', (c) => c.notNull())
    .addColumn('delivery_email', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('api_key', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_bot', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot_type', 'integer')
    .addColumn('bot_owner_id', 'integer')
    .addColumn('is_billing_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('date_joined', 'bigint', (c) => c.notNull())
    .addColumn('avatar_source', 'text', (c) => c.notNull().defaultTo('G'))
    .addColumn('avatar_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}')));
  await db.schema.createIndex('users_realm_email').unique().on('users').columns(['realm_id', 'email_lower']).execute();

  await exec(idTable('recipient')
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('type_id', 'integer', (c) => c.notNull()));
  await db.schema.createIndex('recipient_type').unique().on('recipient').columns(['type', 'type_id']).execute();

  await exec(idTable('huddle')
    .addColumn('huddle_hash', 'text', (c) => c.notNull().unique())
    .addColumn('recipient_id', 'integer'));

  await exec(idTable('stream')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realm.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('rendered_description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('invite_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_web_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('history_public_to_subscribers', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('stream_post_policy', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('message_retention_days', 'integer')
    .addColumn('date_created', 'bigint', (c) => c.notNull())
    .addColumn('first_message_id', 'integer')
    .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recipient_id', 'integer')
    .addColumn('email_token', 'text', (c) => c.notNull()));
  await db.schema.createIndex('stream_realm_name').unique().on('stream').columns(['realm_id', 'name_lower']).execute();

  await exec(idTable('subscription')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_muted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('pin_to_top', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('desktop_notifications', 'integer')
    .addColumn('audible_notifications', 'integer')
    .addColumn('push_notifications', 'integer')
    .addColumn('email_notifications', 'integer')
    .addColumn('wildcard_mentions_notify', 'integer'));
  await db.schema.createIndex('subscription_user_stream').unique().on('subscription').columns(['user_id', 'stream_id']).execute();
  await db.schema.createIndex('subscription_stream').on('subscription').columns(['stream_id', 'active']).execute();

  await db.schema.createTable('default_stream')
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('default_stream_pk', ['realm_id', 'stream_id'])
    .execute();

  await db.schema.createTable('muted_topic')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('topic_lower', 'text', (c) => c.notNull())
    .addColumn('date_muted', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('muted_topic_pk', ['user_id', 'stream_id', 'topic_lower'])
    .execute();

  await exec(idTable('message')
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('sender_id', 'integer', (c) => c.notNull())
    .addColumn('recipient_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer')
    .addColumn('topic', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('topic_lower', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rendered_content', 'text', (c) => c.notNull())
    .addColumn('rendered_content_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('date_sent', 'bigint', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('last_edit_time', 'bigint')
    .addColumn('edit_history', 'text')
    .addColumn('is_me_message', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_link', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_image', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_attachment', 'integer', (c) => c.notNull().defaultTo(0)));
  await db.schema.createIndex('message_stream').on('message').columns(['stream_id', 'id']).execute();
  await db.schema.createIndex('message_stream_topic').on('message').columns(['stream_id', 'topic_lower', 'id']).execute();
  await db.schema.createIndex('message_recipient').on('message').columns(['recipient_id', 'id']).execute();
  await db.schema.createIndex('message_sender').on('message').columns(['sender_id', 'id']).execute();
  await db.schema.createIndex('message_realm').on('message').columns(['realm_id', 'id']).execute();

  await db.schema.createTable('user_message')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('user_message_pk', ['user_id', 'message_id'])
    .execute();
  await db.schema.createIndex('user_message_message').on('user_message').columns(['message_id']).execute();
  // Partial indexes as Zulip keeps them: unread, starred, mentioned and private rows are few.
  await sql`CREATE INDEX user_message_unread ON user_message (user_id, message_id) WHERE (flags & 1) = 0`.execute(db);
  await sql`CREATE INDEX user_message_starred ON user_message (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_mentioned ON user_message (user_id, message_id) WHERE (flags & 24) <> 0`.execute(db);
  await sql`CREATE INDEX user_message_private ON user_message (user_id, message_id) WHERE (flags & 2048) <> 0`.execute(db);

  await exec(idTable('reaction')
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('emoji_name', 'text', (c) => c.notNull())
    .addColumn('emoji_code', 'text', (c) => c.notNull())
    .addColumn('reaction_type', 'text', (c) => c.notNull()));
  await db.schema.createIndex('reaction_unique').unique().on('reaction')
    .columns(['message_id', 'user_id', 'reaction_type', 'emoji_code']).execute();

  await exec(idTable('alert_word')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('word', 'text', (c) => c.notNull()));
  await db.schema.createIndex('alert_word_user').unique().on('alert_word').columns(['user_id', 'word']).execute();

  // Full-text search over topic and raw content, kept in step by the engine itself.
  if (dialect === 'postgres') {
    await sql`ALTER TABLE message ADD COLUMN search_tsv tsvector
      GENERATED ALWAYS AS (to_tsvector('english', topic || ' ' || content)) STORED`.execute(db);
    await sql`CREATE INDEX message_search ON message USING GIN (search_tsv)`.execute(db);
  } else {
    await sql`CREATE VIRTUAL TABLE message_fts USING fts5(topic, content, tokenize = 'porter unicode61')`.execute(db);
    await sql`CREATE TRIGGER message_fts_insert AFTER INSERT ON message BEGIN
      INSERT INTO message_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
    await sql`CREATE TRIGGER message_fts_update AFTER UPDATE OF topic, content ON message BEGIN
      UPDATE message_fts SET topic = new.topic, content = new.content WHERE rowid = new.id; END`.execute(db);
    await sql`CREATE TRIGGER message_fts_delete AFTER DELETE ON message BEGIN
      DELETE FROM message_fts WHERE rowid = old.id; END`.execute(db);
  }
}
