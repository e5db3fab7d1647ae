import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * A soft-deactivated person's catch-up makes the rows they lack as unread (Zulip's
 * add_missing_messages). Those an import left out are of history they had read where it came
 * from (a Slack import marks everyone's rows read): rows for messages up to
 * `idle_read_through` are made read.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('idle_read_through', 'integer').execute();
}
