import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * The mentions index widened to topic wildcards, and stored personal settings (users.settings, and the organization's defaults in
 * realms.settings.user_settings_defaults) under the names and numbering of Zulip's later
 * levels, which Parley keeps and converts for older clients (src/lib/user-settings.ts):
 * realm_name_in_notifications (true → 2 always, false → 1 automatic, as Zulip's migration),
 * default_view → web_home_view, escape_navigates_to_default_view →
 * web_escape_navigates_to_home_view, desktop_icon_count_display 2 → 3 and 3 → 4.
 * Only what a user changed is stored, so most rows hold '{}' and are left alone.
 */
function convert(stored: Record<string, unknown>): boolean {
  let changed = false;
  const rename = (from: string, to: string, map: (v: unknown) => unknown = (v) => v): void => {
    if (!(from in stored)) return;
    if (!(to in stored)) stored[to] = map(stored[from]);
    delete stored[from];
    changed = true;
  };
  rename('realm_name_in_notifications', 'realm_name_in_email_notifications_policy', (v) => (v ? 2 : 1));
  rename('default_view', 'web_home_view');
  rename('escape_navigates_to_default_view', 'web_escape_navigates_to_home_view');
  const icon = stored.desktop_icon_count_display;
  if (icon === 2 || icon === 3) {
    stored.desktop_icon_count_display = icon + 1;
    changed = true;
  }
  return changed;
}

function parse(json: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  // Level 224's topic_wildcard_mentioned is bit 32 (Zulip's old summarize_in_home, which
  // Parley never set): the mentions index covers it with the other mention bits.
  await sql`DROP INDEX IF EXISTS user_message_mentioned`.execute(db);
  await sql`CREATE INDEX user_message_mentioned ON user_message (user_id, message_id) WHERE (flags & 56) <> 0`.execute(db);
  const users = await db.selectFrom('users').select(['id', 'settings']).where('settings', '<>', '{}').execute() as Array<{ id: number; settings: string }>;
  for (const u of users) {
    const stored = parse(u.settings);
    if (stored && convert(stored)) await db.updateTable('users').set({ settings: JSON.stringify(stored) }).where('id', '=', u.id).execute();
  }
  const realms = await db.selectFrom('realm').select(['id', 'settings']).execute() as Array<{ id: number; settings: string }>;
  for (const r of realms) {
    const stored = parse(r.settings);
    const defaults = stored?.user_settings_defaults;
    if (stored && defaults && typeof defaults === 'object' && convert(defaults as Record<string, unknown>)) {
      await db.updateTable('realm').set({ settings: JSON.stringify(stored) }).where('id', '=', r.id).execute();
    }
  }
}
