import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Users are found by their real address (logins, GET /users/{email}) since feature level 163
 * made the `email` column a dummy `user{id}@host` for those who hide their address.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX users_realm_delivery_email ON users (realm_id, lower(delivery_email))`.execute(db);
}
