import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/** The tables that in-process caches read (store/versions.ts): logins, users, streams, subscriptions. */
const WATCHED = ['realm', 'users', 'stream', 'subscription', 'alert_word'];

/**
 * One counter that every write to a watched table moves, whoever makes it: the CLI,
 * another node, a hand-run SQL statement. Each server process polls it (store/epoch.ts)
 * instead of expiring its caches on a timer; the timer cost a query per login every
 * two seconds. A trigger rather than the repositories, so that no writer can forget it.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await sql`CREATE TABLE cache_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL)`.execute(db);
  await sql`INSERT INTO cache_epoch (id, value) VALUES (1, 0)`.execute(db);
  if (dialect === 'sqlite') {
    for (const table of WATCHED) {
      for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
        await sql.raw(`CREATE TRIGGER ${table}_epoch_${op.toLowerCase()} AFTER ${op} ON ${table} BEGIN
          UPDATE cache_epoch SET value = value + 1 WHERE id = 1; END`).execute(db);
      }
    }
    return;
  }
  // Once per statement: a subscription of a thousand users moves the counter once.
  await sql`CREATE FUNCTION bump_cache_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE cache_epoch SET value = value + 1 WHERE id = 1; RETURN NULL; END $$`.execute(db);
  for (const table of WATCHED) {
    await sql.raw(`CREATE TRIGGER ${table}_epoch AFTER INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch()`).execute(db);
  }
}
