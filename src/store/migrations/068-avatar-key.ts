import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Uploaded avatars (Zulip's avatar_source 'U'): `avatar_key` is the unguessable part of the
 * storage key of a user's current avatar (`<realm_id>/<avatar_key>.png`), new at each
 * upload as Zulip's per-version path is, so that no one can list an organization's avatars
 * by user id. Kept on the row rather than derived from a server secret: every node, the
 * exporter and every presenter read it without any process-wide state. Null until an upload.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('avatar_key', 'text').execute();
}
