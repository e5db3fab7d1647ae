import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/** Webhooks find their bot by key alone (no email in the URL): an index, not a scan of the organization. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('users_api_key').on('users').column('api_key').execute();
}
