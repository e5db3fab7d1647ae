import { sql } from 'kysely';
import type { Q } from '../rows.js';
import { migrations } from '../migrations/index.js';

/** What /ready and the metrics ask of the store: cheap statements, no realm. */
export const serverHealth = {
  /** Answers when the database does (a statement that touches no table). */
  ping: async (q: Q): Promise<void> => {
    await sql`SELECT 1`.execute(q);
  },

  /** Migrations this build has that the database has not recorded as applied. */
  missingMigrations: async (q: Q): Promise<string[]> => {
    // The migrations' own table (db.ts's migrate()), outside the typed schema.
    const applied = new Set((await sql<{ name: string }>`SELECT name FROM parley_migration`.execute(q)).rows.map((r) => r.name));
    return migrations.map((m) => m.name).filter((name) => !applied.has(name));
  },

  /**
   * Missed-message notifications waiting to be sent, by kind (email, push), and calls
   * waiting in the push service's outbox: both tables hold only what is still to do.
   */
  outboxDepths: async (q: Q): Promise<{ notifications: Array<{ kind: string; n: number }>; pushCalls: number }> => {
    const notifications = await q.selectFrom('missed_message_notification').select(['kind', (eb) => eb.fn.countAll<number | string>().as('n')]).groupBy('kind').execute();
    const calls = await q.selectFrom('push_outbox').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
    return { notifications: notifications.map((r) => ({ kind: r.kind, n: Number(r.n) })), pushCalls: Number(calls?.n ?? 0) };
  },
};
