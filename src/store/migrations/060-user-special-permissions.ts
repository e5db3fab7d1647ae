import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Zulip's can_change_user_emails special permission (feature level 313): granted only from
 * the server's command line (`parley user special-permission`), it lets an administrator
 * change another user's address through PATCH /users/{id} `new_email`.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('can_change_user_emails', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
