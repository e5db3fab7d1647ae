import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Two flags of custom profile fields (Zulip's CustomProfileField): `display_in_profile_summary`
 * (feature level 146; at most two fields of an organization carry it) and `required`
 * (feature level 244). Both 0/1 as Parley keeps its booleans.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('custom_profile_field').addColumn('display_in_profile_summary', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('custom_profile_field').addColumn('required', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
