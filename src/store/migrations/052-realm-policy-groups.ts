import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Levels 299-358 (src/lib/realm-policy-groups.ts): the organization policies Zulip 10 replaced
 * by realm group settings. An organization that had changed one gets the groups Zulip's
 * migrations gave it, stored by group id under the setting's name in realm.settings; one that
 * had not keeps the settings' defaults, which match the policies' defaults. An organization
 * that hid edit history gets message_edit_history_visibility_policy "none". Written out here,
 * not imported, so that the migration stays what it was.
 */
const MEMBERS = 'role:members';
const ADMINS = 'role:administrators';
const COMMON: Record<number, string> = { 1: MEMBERS, 2: ADMINS, 3: 'role:fullmembers', 4: 'role:moderators', 6: 'role:nobody' };
const WILDCARD: Record<number, string> = {
  1: 'role:everyone', 2: MEMBERS, 3: 'role:fullmembers', 4: ADMINS, 5: ADMINS, 6: 'role:nobody', 7: 'role:moderators',
};
const GROUPS_OF: Record<string, (p: number) => Record<string, string | undefined>> = {
  user_group_edit_policy: (p) => ({ can_create_groups: COMMON[p], can_manage_all_groups: COMMON[p] }),
  add_custom_emoji_policy: (p) => ({ can_add_custom_emoji_group: COMMON[p] }),
  invite_to_realm_policy: (p) => ({ can_invite_users_group: COMMON[p] }),
  invite_to_stream_policy: (p) => ({ can_add_subscribers_group: COMMON[p] }),
  bot_creation_policy: (p) => ({ can_create_bots_group: p === 1 ? MEMBERS : ADMINS, can_create_write_only_bots_group: p === 3 ? ADMINS : MEMBERS }),
  wildcard_mention_policy: (p) => ({ can_mention_many_users_group: WILDCARD[p] }),
};

function parse(json: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  const realms = await db.selectFrom('realm').select(['id', 'settings']).execute() as Array<{ id: number; settings: string }>;
  for (const r of realms) {
    const stored = parse(r.settings);
    if (!stored) continue;
    let changed = false;
    const groups = await db.selectFrom('user_group').select(['id', 'name']).where('realm_id', '=', r.id).where('is_system_group', '=', 1)
      .execute() as Array<{ id: number; name: string }>;
    const idOf = new Map(groups.map((g) => [g.name, g.id]));
    for (const [policy, groupsOf] of Object.entries(GROUPS_OF)) {
      const value: unknown = stored[policy];
      if (typeof value !== 'number') continue;
      for (const [setting, name] of Object.entries(groupsOf(value)) as Array<[string, string | undefined]>) {
        const id = name === undefined ? undefined : idOf.get(name);
        if (id === undefined || setting in stored) continue;
        stored[setting] = id;
        changed = true;
      }
    }
    if (stored.allow_edit_history === false && !('message_edit_history_visibility_policy' in stored)) {
      stored.message_edit_history_visibility_policy = 'none';
      changed = true;
    }
    if (changed) await db.updateTable('realm').set({ settings: JSON.stringify(stored) }).where('id', '=', r.id).execute();
  }
}
