import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Zulip 10's stream permission settings as group-setting values (feature levels 320-357):
 * TEXT columns on `stream` named as the setting, each the value as JSON (a named group's id,
 * or `{"direct_members":[...],"direct_subgroups":[...]}`), so that a group's uses can be found
 * by setting name. can_remove_subscribers_group takes over can_remove_subscribers_group_id
 * (level 320); can_send_message_group follows stream_post_policy as Zulip's migration maps it
 * (level 333; the policy column stays, derived, for the deprecated field); the settings new in
 * Zulip 10 start as role:nobody for existing streams. Archived streams keep their
 * subscriptions from now on (level 315): nothing to migrate.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  for (const col of ['can_remove_subscribers_group', 'can_administer_channel_group', 'can_send_message_group', 'can_add_subscribers_group', 'can_subscribe_group']) {
    await db.schema.alterTable('stream').addColumn(col, 'text').execute();
  }
  await db.schema.alterTable('stream').addColumn('is_recently_active', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  const groups = await db.selectFrom('user_group').select(['id', 'realm_id', 'name']).where('is_system_group', '=', 1).execute() as Array<{ id: number; realm_id: number; name: string }>;
  const byRealm = new Map<number, Map<string, number>>();
  for (const g of groups) {
    const m = byRealm.get(Number(g.realm_id)) ?? new Map<string, number>();
    m.set(g.name, Number(g.id));
    byRealm.set(Number(g.realm_id), m);
  }
  const policyGroup: Record<number, string> = { 1: 'role:everyone', 2: 'role:administrators', 3: 'role:fullmembers', 4: 'role:moderators' };
  const rows = await db.selectFrom('stream').select(['id', 'realm_id', 'stream_post_policy', 'can_remove_subscribers_group_id']).execute() as
    Array<{ id: number; realm_id: number; stream_post_policy: number; can_remove_subscribers_group_id: number | null }>;
  for (const s of rows) {
    const sys = byRealm.get(Number(s.realm_id));
    if (!sys) continue;
    const nobody = String(sys.get('role:nobody'));
    await db.updateTable('stream').set({
      can_remove_subscribers_group: String(s.can_remove_subscribers_group_id ?? sys.get('role:administrators')),
      can_send_message_group: String(sys.get(policyGroup[Number(s.stream_post_policy)] ?? 'role:everyone')),
      can_administer_channel_group: nobody,
      can_add_subscribers_group: nobody,
      can_subscribe_group: nobody,
    }).where('id', '=', s.id).execute();
  }
  await sql`ALTER TABLE stream DROP COLUMN can_remove_subscribers_group_id`.execute(db);
}
