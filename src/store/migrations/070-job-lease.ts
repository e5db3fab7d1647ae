import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * The background jobs' leases (src/jobs/scheduler.ts): one row per job, so that in a cluster
 * one node at a time runs it. `holder` is the node running it now (null between runs);
 * `expires` (milliseconds) is when a running holder's lease lapses, or, between runs, when
 * the job is next due. A node takes the row only when `expires` has passed.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('job_lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text')
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
}
