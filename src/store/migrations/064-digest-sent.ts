import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * The weekly digest's bookkeeping per user (Zulip keeps it as RealmAuditLog rows of
 * USER_DIGEST_EMAIL_CREATED): when the last digest went out, so that a restart or a second
 * node does not send another in the same period, and `claimed_until`, a lease a node takes
 * on the user before building their digest so that two nodes do not both build and send it.
 * `last_checked`: when a digest was last built and found with nothing to tell, so that the
 * hourly job looks at such a user once on their organization's weekday, as Zulip's daily one.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('digest_state')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('last_sent', 'bigint')
    .addColumn('claimed_until', 'bigint')
    .addColumn('last_checked', 'bigint')
    .execute();
}
