import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Single sign-on's short-lived secrets (src/actions/sso-tokens.ts), in the database rather
 * than in one process: the identity provider may send the person back to any node. The
 * primary key makes a second use of a one-time secret (a replayed assertion) fail.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('sso_token')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_token_expires').on('sso_token').column('expires').execute();
}
