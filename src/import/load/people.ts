/**
 * People: every user of the export (bots, deactivated and mirror-dummy accounts included),
 * with Zulip's cross-realm bots mapped onto the new organization's own system bots. Nobody
 * gets a password or the export's API key: people set a password, bots get new keys.
 */
import type { Tx } from '../../actions/transaction.js';
import { users } from '../../store/repos/users.js';
import { recipients } from '../../store/repos/recipients.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { generateApiKey } from '../../lib/secrets.js';
import { isValidEmail } from '../../lib/email.js';
import { ROLE_VALUES, Role } from '../../lib/roles.js';
import { MAX_NAME_LENGTH } from '../../lib/limits.js';
import { doSyncSystemGroups } from '../../actions/system-groups.js';
import { ImportError, type Row } from '../source.js';
import { field } from './ids.js';
import { tableOf, type LoadState } from './state.js';
import { userFromZulip } from '../zulip-columns.js';

/** Zulip's cross-realm bots by the addresses exports name them with, onto Parley's system bots. */
const CROSS_REALM: Record<string, string> = {
  'notification-bot@zulip.com': 'notification-bot@zulip.com',
  'welcome-bot@zulip.com': 'welcome-bot@zulip.com',
  // Parley has no email gateway: its messages come from Notification Bot.
  'emailgateway@zulip.com': 'notification-bot@zulip.com',
};

/** Names as Parley accepts them (actions/user-create.ts checkFullName): mention syntax characters dropped. */
export function cleanName(name: string, fallback: string): string {
  const n = name.replace(/[\u0000-\u001f\u007f*`\\>"@]/g, '').trim().slice(0, MAX_NAME_LENGTH);
  return n === '' ? fallback : n;
}

function roleOf(row: Row): number {
  const role = row.role;
  if (typeof role === 'number' && ROLE_VALUES.includes(role)) return role;
  // Exports from before Zulip 3.0 carry is_realm_admin / is_guest instead of a role.
  if (row.is_realm_admin === true) return Role.ADMINISTRATOR;
  if (row.is_guest === true) return Role.GUEST;
  return Role.MEMBER;
}

export async function loadPeople(tx: Tx, s: LoadState): Promise<void> {
  const rows: Row[] = [...tableOf(s, 'zerver_userprofile'), ...tableOf(s, 'zerver_userprofile_mirrordummy').map((r) => ({ ...r, is_active: false }))];
  s.progress.phase('people', rows.length);
  const seen = new Set<string>();
  const ownerIds: Array<[number, unknown]> = [];
  for (const row of rows) {
    const where = `user ${JSON.stringify(row.id)}`;
    if (typeof row.full_name !== 'string' || row.full_name.trim() === '') row.full_name = String(row.delivery_email ?? row.email ?? '').split('@')[0];
    const sourceId = field.int(row, 'id', 'zerver_userprofile');
    const delivery = field.str(row, 'delivery_email', where, typeof row.email === 'string' ? row.email : undefined).trim();
    if (!isValidEmail(delivery)) throw new ImportError(`${where} has an invalid email address ${JSON.stringify(delivery.slice(0, 100))}`);
    if (seen.has(delivery.toLowerCase())) throw new ImportError(`two users of the export have the address ${delivery}`);
    seen.add(delivery.toLowerCase());
    const mapped = userFromZulip(row, () => undefined);
    const id = await users.insert(tx.db, {
      ...mapped, realm_id: s.realm.id, email: delivery, email_lower: delivery.toLowerCase(), delivery_email: delivery,
      full_name: cleanName(mapped.full_name, delivery.split('@')[0]!), password_hash: null, api_key: generateApiKey(),
      role: roleOf(row), bot_owner_id: null, default_sending_stream_id: null, default_events_register_stream_id: null,
      // Uploaded avatars are copied after the people (files are not written in this transaction).
      avatar_source: 'G', avatar_version: mapped.avatar_version ?? 1,
    });
    await recipients.insert(tx.db, RecipientType.PERSONAL, id);
    s.users.set(sourceId, id);
    if (mapped.is_bot === 1 && row.bot_owner !== null && row.bot_owner !== undefined) ownerIds.push([id, row.bot_owner]);
    s.progress.tick();
  }
  for (const [botId, owner] of ownerIds) {
    // An owner outside the export (Zulip writes none) leaves the bot ownerless, as a deactivated owner's.
    if (s.users.has(owner)) await users.update(tx.db, botId, { bot_owner_id: s.users.get(owner, 'a bot') });
  }
  const systemBots = new Map((await users.listSystemBots(tx.db, s.realm.id)).map((b) => [b.email, b.id]));
  for (const row of tableOf(s, 'zerver_userprofile_crossrealm')) {
    const target = CROSS_REALM[String(row.email)];
    const id = target ? systemBots.get(target) : undefined;
    if (id !== undefined && typeof row.id === 'number') s.users.set(row.id, id);
  }
  for (const [, id] of s.users.entries()) {
    const user = await users.findById(tx.db, id);
    if (user && user.is_active === 1) await doSyncSystemGroups(tx, user);
  }
  s.progress.done();
}

/** Bots' default streams, once the streams exist. */
export async function loadBotDefaults(tx: Tx, s: LoadState): Promise<void> {
  for (const row of tableOf(s, 'zerver_userprofile')) {
    if (!field.bool(row, 'is_bot') || !s.users.has(row.id)) continue;
    const stream = (v: unknown) => (s.streams.has(v) ? s.streams.get(v, 'a bot') : null);
    const patch = { default_sending_stream_id: stream(row.default_sending_stream), default_events_register_stream_id: stream(row.default_events_register_stream) };
    if (patch.default_sending_stream_id !== null || patch.default_events_register_stream_id !== null) await users.update(tx.db, s.users.get(row.id, 'a bot'), patch);
  }
}
