import { sql } from 'kysely';
import type { Q } from '../rows.js';

/** What a backup records of a store, and what a restore looks at before it overwrites one. */
export const storeState = {
  /** The migrations applied, in the order they ran (names sort in that order too). */
  appliedMigrations: async (q: Q): Promise<string[]> =>
    (await sql<{ name: string }>`SELECT name FROM parley_migration ORDER BY name`.execute(q)).rows.map((r) => r.name),

  /**
   * Whether overwriting would lose anything: a second organization, a second person, or a
   * message a person sent. A first start makes one organization with its owner, its bots
   * and their welcome messages: that store is still empty in this sense.
   */
  holdsData: async (q: Q): Promise<boolean> => {
    const realms = await q.selectFrom('realm').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const people = await q.selectFrom('users').where('is_bot', '=', 0).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const sent = await q.selectFrom('message').innerJoin('users', 'users.id', 'message.sender_id')
      .where('users.is_bot', '=', 0).select('message.id').limit(1).executeTakeFirst();
    return Number(realms.n) > 1 || Number(people.n) > 1 || sent !== undefined;
  },

  /** PostgreSQL: sessions on this database other than ours (a server running on it). */
  otherSessions: async (q: Q): Promise<number> =>
    Number((await sql<{ n: number }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(q)).rows[0]?.n ?? 0),
};

/** Whether the store has Parley's schema at all (a new database, a new file, have none). */
export async function hasSchema(q: Q): Promise<boolean> {
  const tables = await q.introspection.getTables();
  return tables.some((t) => t.name === 'parley_migration');
}
