import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/** Streams remember who created them (Zulip's Stream.creator, feature level 254); null for streams made before. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('stream').addColumn('creator_id', 'integer').execute();
}
