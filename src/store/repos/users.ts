import { sql } from 'kysely';
import { hasControlCharacters } from '../../lib/email.js';
import { Role } from '../../lib/roles.js';
import { cachedWrites } from './cached-writes.js';
import type { Q, RealmRow, UserRow } from '../rows.js';

export const users = {
  findById: (q: Q, id: number): Promise<UserRow | undefined> =>
    q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),

  findInRealm: (q: Q, realmId: number, id: number): Promise<UserRow | undefined> =>
    q.selectFrom('users').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst(),

  // No stored address holds a NUL, and PostgreSQL refuses one even in a comparison.
  findByEmail: (q: Q, realmId: number, email: string): Promise<UserRow | undefined> =>
    // No stored address has control characters (lib/email.ts); PostgreSQL would refuse NUL outright.
    hasControlCharacters(email) ? Promise.resolve(undefined) : q.selectFrom('users').selectAll()
      .where('realm_id', '=', realmId).where('email_lower', '=', email.toLowerCase()).executeTakeFirst(),

  /** A webhook's key (Zulip's get_user_profile_by_api_key), within the organization the request came to. */
  findByApiKey: (q: Q, realmId: number, apiKey: string): Promise<UserRow | undefined> =>
    q.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('api_key', '=', apiKey).executeTakeFirst(),

  /** The realm's users as its lists show them: system bots are not among them. */
  listByRealm: (q: Q, realmId: number): Promise<UserRow[]> =>
    q.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('is_system_bot', '=', 0).orderBy('id').execute(),

  /** The bots the server writes as (register's cross_realm_bots). */
  listSystemBots: (q: Q, realmId: number): Promise<UserRow[]> =>
    q.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('is_system_bot', '=', 1).orderBy('id').execute(),

  listByIds: (q: Q, ids: number[]): Promise<UserRow[]> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('users').selectAll().where('id', 'in', ids).execute(),

  listActiveIdsInRealm: async (q: Q, realmId: number): Promise<number[]> =>
    (await q.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).where('is_system_bot', '=', 0).execute()).map((r) => r.id),

  listAdminIds: async (q: Q, realmId: number): Promise<number[]> =>
    (await q.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1)
      .where('role', '<=', 200).execute()).map((r) => r.id),

  listActiveNamesInRealm: (q: Q, realmId: number) =>
    q.selectFrom('users').select(['id', 'full_name', 'email', 'bot_type']).where('realm_id', '=', realmId).where('is_active', '=', 1).where('is_system_bot', '=', 0).execute(),

  /** Active users with their roles: who hears about a stream or a default-stream change. */
  listActiveRolesInRealm: (q: Q, realmId: number) =>
    q.selectFrom('users').select(['id', 'role']).where('realm_id', '=', realmId).where('is_active', '=', 1).where('is_system_bot', '=', 0).execute(),

  /** A realm's bots, or only those `ownerId` owns. */
  listBots: (q: Q, realmId: number, ownerId: number | null) => {
    let query = q.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('is_bot', '=', 1).where('is_system_bot', '=', 0);
    if (ownerId !== null) query = query.where('bot_owner_id', '=', ownerId);
    return query.orderBy('id').execute();
  },

  /** Zulip's check_bot_name_available: is this exact name taken by an active account? */
  countActiveHumanOwners: async (q: Q, realmId: number): Promise<number> =>
    Number((await q.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('realm_id', '=', realmId).where('role', '=', Role.OWNER).where('is_active', '=', 1).where('is_bot', '=', 0)
      .executeTakeFirstOrThrow()).n),

  existsActiveWithName: async (q: Q, realmId: number, fullName: string): Promise<boolean> =>
    (await q.selectFrom('users').select('id').where('realm_id', '=', realmId).where('full_name', '=', fullName)
      .where('is_active', '=', 1).limit(1).executeTakeFirst()) !== undefined,

  listActiveBotsOfOwner: (q: Q, ownerId: number) =>
    q.selectFrom('users').selectAll().where('bot_owner_id', '=', ownerId).where('is_active', '=', 1).execute(),

  /** A user by real address (delivery_email), whatever their `email` shows (feature level 163's dummy addresses). */
  findByDeliveryEmail: (q: Q, realmId: number, email: string): Promise<UserRow | undefined> =>
    hasControlCharacters(email) ? Promise.resolve(undefined) : q.selectFrom('users').selectAll()
      .where('realm_id', '=', realmId).where(sql<string>`lower(delivery_email)`, '=', sql<string>`lower(${email})`).executeTakeFirst(),

  /** A user by email on the realm of `subdomain`, with that realm's row: what a login needs, in one query. */
  findLogin: async (q: Q, subdomain: string, email: string): Promise<{ user: UserRow; realm: RealmRow } | undefined> => {
    if (hasControlCharacters(email) || hasControlCharacters(subdomain)) return undefined;
    const row = await q.selectFrom('users')
      .innerJoin('realm', 'realm.id', 'users.realm_id')
      .selectAll('users')
      .select(['realm.string_id as r_string_id', 'realm.name as r_name', 'realm.description as r_description',
        'realm.settings as r_settings', 'realm.deactivated as r_deactivated', 'realm.date_created as r_date_created'])
      .where('realm.string_id', '=', subdomain)
      // The real address, as Zulip authenticates (a dummy `email` from feature level 163 is no login).
      .where(sql<string>`lower(users.delivery_email)`, '=', sql<string>`lower(${email})`)
      .executeTakeFirst();
    if (!row) return undefined;
    const { r_string_id, r_name, r_description, r_settings, r_deactivated, r_date_created, ...user } = row;
    return {
      user,
      realm: { id: user.realm_id, string_id: r_string_id, name: r_name, description: r_description, settings: r_settings, deactivated: r_deactivated, date_created: r_date_created },
    };
  },

  ...cachedWrites('users'),
};
