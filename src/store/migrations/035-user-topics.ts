import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Muted topics become user topics (Zulip's UserTopic, feature levels 134/170/219): each row
 * holds a `visibility_policy` (1 muted, 2 unmuted, 3 followed; "inherit" is no row), and
 * `date_muted` becomes `last_updated`, the time the policy was set. Every existing row was a
 * mute, hence the default.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('muted_topic').renameTo('user_topic').execute();
  await db.schema.alterTable('user_topic').renameColumn('date_muted', 'last_updated').execute();
  await db.schema.alterTable('user_topic').addColumn('visibility_policy', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  // A topic move looks up everyone's policy for one topic.
  await db.schema.createIndex('user_topic_topic').on('user_topic').columns(['stream_id', 'topic_lower']).execute();
}
