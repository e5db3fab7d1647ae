import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Invitations' `include_realm_default_subscriptions` (feature level 261; null for an
 * invitation made without it before that level: the default streams only when it names no
 * stream, as Zulip 5) and `notify_referrer_on_join` (267; 0/1, Zulip's default true).
 *
 * Two flags of custom profile fields (Zulip's CustomProfileField): `display_in_profile_summary`
 * (feature level 146; at most two fields of an organization carry it) and `required`
 * (feature level 244). Both 0/1 as Parley keeps its booleans.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('custom_profile_field').addColumn('display_in_profile_summary', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('custom_profile_field').addColumn('required', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('invite').addColumn('include_realm_default_subscriptions', 'integer').execute();
  await db.schema.alterTable('invite').addColumn('notify_referrer_on_join', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}
